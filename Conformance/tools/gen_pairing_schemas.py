"""Writes Spec/schemas/pairing/*.schema.json (JSON Schema 2020-12) from the member tables of
Spec/pairing.md, one file per kind. Usage: gen_pairing_schemas.py [OUTPUT_FOLDER].

Nothing here is written per kind: the kinds are the rows of the chapter's kind table (section 1),
and a kind's members, their order, JSON types, whether they are required and their rules are the
rows of the member table under the kind's heading in section 3. What a member's schema says comes
from its rules (RULE_SHAPES: what a rule makes of a string, an integer or an array;
RULE_CONSTRAINTS: what a rule adds to a member another rule shaped) and from three shapes made of
several members (a desktop's and a phone's deviceInfo, the payload a `message` carries).
A new kind whose members follow rules this file knows needs no change here; a member this file
cannot place stops the generator with the kind and the member.

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
import re
import sys

from schema_blocks import CORE_WIRE, TYPE4_WHY, WHITE_SPACE, WIRE_WHY, core_rules, member

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Spec", "schemas", "pairing")
BASE = "https://devicedata.example/spec/schemas/pairing/"

# ---------------------------------------------------------------------------------------------
# Building blocks

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


def platform_shape(side):
    values = ["win32", "darwin", "linux"] if side == "desktop" else ["ios", "android"]
    return {"type": "string", "enum": values, "description": f"A {side} platform, case-sensitive (PAIR-INFO-002)."}


def platform(side):
    return member(platform_shape(side), True, ["PAIR-INFO-002"])


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


# ---------------------------------------------------------------------------------------------
# The Spec's tables

SPEC = os.path.join(ROOT, "Spec", "pairing.md")
RULE_ID = re.compile(r"\b(?:PAIR|CORE)-[A-Z]+-[0-9]{3}\b")


def table_rows(lines, start):
    """The body rows of the Markdown table whose header is at lines[start], as lists of cells."""
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def read_spec():
    """[(kind, direction, carrier, seed, section, member rows)], in the kind table's order."""
    lines = open(SPEC, encoding="utf-8").read().split("\n")
    kinds_at = next(i for i, line in enumerate(lines) if line.startswith("| kind | direction |"))
    kinds = [(row[0].strip("`"), row[1], row[2], row[3]) for row in table_rows(lines, kinds_at)]
    messages = next(i for i, line in enumerate(lines) if line.startswith("## 3."))
    flows = next(i for i, line in enumerate(lines) if line.startswith("## 4."))
    found = []
    for kind, direction, carrier, seed in kinds:
        heading = next((i for i in range(messages, flows) if lines[i].startswith("###") and f"`{kind}`" in lines[i]), None)
        if heading is None:
            sys.exit(f"gen_pairing_schemas: Spec/pairing.md section 3 has no heading naming `{kind}`")
        section = next(re.match(r"### (3\.[0-9]+)", lines[i]).group(1) for i in range(heading, messages, -1)
                       if re.match(r"### 3\.[0-9]+", lines[i]))
        table = next((i for i in range(heading + 1, flows) if lines[i].startswith("| # | member |")), None)
        if table is None or any(lines[i].startswith("###") for i in range(heading + 1, table)):
            sys.exit(f"gen_pairing_schemas: `{kind}` has no member table under its heading in Spec/pairing.md")
        found.append((kind, direction, carrier, seed, section, table_rows(lines, table)))
    return found


# ---------------------------------------------------------------------------------------------
# From a member row to its schema

def ice_expiry(required):
    shapes = [{"const": 0}, seconds()] + ([] if required else [{"type": "null"}])
    return {"type": "integer", "anyOf": shapes, "description": "Epoch seconds, or 0: no ICE credentials, no expiry (PAIR-ICE-002)."}


ICE_SERVERS_JSON = {"type": "string", "pattern": "^[\t\n\r ]*\\[[\\s\\S]*\\][\t\n\r ]*$",
                    "contentMediaType": "application/json", "contentSchema": ice_servers_array(),
                    "description": ("The QR's iceServers value as received: the text of a JSON array "
                                    "valid under PAIR-ICE-001 (\"\" and \"null\" are violations).")}
ERROR_CODE = {"type": "string", "enum": ["invalid-message", "not-registered", "rate-limited", "alias-taken",
                                         "alias-expired", "too-large"],
              "description": "Clients act on the code, never on the human text (PAIR-SIG-003)."}

# What a rule makes of a member of a JSON type: the first rule of a member found here gives its
# schema (a member whose rules are all context or cross-member rules is its bare JSON type).
RULE_SHAPES = {
    ("string", "PAIR-CODE-001"): lambda required, text: code(),
    ("string", "PAIR-PEER-001"): lambda required, text: peer_id(),
    ("string", "PAIR-DID-001"): lambda required, text: did(),
    ("string", "PAIR-INFO-001"): lambda required, text: {"type": "string", **NOT_BLANK, "description": "Non-blank; shown as received (PAIR-INFO-001)."},
    ("string", "PAIR-INFO-002"): lambda required, text: platform_shape("phone" if "phone" in text else "desktop"),
    ("string", "PAIR-INFO-003"): lambda required, text: {"type": "string", **NOT_BLANK, "description": "Non-blank, opaque, case kept (PAIR-INFO-003)."},
    ("string", "PAIR-URL-001"): lambda required, text: url(False),
    ("string", "PAIR-URL-002"): lambda required, text: url(True),
    ("string", "PAIR-SIG-003"): lambda required, text: ERROR_CODE,
    ("string", "PAIR-STORE-001"): lambda required, text: ICE_SERVERS_JSON,
    ("integer", "PAIR-TIME-001"): lambda required, text: millis(),
    ("integer", "PAIR-ICE-002"): lambda required, text: ice_expiry(required),
    ("array", "PAIR-ICE-001"): lambda required, text: ice_servers_array(),
}
URL_RULES = ("PAIR-URL-001", "PAIR-URL-002")
# What a rule adds to a member whose shape another rule gave (one more entry of its allOf).
RULE_CONSTRAINTS = {
    "PAIR-SEC-006": {"not": {"type": "string", "pattern": "^pairing-code:"}, "x-rules": ["PAIR-SEC-006"],
                     "description": "Never a pairing-code: alias (a presence broadcast must not hand out live codes)."},
}


def member_schema(kind, name, json_type, required, rules, text, note):
    """The schema of one member row; `note` (the required cell's parenthesis) describes it."""
    if "PAIR-TYPE-001" in rules:
        return type_member(kind)
    if json_type == "object":
        if "PAIR-INFO-003" in rules:
            return mobile_info()
        if "PAIR-INFO-002" in rules:
            return desktop_info()
        if kind == "message" and name == "payload":
            return message_payload(rules)
    if json_type == "string" and not required:
        url_rule = next((r for r in rules if r in URL_RULES), None)
        if url_rule:
            # Absent, null and "" all mean "no URL" (3.1, 3.6).
            return optional_url(url_rule == "PAIR-URL-002", url_rule)
    shape = next((RULE_SHAPES[(json_type, r)] for r in rules if (json_type, r) in RULE_SHAPES), None)
    if shape is None and (any(r not in NOT_EXPRESSED and r not in RULE_CONSTRAINTS for r in rules) or json_type not in ("string", "integer", "array", "object")):
        sys.exit(f"gen_pairing_schemas: no shape for `{kind}` member `{name}` ({json_type}, {', '.join(rules) or 'no rules'}): "
                 "add what its rule makes of it to RULE_SHAPES")
    schema = shape(required, text) if shape else {"type": json_type}
    extra = [RULE_CONSTRAINTS[r] for r in rules if r in RULE_CONSTRAINTS]
    if extra:
        schema = dict(schema, allOf=schema.get("allOf", []) + extra)
    if note:
        schema = dict(schema, description=note)
    return member(schema, required, rules, integer=json_type == "integer")


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


def payload_kinds():
    """The kinds a `message` carries (3.1-3.4): in the kind table, carried by a signaling `message`
    or a QR code (what a QR shows may also travel in a message)."""
    return [kind for kind, direction, carrier, *_ in KINDS if carrier in ("QR code", "signaling `message`")]


def message_payload(rules):
    """A `message`'s payload (3.5): checked as the pairing kind or WebRTC signal its type names."""
    return member({"type": "object",
                   "description": ("When its type names a pairing payload kind (3.1-3.4) it is checked as that "
                                   "kind (the referenced schema), when it names a WebRTC signal (3.7) as that "
                                   "signal; any other payload is kept as received."),
                   "allOf": [{"if": {"properties": {"type": {"const": k}}, "required": ["type"]},
                              "then": {"$ref": k.replace(":", "-") + ".schema.json"}} for k in payload_kinds()] + WEBRTC},
                  True, ["PAIR-SIG-002"] + rules)


# What a `message` states across its members (3.5): `to` is required in a client's message, and
# PAIR-SIG-002's alias rule.
MESSAGE_ROOT = {"allOf": [
    {"description": "A message without from (absent or null) is a client's and names its target; a relay's delivery (with from) may omit to.",
     "x-rules": ["CORE-TYPE-001"],
     "if": {"not": {"required": ["from"], "properties": {"from": {"not": {"type": "null"}}}}}, "then": {"required": ["to"]}},
    {"description": "PAIR-SIG-002: a message to a pairing-code: alias carries a pair-ack.",
     "x-rules": ["PAIR-SIG-002"],
     "if": {"properties": {"to": {"type": "string", "pattern": "^pairing-code:"}}, "required": ["to"]},
     "then": {"properties": {"payload": {"properties": {"type": {"const": "pair-ack"}}, "required": ["type"]}}}}]}


def schema_of(kind, direction, carrier, seed, section, rows, rows_of):
    """write()'s arguments for one kind, from its rows of the kind table and its member table.
    `rows_of(kind)` gives another kind's member rows (a cell "as in `K`" shares K's member)."""
    rules, order, required, properties = [], [], [], {}
    for number, name, json_type, needed, cell in rows:
        name = name.strip("`")
        shared = re.search(r"as in `([^`]+)`", cell)
        if shared:
            cell = next((row[4] for row in rows_of(shared.group(1)) if row[1].strip("`") == name), None)
            if cell is None:
                sys.exit(f"gen_pairing_schemas: `{kind}` member `{name}` is 'as in `{shared.group(1)}`', which has no such member")
        ids = RULE_ID.findall(cell)
        rules += [r for r in ids if r not in rules]
        if not name or name == "(context)":
            order += [(f"(context: {r})" if name else f"({r})") for r in ids]
            continue
        order.append(name)
        # "yes" is required; "yes in ..." is required where a condition holds (stated at the root).
        if needed == "yes":
            required.append(name)
        note = re.fullmatch(r"no \((.*)\)", needed)
        note = note.group(1)[:1].upper() + note.group(1)[1:] + "." if note else None
        properties[name] = member_schema(kind, name, json_type, needed.startswith("yes"), ids, cell, note)
    title = f"{direction}, carried by {carrier}".replace("`", "")
    where = f"{section} (seed 002 {seed})" if seed.startswith("§") else section
    return (kind.replace(":", "-"), kind, where, title[:1].upper() + title[1:], rules, order, required, properties,
            MESSAGE_ROOT if kind == "message" else None)


os.makedirs(OUT, exist_ok=True)
KINDS = read_spec()


def rows_of(kind):
    rows = next((entry[5] for entry in KINDS if entry[0] == kind), None)
    if rows is None:
        sys.exit(f"gen_pairing_schemas: 'as in `{kind}`' names no kind of the kind table")
    return rows


for entry in KINDS:
    write(*schema_of(*entry, rows_of))
