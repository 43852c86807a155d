"""Writes Spec/schemas/pairing/*.schema.json (JSON Schema 2020-12) from the member tables of
Spec/pairing.md, one file per kind. Usage: gen_pairing_schemas.py [OUTPUT_FOLDER].

A schema states what JSON Schema can state: JSON types, required members, `null` for optional
members (CORE-TYPE-002), the code, DID, peer-id, URL and ICE syntaxes, platform and error-code enums,
time ranges, blank strings (a pattern that asks for one character outside Unicode White_Space).
Unknown members are allowed (core.md, "Unknown members"). Every property carries `x-rules`, the rule
ids that govern it. At the root:

- `x-rules`: every rule of the kind, in the order its checks run;
- `x-check-order`: the members in the order they are checked (Spec pairing.md section 1);
- `x-rules-expressed`: rules the schema states exactly: a document that breaks one of them is
  rejected by the schema (check_schemas.py holds the vectors to this);
- `x-rules-partly-expressed` / `x-rules-not-expressed`: rule id -> what the schema cannot state.

Patterns are ECMA-262 (JSON Schema 2020-12, section 6.4). Each pattern anchored with `$` sits beside a
"no control characters" constraint, so engines whose `$` also matches before a final line feed
(Python's `re`) give the same answers. Non-ASCII and invisible characters are written as JSON `\\uXXXX`
escapes, so the patterns contain the characters themselves and need no regex-level `\\u` support.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Spec", "schemas", "pairing")
BASE = "https://devicedata.example/spec/schemas/pairing/"

# ---------------------------------------------------------------------------------------------
# Building blocks

# Unicode White_Space (PropList.txt): U+0009..U+000D, U+0020, U+0085, U+00A0, U+1680,
# U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
WHITE_SPACE = "\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK = {"pattern": f"[^{WHITE_SPACE}]",
             "description": "Not blank: at least one character that is not Unicode White_Space."}
# C0, DEL and C1 controls (PAIR-PEER-001). `type` inside `not` so that `null` still passes.
CONTROLS = "\u0000-\u001f\u007f-\u009f"
NO_CONTROL = {"not": {"type": "string", "pattern": f"[{CONTROLS}]"},
              "description": "No control characters (U+0000-U+001F, U+007F-U+009F)."}

CODE_PATTERN = "^[0-9]{6}$"
ALIAS_PATTERN = "^(?!pairing-code:)|^pairing-code:[0-9]{6}$"
# PAIR-DID-001: did:METHOD:ID (W3C DID Core 3.1, non-empty segments); did:key is base58btc multibase.
DID_PATTERN = ("^(?=[\\s\\S]{0,256}$)did:(?:key:z[1-9A-HJ-NP-Za-km-z]+$|(?!key:)[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+"
               "(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+)*$)")
# PAIR-URL-001: an IPv4 address when the last label is all digits (four octets, no leading
# zeros), else an RFC 1123 name (labels of letters, digits, inner hyphens; at most 253 bytes).
IPV4_OCTET = r"(?:0|[1-9][0-9]?|1[0-9]{2}|2[0-4][0-9]|25[0-5])"
IPV4 = r"(?:" + IPV4_OCTET + r"\.){3}" + IPV4_OCTET + r"(?![0-9A-Za-z.-])"
LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
DNS_NAME = r"(?=[A-Za-z0-9.-]{1,253}(?![A-Za-z0-9.-]))(?:" + LABEL + r"\.)*(?=[0-9]*[A-Za-z-])" + LABEL + r"(?![A-Za-z0-9.-])"
# RFC 3986 IPv6address: eight 16-bit groups, or fewer with one "::", the last two optionally IPv4.
H16 = r"[0-9A-Fa-f]{1,4}"
LS32 = r"(?:" + H16 + ":" + H16 + "|" + r"(?:" + IPV4_OCTET + r"\.){3}" + IPV4_OCTET + ")"
IPV6 = "(?:" + "|".join([
    "(?:" + H16 + ":){6}" + LS32,
    "::(?:" + H16 + ":){5}" + LS32,
    "(?:" + H16 + ")?::(?:" + H16 + ":){4}" + LS32,
    "(?:(?:" + H16 + ":){0,1}" + H16 + ")?::(?:" + H16 + ":){3}" + LS32,
    "(?:(?:" + H16 + ":){0,2}" + H16 + ")?::(?:" + H16 + ":){2}" + LS32,
    "(?:(?:" + H16 + ":){0,3}" + H16 + ")?::" + H16 + ":" + LS32,
    "(?:(?:" + H16 + ":){0,4}" + H16 + ")?::" + LS32,
    "(?:(?:" + H16 + ":){0,5}" + H16 + ")?::" + H16,
    "(?:(?:" + H16 + ":){0,6}" + H16 + ")?::",
]) + ")"
HOST = r"(?:" + IPV4 + "|" + DNS_NAME + r"|\[" + IPV6 + r"\])"
PORT = (r"(?::(?=[0-9]{1,5}(?![0-9]))0*"
        r"(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?")
PATH_QUERY = r'(?:[/?][!"$-~]*)?'  # printable ASCII without '#': no fragment, no whitespace
WS_URL_PATTERN = "^[Ww][Ss][Ss]?://" + HOST + PORT + PATH_QUERY + "$"
OCTET = "(?:[0-9]{1,2}|[01][0-9]{2}|2[0-4][0-9]|25[0-5])"
RELAY_PATTERN = (r"^(?:[Ww][Ss][Ss]://|[Ww][Ss]://(?:[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]|127(?:\." + OCTET
                 + r"){3}|\[::1\])(?:[:/?]|$))")
ICE_URL_PATTERN = r"^(?:[Ss][Tt][Uu][Nn][Ss]?|[Tt][Uu][Rr][Nn][Ss]?):[\s\S]"

CORE_WIRE = ["CORE-JSON-001", "CORE-JSON-002", "CORE-JSON-003", "CORE-JSON-004", "CORE-JSON-005", "CORE-JSON-006"]
WIRE_WHY = ("the wire profile applies to the document's text before there is a JSON instance (syntax, UTF-8, "
            "duplicate member names, size, depth, finite numbers)")
TYPE4_WHY = ("integer literals: parsing loses the literal, and a 2020-12 \"integer\" accepts 1.0; the value "
             "ranges are stated, the literal form (no fraction, no exponent) is not")


def core_rules(required, integer=False):
    """The core typed-member rules of a member (core.md, "Typed members")."""
    rules = (["CORE-TYPE-001"] if required else []) + ["CORE-TYPE-002", "CORE-TYPE-003"]
    return rules + (["CORE-TYPE-004"] if integer else [])


def with_null(schema):
    """An optional member: null means "not given" (CORE-TYPE-002)."""
    s = dict(schema)
    t = s["type"]
    s["type"] = (t if isinstance(t, list) else [t]) + ["null"]
    return s


def member(schema, required, rules, integer=False, description=None):
    s = dict(schema) if required else with_null(schema)
    if description:
        s = {"description": description, **s}
    s["x-rules"] = core_rules(required, integer) + rules
    return s


def code():
    return {"type": "string", "minLength": 6, "maxLength": 6, "pattern": CODE_PATTERN,
            "description": "Six ASCII digits (PAIR-CODE-001); a string, never a number."}


def peer_id():
    return {"type": "string", "minLength": 1, "maxLength": 256,
            "description": ("A peer id (PAIR-PEER-001, PAIR-PEER-002). maxLength 256 counts characters; the "
                            "limit of 256 UTF-8 bytes is not expressible."),
            "allOf": [dict(NOT_BLANK, **{"x-rules": ["PAIR-PEER-001"]}),
                      dict(NO_CONTROL, **{"x-rules": ["PAIR-PEER-001"]}),
                      {"pattern": ALIAS_PATTERN, "x-rules": ["PAIR-PEER-002"],
                       "description": "A pairing-code: alias is exactly pairing-code: and six ASCII digits."}]}


def did():
    return {"type": "string", "maxLength": 256, "pattern": DID_PATTERN, **NO_CONTROL,
            "description": "A did:cc: DID (PAIR-DID-001), at most 256 characters."}


def url(relay):
    checks = [{"pattern": WS_URL_PATTERN, "description": (
        "ws or wss (any case), a host (DNS name, IPv4, bracketed IPv6), an optional port 1-65535, an optional "
        "path and query; no user-info, fragment, whitespace or non-ASCII character.")}]
    if relay:
        checks.append({"pattern": RELAY_PATTERN, "description": (
            "wss, or ws to localhost, 127.0.0.0/8 or [::1] only.")})
    checks.append(NO_CONTROL)
    return {"type": "string", "allOf": checks}


def optional_url(relay, rule):
    """A URL member where absent, null and "" all mean "no URL" (pairing.md 3.1, 3.6)."""
    return {"type": ["string", "null"],
            "description": "Absent, null and \"\" all mean \"no URL\"; the canonical form omits the member.",
            "anyOf": [{"type": "null"}, {"const": ""}, url(relay)],
            "x-rules": ["CORE-TYPE-002", "CORE-TYPE-003", rule]}


def millis():
    return {"type": "integer", "minimum": 1000000000000, "exclusiveMaximum": 10000000000000,
            "description": "Epoch milliseconds in [10^12, 10^13) (PAIR-TIME-001)."}


def seconds():
    return {"type": "integer", "minimum": 1000000000, "exclusiveMaximum": 100000000000,
            "description": "Epoch seconds in [10^9, 10^11) (PAIR-ICE-002)."}


def name(required=True):
    return member({"type": "string", **NOT_BLANK, "description": "Non-blank; shown as received (PAIR-INFO-001)."},
                  required, ["PAIR-INFO-001"])


def platform(side):
    values = ["win32", "darwin", "linux"] if side == "desktop" else ["ios", "android"]
    return member({"type": "string", "enum": values, "description": f"A {side} platform, case-sensitive (PAIR-INFO-002)."},
                  True, ["PAIR-INFO-002"])


def ice_url():
    return {"type": "string", "pattern": ICE_URL_PATTERN,
            "description": "stun:, stuns:, turn: or turns: (any case) and at least one character after it."}


def ice_servers_array():
    return {"type": "array", "items": {
        "type": "object", "required": ["urls"], "additionalProperties": True,
        "x-rules": ["CORE-TYPE-003", "PAIR-ICE-001"],
        "properties": {
            "urls": {"description": "A string or a non-empty array of strings (WebRTC RTCIceServer.urls).",
                     "type": ["string", "array"],
                     "oneOf": [ice_url(), {"type": "array", "minItems": 1, "items": ice_url()}],
                     "x-rules": core_rules(True) + ["PAIR-ICE-001"]},
            "username": member({"type": "string"}, False, ["PAIR-ICE-001"]),
            "credential": member({"type": "string"}, False, ["PAIR-ICE-001"])}}}


def desktop_info():
    return member({"type": "object", "required": ["name", "platform"], "additionalProperties": True,
                   "x-check-order": ["name", "platform", "version"],
                   "properties": {"name": name(), "platform": platform("desktop"),
                                  "version": member({"type": "string"}, False, [])}},
                  True, ["PAIR-INFO-001", "PAIR-INFO-002"], description="The desktop's device (seed 002 §4.1).")


def mobile_info():
    return member({"type": "object", "required": ["deviceId", "name", "platform"], "additionalProperties": True,
                   "x-check-order": ["deviceId", "name", "platform"],
                   "properties": {
                       "deviceId": member({"type": "string", **NOT_BLANK,
                                           "description": "Non-blank, opaque, case kept (PAIR-INFO-003)."},
                                          True, ["PAIR-INFO-003"]),
                       "name": name(), "platform": platform("phone")}},
                  True, ["PAIR-INFO-003", "PAIR-INFO-001", "PAIR-INFO-002"], description="The phone's device (seed 002 §4.2).")


def type_member(kind):
    return member({"type": "string", "const": kind}, True, ["PAIR-TYPE-001"])


# ---------------------------------------------------------------------------------------------
# What a schema cannot state, per rule

NOT_EXPRESSED = {
    "CORE-TYPE-004": TYPE4_WHY,
    "PAIR-TIME-002": "relative to the receiver's clock, context `now`",
    "PAIR-TIME-003": "relative to the receiver's clock, context `now`",
    "PAIR-DID-002": "needs the receiver's identity, context `activeDid`",
    "PAIR-SIG-001": "needs the sender's own peer id, context `localPeerId`",
    "PAIR-RTC-004": "needs the client's own peer id, context `localPeerId`",
    "PAIR-STORE-002": "compares two members, lastSeenAt >= pairedAt",
}
PARTLY_EXPRESSED = {
    "PAIR-PEER-001": "the limit of 256 UTF-8 bytes, since maxLength counts characters",
    "PAIR-SIG-002": "that the alias's code equals the payload's pairingCode; that the payload is a pair-ack is stated",
    "PAIR-STORE-001": ("the content of the text, stated only as starting with [ and ending with ]; contentSchema "
                       "gives the array's schema but is an annotation in 2020-12"),
}
for rule in CORE_WIRE:
    NOT_EXPRESSED[rule] = WIRE_WHY

GENERAL = ("Not expressible here: the order of the checks (the first failing check is the only one reported; "
           "x-check-order lists the members in that order), the wire rules CORE-JSON-001 to -006 (syntax, UTF-8, "
           "duplicate member names, size, depth, finite numbers: properties of the text, not of the parsed "
           "instance), integer literals (CORE-TYPE-004: 1.0 is an integer to a schema)")


def write(file, kind, section, title, rules, order, required, properties, extra_root=None):
    """rules: every rule of the kind in check order (core typed-member rules included)."""
    rules = CORE_WIRE + ["CORE-TYPE-001", "CORE-TYPE-002", "CORE-TYPE-003", "CORE-TYPE-004"] + rules
    not_expressed = {r: NOT_EXPRESSED[r] for r in rules if r in NOT_EXPRESSED}
    partly = {r: PARTLY_EXPRESSED[r] for r in rules if r in PARTLY_EXPRESSED}
    expressed = [r for r in rules if r not in not_expressed and r not in partly]
    specific = [f"{r} (partly: {why})" for r, why in partly.items()]
    specific += [f"{r} ({why})" for r, why in not_expressed.items() if r not in CORE_WIRE and r != "CORE-TYPE-004"]
    blank = [r for r in ("PAIR-PEER-001", "PAIR-INFO-003", "PAIR-INFO-001") if r in rules]
    description = (f"{title}. Spec/pairing.md {section}; rules {', '.join(r for r in rules if r not in CORE_WIRE)}. "
                   f"Expressed here: {', '.join(expressed)}. {GENERAL}"
                   + (f"; and for this kind {'; '.join(specific)}" if specific else "") + "."
                   + (f" Blank strings ({', '.join(blank)}) are stated by a pattern that asks for one character "
                      "outside Unicode White_Space." if blank else ""))
    doc = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": BASE + file + ".schema.json",
        "title": f"Pairing: {kind}",
        "description": description,
        "type": "object",
        "required": required,
        "additionalProperties": True,
        "properties": properties,
    }
    if extra_root:
        doc.update(extra_root)
    doc["x-kind"] = kind
    doc["x-rules"] = rules
    doc["x-check-order"] = order
    doc["x-rules-expressed"] = expressed
    doc["x-rules-partly-expressed"] = partly
    doc["x-rules-not-expressed"] = not_expressed
    # ASCII only: invisible and non-ASCII characters (inside patterns) are written as JSON escapes.
    text = json.dumps(doc, ensure_ascii=True, indent=2) + "\n"
    with open(os.path.join(OUT, file + ".schema.json"), "w", encoding="utf-8") as f:
        f.write(text)


os.makedirs(OUT, exist_ok=True)

write("desktop-pairing", "desktop-pairing", "3.1 (seed 002 §4.1)", "The QR payload a desktop shows in Flow B",
      ["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-PEER-001", "PAIR-PEER-002", "PAIR-TIME-001", "PAIR-TIME-002",
       "PAIR-TIME-003", "PAIR-DID-002", "PAIR-INFO-001", "PAIR-INFO-002", "PAIR-URL-001", "PAIR-URL-002",
       "PAIR-ICE-001", "PAIR-ICE-002"],
      ["type", "code", "pcPeerId", "timestamp", "(context: PAIR-DID-002)", "deviceInfo", "signalingUrl", "relayUrl",
       "iceServers", "iceExpiry"],
      ["type", "code", "pcPeerId", "timestamp", "deviceInfo", "relayUrl"],
      {"type": type_member("desktop-pairing"),
       "code": member(code(), True, ["PAIR-CODE-001"]),
       "pcPeerId": member(peer_id(), True, ["PAIR-PEER-001", "PAIR-PEER-002"]),
       "timestamp": member(millis(), True, ["PAIR-TIME-001", "PAIR-TIME-002", "PAIR-TIME-003"], integer=True),
       "deviceInfo": desktop_info(),
       "signalingUrl": optional_url(False, "PAIR-URL-001"),
       "relayUrl": member(dict(url(True), description="The relay (PAIR-URL-002: the PAIR-URL-001 syntax, and wss "
                                                      "except on loopback)."), True, ["PAIR-URL-002"]),
       "iceServers": member(ice_servers_array(), False, ["PAIR-ICE-001"]),
       "iceExpiry": member({"type": "integer", "anyOf": [{"const": 0}, seconds(), {"type": "null"}],
                            "description": "Epoch seconds, or 0: no ICE credentials, no expiry (PAIR-ICE-002)."},
                           False, ["PAIR-ICE-002"], integer=True)})

write("pair-ack", "pair-ack", "3.2 (seed 002 §4.2)", "The phone's answer to a desktop QR or a typed code",
      ["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-DID-001", "PAIR-INFO-003", "PAIR-INFO-001", "PAIR-INFO-002",
       "PAIR-TIME-001"],
      ["type", "pairingCode", "mobileDid", "deviceInfo", "timestamp"],
      ["type", "pairingCode", "mobileDid", "deviceInfo", "timestamp"],
      {"type": type_member("pair-ack"),
       "pairingCode": member(code(), True, ["PAIR-CODE-001"]),
       "mobileDid": member(did(), True, ["PAIR-DID-001"]),
       "deviceInfo": mobile_info(),
       "timestamp": member(millis(), True, ["PAIR-TIME-001"], integer=True)})

write("device-pairing", "device-pairing", "3.3 (seed 002 §4.3)", "The QR payload a phone shows in Flow A",
      ["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-DID-001", "PAIR-INFO-003", "PAIR-INFO-001", "PAIR-INFO-002",
       "PAIR-TIME-001"],
      ["type", "code", "did", "deviceInfo", "timestamp"],
      ["type", "code", "did", "deviceInfo", "timestamp"],
      {"type": type_member("device-pairing"),
       "code": member(code(), True, ["PAIR-CODE-001"]),
       "did": member(did(), True, ["PAIR-DID-001"]),
       "deviceInfo": mobile_info(),
       "timestamp": member(millis(), True, ["PAIR-TIME-001"], integer=True)})

write("pairing-confirmation", "pairing:confirmation", "3.4 (seed 002 §4.4)",
      "The desktop's confirmation in Flow A and the manual flow",
      ["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-PEER-001", "PAIR-PEER-002", "PAIR-INFO-001", "PAIR-INFO-002",
       "PAIR-TIME-001"],
      ["type", "pairingCode", "pcPeerId", "deviceInfo", "timestamp"],
      ["type", "pairingCode", "pcPeerId", "deviceInfo", "timestamp"],
      {"type": type_member("pairing:confirmation"),
       "pairingCode": member(code(), True, ["PAIR-CODE-001"]),
       "pcPeerId": member(peer_id(), True, ["PAIR-PEER-001", "PAIR-PEER-002"]),
       "deviceInfo": desktop_info(),
       "timestamp": member(millis(), True, ["PAIR-TIME-001"], integer=True)})

write("register", "register", "3.5 (seed 002 §6.1, §6.2)", "A client claims a peer id on the relay",
      ["PAIR-TYPE-001", "PAIR-PEER-001", "PAIR-PEER-002", "PAIR-SIG-001"],
      ["type", "peerId"], ["type", "peerId"],
      {"type": type_member("register"),
       "peerId": member(peer_id(), True, ["PAIR-PEER-001", "PAIR-PEER-002", "PAIR-SIG-001"])})

PAYLOAD_KINDS = [("desktop-pairing", "desktop-pairing"), ("pair-ack", "pair-ack"),
                 ("device-pairing", "device-pairing"), ("pairing:confirmation", "pairing-confirmation")]


def description(kind, rule):
    """An offer's or answer's session description (3.7)."""
    return {"then": {"required": [kind], "properties": {kind: {
        "type": "object", "required": ["type", "sdp"], "x-rules": core_rules(True) + [rule],
        "properties": {"type": member({"type": "string", "const": kind}, True, [rule]),
                       "sdp": member({"type": "string", "pattern": "^v=0\\r?\\n"}, True, [rule])}}}},
            "if": {"properties": {"type": {"const": kind}}, "required": ["type"]}}


CANDIDATE = {"if": {"properties": {"type": {"const": "ice-candidate"}}, "required": ["type"]},
             "then": {"required": ["candidate"], "properties": {"candidate": {
                 "type": "object", "required": ["candidate", "sdpMid", "sdpMLineIndex"], "x-rules": core_rules(True) + ["PAIR-RTC-003"],
                 "properties": {"candidate": member({"type": "string", "pattern": "^candidate:."}, True, ["PAIR-RTC-003"]),
                                "sdpMid": member({"type": "string", "minLength": 1}, True, ["PAIR-RTC-003"]),
                                "sdpMLineIndex": member({"type": "integer", "minimum": 0, "maximum": 65535}, True, ["PAIR-RTC-003"], integer=True)}}}}}
WEBRTC = [description("offer", "PAIR-RTC-001"), description("answer", "PAIR-RTC-002"), CANDIDATE]

write("message", "message", "3.5, 3.7 (seed 002 §4.2, §6.5)", "A signaling envelope routed by the relay",
      ["PAIR-TYPE-001", "PAIR-PEER-001", "PAIR-PEER-002", "PAIR-RTC-001", "PAIR-RTC-002", "PAIR-RTC-003", "PAIR-SIG-002", "PAIR-RTC-004"],
      ["type", "to", "from", "payload", "(PAIR-SIG-002)", "(PAIR-RTC-004)"],
      ["type", "payload"],
      {"type": type_member("message"),
       "to": member(peer_id(), True, ["PAIR-PEER-001", "PAIR-PEER-002"]),
       "from": member(dict(peer_id(), description="Set by the relay: the sender's first non-alias peer id."),
                      False, ["PAIR-PEER-001", "PAIR-PEER-002"]),
       "payload": member({"type": "object",
                          "description": ("When its type names a pairing payload kind (3.1-3.4) it is checked as that "
                                          "kind (the referenced schema), when it names a WebRTC signal (3.7) as that "
                                          "signal; any other payload is kept as received."),
                          "allOf": [{"if": {"properties": {"type": {"const": k}}, "required": ["type"]},
                                     "then": {"$ref": f + ".schema.json"}} for k, f in PAYLOAD_KINDS] + WEBRTC},
                         True, ["PAIR-SIG-002", "PAIR-RTC-001", "PAIR-RTC-002", "PAIR-RTC-003"])},
      {"allOf": [{"description": "A message without from (absent or null) is a client's and names its target; a relay's delivery (with from) may omit to.",
                  "x-rules": ["CORE-TYPE-001"],
                  "if": {"not": {"required": ["from"], "properties": {"from": {"not": {"type": "null"}}}}}, "then": {"required": ["to"]}},
                 {"description": "PAIR-SIG-002: a message to a pairing-code: alias carries a pair-ack.",
                  "x-rules": ["PAIR-SIG-002"],
                  "if": {"properties": {"to": {"type": "string", "pattern": "^pairing-code:"}}, "required": ["to"]},
                  "then": {"properties": {"payload": {"properties": {"type": {"const": "pair-ack"}},
                                                      "required": ["type"]}}}}]})

write("registered", "registered", "3.5 (seed 002 §8, 1.2)", "The relay accepted a register",
      ["PAIR-TYPE-001", "PAIR-PEER-001", "PAIR-PEER-002"], ["type", "peerId"], ["type", "peerId"],
      {"type": type_member("registered"),
       "peerId": member(peer_id(), True, ["PAIR-PEER-001", "PAIR-PEER-002"])})

write("peer-offline", "peer-offline", "3.5 (seed 002 §6.5)", "The target of a message is not registered",
      ["PAIR-TYPE-001", "PAIR-PEER-001", "PAIR-PEER-002"], ["type", "peerId"], ["type", "peerId"],
      {"type": type_member("peer-offline"),
       "peerId": member(peer_id(), True, ["PAIR-PEER-001", "PAIR-PEER-002"])})

write("error", "error", "3.5", "The relay refused something",
      ["PAIR-TYPE-001", "PAIR-SIG-003"], ["type", "code", "message"], ["type", "code"],
      {"type": type_member("error"),
       "code": member({"type": "string", "enum": ["invalid-message", "not-registered", "rate-limited", "alias-taken",
                                                  "alias-expired", "too-large"],
                       "description": "Clients act on the code, never on the human text (PAIR-SIG-003)."},
                      True, ["PAIR-SIG-003"]),
       "message": member({"type": "string", "description": "For people."}, False, [])})

write("ping", "ping", "3.5, 4.4 (PAIR-RELAY-002, PAIR-CONN-003)", "A client's keepalive as a text frame",
      ["PAIR-TYPE-001"], ["type"], ["type"], {"type": type_member("ping")})

write("pong", "pong", "3.5 (PAIR-RELAY-002)", "The relay's answer to a ping",
      ["PAIR-TYPE-001"], ["type"], ["type"], {"type": type_member("pong")})

write("paired-desktop", "paired-desktop", "3.6 (seed 002 §6.3)",
      "The record a phone stores after Flow B (no type member; check with --kind paired-desktop)",
      ["PAIR-PEER-001", "PAIR-PEER-002", "PAIR-INFO-001", "PAIR-INFO-002", "PAIR-URL-001", "PAIR-URL-002",
       "PAIR-STORE-001", "PAIR-ICE-002", "PAIR-TIME-001", "PAIR-STORE-002"],
      ["pcPeerId", "deviceName", "platform", "lanSignalingUrl", "relayUrl", "iceServersJson", "iceExpiry", "pairedAt",
       "lastSeenAt"],
      ["pcPeerId", "deviceName", "platform", "iceExpiry", "pairedAt", "lastSeenAt"],
      {"pcPeerId": member(peer_id(), True, ["PAIR-PEER-001", "PAIR-PEER-002"]),
       "deviceName": name(),
       "platform": platform("desktop"),
       "lanSignalingUrl": optional_url(False, "PAIR-URL-001"),
       "relayUrl": optional_url(True, "PAIR-URL-002"),
       "iceServersJson": member({"type": "string", "pattern": "^[\t\n\r ]*\\[[\\s\\S]*\\][\t\n\r ]*$",
                                 "contentMediaType": "application/json", "contentSchema": ice_servers_array(),
                                 "description": ("The QR's iceServers value as received: the text of a JSON array "
                                                 "valid under PAIR-ICE-001 (\"\" and \"null\" are violations).")},
                                False, ["PAIR-STORE-001"]),
       "iceExpiry": member({"type": "integer", "anyOf": [{"const": 0}, seconds()],
                            "description": "Epoch seconds in [10^9, 10^11), or 0 for no ICE credentials."},
                           True, ["PAIR-ICE-002"], integer=True),
       "pairedAt": member(millis(), True, ["PAIR-TIME-001"], integer=True),
       "lastSeenAt": member(millis(), True, ["PAIR-TIME-001", "PAIR-STORE-002"], integer=True)})
