"""Writes the pairing document vectors (Vectors/pairing/<kind>.json).

Every expectation here is written by hand from Spec/core.md and Spec/pairing.md: the accepted
canonical forms and the single first violation of each rejected document. Nothing is computed by
the implementation under test. Rerun after editing; commit the script and its output together.
"""
import base64
import copy
import json
import os
import sys

import webrtc_cases
from vector_file import write_file
from pairing_fixtures import DESK, LAN, MOBILE, PHONE, RELAY, T0, UUID  # noqa: F401

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors", "pairing")
ICE = [
    {"urls": "stun:stun.l.google.com:19302"},
    {"urls": ["turn:turn.chainlesschain.com:3478?transport=udp", "turns:turn.chainlesschain.com:5349"],
     "username": "1747386400:phone-1", "credential": "c2VjcmV0LWNyZWRlbnRpYWw="},
]
QR = {
    "type": "desktop-pairing", "code": "048213", "pcPeerId": DESK,
    "deviceInfo": {"name": "DESKTOP-7F3K", "platform": "win32", "version": "5.0.3.54"},
    "timestamp": T0 - 10000, "signalingUrl": LAN, "relayUrl": RELAY, "iceServers": ICE, "iceExpiry": 1747386400,
}
ACK = {"type": "pair-ack", "pairingCode": "048213", "mobileDid": PHONE, "deviceInfo": MOBILE, "timestamp": T0 - 2000}
DEVICE = {"type": "device-pairing", "code": "730291", "did": PHONE, "deviceInfo": MOBILE, "timestamp": T0 - 2000}
CONF = {"type": "pairing:confirmation", "pairingCode": "730291", "pcPeerId": DESK,
        "deviceInfo": {"name": "DESKTOP-7F3K", "platform": "win32", "version": "5.0.3.54"}, "timestamp": T0 - 1000}
RECORD = {"pcPeerId": DESK, "deviceName": "DESKTOP-7F3K", "platform": "win32", "lanSignalingUrl": LAN, "relayUrl": RELAY,
          "iceServersJson": json.dumps(ICE, separators=(",", ":"), ensure_ascii=False), "iceExpiry": 1747386400,
          "pairedAt": T0, "lastSeenAt": T0 + 86400000}


def edit(doc, **changes):
    """A copy of doc; a change to None removes the member; dotted keys reach into objects."""
    d = copy.deepcopy(doc)
    for key, value in changes.items():
        parts = key.split("__")
        target = d
        for p in parts[:-1]:
            target = target[p]
        if value is DROP:
            target.pop(parts[-1], None)
        else:
            target[parts[-1]] = value
    return d


DROP = object()


class File:
    def __init__(self, kind, description, context):
        self.kind, self.description, self.context, self.cases = kind, description, context, []
        self.slug = kind.replace(":", "-")

    def _case(self, slug, comment, rules, flags, context, source):
        c = {"id": f"pairing/{self.slug}/{slug}", "comment": comment, "flags": flags, "rules": rules}
        if context is not None:
            c["context"] = context
        c.update(source)
        self.cases.append(c)
        return c

    def accept(self, slug, comment, doc=None, canonical=None, rules=(), flags=(), context=None, text=None, segments=None):
        source = {"input": doc} if text is None and segments is None else ({"inputText": text} if text is not None else {"inputSegments": segments})
        c = self._case(slug, comment, list(rules), list(flags), context, source)
        c["expected"] = {"outcome": "accept", "canonical": canonical if canonical is not None else doc}

    def reject(self, slug, comment, path, rule, doc=None, rules=None, flags=(), context=None, text=None, b64=None, segments=None):
        if text is not None:
            source = {"inputText": text}
        elif b64 is not None:
            source = {"inputBase64": b64}
        elif segments is not None:
            source = {"inputSegments": segments}
        else:
            source = {"input": doc}
        c = self._case(slug, comment, list(rules if rules is not None else [rule]), list(flags), context, source)
        c["expected"] = {"outcome": "reject", "violations": [{"path": path, "rule": rule}]}

    def write(self):
        return write_file(OUT, "pairing", self.description, self.context, self.cases, kind=self.kind)


def compact(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------- desktop-pairing
dp = File("desktop-pairing", "The QR payload a desktop shows in Flow B (seed 002 §4.1; Spec pairing.md 3.1).",
          {"now": T0, "activeDid": PHONE})
ALL_QR_RULES = ["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-PEER-001", "PAIR-TIME-001", "PAIR-TIME-002", "PAIR-TIME-003",
                "PAIR-DID-002", "PAIR-INFO-001", "PAIR-INFO-002", "PAIR-URL-001", "PAIR-URL-002", "PAIR-ICE-001",
                "PAIR-ICE-002", "CORE-TYPE-003", "CORE-TYPE-004", "CORE-JSON-001", "CORE-JSON-002", "CORE-JSON-003"]
dp.accept("seed-example", "The seed's payload with every member given is accepted unchanged.", QR, rules=ALL_QR_RULES, flags=["seed-example"])
minimal = edit(QR, signalingUrl=DROP, iceServers=DROP, iceExpiry=DROP, deviceInfo__version=DROP)
dp.accept("minimal", "Only the required members: no LAN URL, no ICE servers, no version.", minimal,
          rules=["CORE-TYPE-001", "PAIR-URL-002"])
dp.accept("signaling-url-null", "signalingUrl null means no LAN URL (null = absent for optional members) and is omitted.",
          edit(QR, signalingUrl=None), edit(QR, signalingUrl=DROP), rules=["CORE-TYPE-002", "PAIR-URL-001"], flags=["interop-trap"])
dp.accept("signaling-url-empty", "signalingUrl \"\" (the seed's 可空) also means no LAN URL and is omitted.",
          edit(QR, signalingUrl=""), edit(QR, signalingUrl=DROP), rules=["PAIR-URL-001"], flags=["interop-trap"])
dp.accept("code-all-zeros", "\"000000\" is a valid code: six ASCII digits, leading zeros kept.", edit(QR, code="000000"),
          rules=["PAIR-CODE-001"], flags=["boundary", "interop-trap"])
dp.accept("code-leading-zero", "\"012345\" keeps its leading zero; codes are strings.", edit(QR, code="012345"),
          rules=["PAIR-CODE-001"], flags=["interop-trap"])
dp.accept("age-exactly-five-minutes", "A payload exactly 300000 ms old is still accepted (the bound is inclusive).",
          edit(QR, timestamp=T0 - 300000), rules=["PAIR-TIME-002", "PAIR-TIME-001"], flags=["boundary"])
dp.accept("future-sixty-seconds", "A payload dated 60000 ms ahead of the phone's clock is accepted (clock skew).",
          edit(QR, timestamp=T0 + 60000), rules=["PAIR-TIME-003"], flags=["boundary"])
unknown = edit(QR, extra={"nested": [1, 2, {"deep": True}]}, deviceInfo__arch="x64", qrVersion=2)
unknown["iceServers"] = [dict(ICE[0], credentialType="password"), ICE[1]]
dp.accept("unknown-members-ignored", "Unknown members, also inside deviceInfo and ICE entries, are ignored and dropped from the canonical form.",
          unknown, QR, rules=["PAIR-TYPE-001", "PAIR-ICE-001", "CORE-MEMBER-001"], flags=["interop-trap"])
dp.accept("peer-id-256-bytes", "A pcPeerId of exactly 256 UTF-8 bytes is accepted.", edit(QR, pcPeerId="d" * 256),
          rules=["PAIR-PEER-001"], flags=["boundary"])
dp.accept("peer-id-mixed-case-kept", "Peer ids are opaque: case and inner spaces are kept as sent.",
          edit(QR, pcPeerId="Desktop 4F9C2A"), rules=["PAIR-PEER-001"], flags=["interop-trap"])
dp.accept("unicode-desktop-name", "Device names are shown as received: Chinese, emoji and combining marks are kept.",
          edit(QR, deviceInfo__name="张三的 MacBook Pro 💻 e\u0301"), rules=["PAIR-INFO-001"])
dp.accept("platform-darwin", "darwin is a desktop platform.", edit(QR, deviceInfo__platform="darwin"), rules=["PAIR-INFO-002"])
dp.accept("platform-linux", "linux is a desktop platform.", edit(QR, deviceInfo__platform="linux"), rules=["PAIR-INFO-002"])
dp.accept("relay-on-loopback", "A ws:// relay is allowed on loopback (tests).", edit(QR, relayUrl="ws://127.0.0.1:9001", signalingUrl=DROP),
          edit(QR, relayUrl="ws://127.0.0.1:9001", signalingUrl=DROP), rules=["PAIR-URL-002"])
dp.accept("url-scheme-upper-case", "URL schemes are case-insensitive and kept as sent.",
          edit(QR, relayUrl="WSS://Signaling.ChainlessChain.com/ws?v=1", signalingUrl="WS://[fe80::1]:9001/"),
          rules=["PAIR-URL-001", "PAIR-URL-002"], flags=["interop-trap"])
dp.accept("ice-servers-empty", "An empty iceServers list is valid.", edit(QR, iceServers=[]), rules=["PAIR-ICE-001"], flags=["boundary"])
dp.accept("ice-credentials-null", "null username and credential are absent and omitted.",
          edit(QR, iceServers=[{"urls": "turn:t.example.com", "username": None, "credential": None}]),
          edit(QR, iceServers=[{"urls": "turn:t.example.com"}]), rules=["PAIR-ICE-001", "CORE-TYPE-002"])
dp.accept("ice-expiry-bounds", "iceExpiry 10^9 is the smallest seconds value accepted.", edit(QR, iceExpiry=1000000000),
          rules=["PAIR-ICE-002"], flags=["boundary"])
dp.accept("ice-expiry-upper-bound", "iceExpiry 10^11 - 1 is the largest seconds value accepted.", edit(QR, iceExpiry=99999999999),
          rules=["PAIR-ICE-002"], flags=["boundary"])
dp.accept("pretty-printed", "Insignificant whitespace (spaces, tabs, CR, LF) anywhere between tokens is fine.",
          text=json.dumps(QR, indent="\t", ensure_ascii=False).replace("\n", "\r\n  "), canonical=QR, rules=["CORE-JSON-001"])
dp.accept("escaped-unicode", "\\u escapes, including a surrogate pair, decode to the same string.",
          text=compact(QR).replace("DESKTOP-7F3K", "\\u5f20\\u4e09 \\ud83d\\udcbb"), canonical=edit(QR, deviceInfo__name="张三 💻"),
          rules=["CORE-JSON-002"], flags=["interop-trap"])
dp.accept("names-differing-in-case", "\"code\" and \"Code\" are different names, not duplicates; the unknown one is ignored.",
          text=compact(QR)[:-1] + ',"Code":"999999"}', canonical=QR, rules=["CORE-JSON-003"], flags=["interop-trap"])
dp.accept("huge-number-in-unknown-member", "1e308 is finite: allowed in an ignored member.",
          text=compact(QR)[:-1] + ',"x":1e308}', canonical=QR, rules=["CORE-JSON-006"])
depth_ok = [{"text": compact(QR)[:-1] + ',"x":'}, {"text": "[", "repeat": 63}, {"text": "]", "repeat": 63}, {"text": "}"}]
dp.accept("nesting-depth-64", "Nesting of exactly 64 levels (root object + 63 arrays) is accepted.",
          segments=depth_ok, canonical=QR, rules=["CORE-JSON-005"], flags=["boundary"])
base = compact(QR)[:-1] + ',"pad":"'
pad = 65536 - len(base.encode()) - 2
dp.accept("size-exactly-64-kib", "A document of exactly 65536 bytes is accepted.",
          segments=[{"text": base}, {"text": "a", "repeat": pad}, {"text": "\"}"}], canonical=QR, rules=["CORE-JSON-004"], flags=["boundary"])

# accepted: boundaries and interop traps (second batch)
dp.accept("emoji-only-name", "A desktop name that is one emoji (U+1F5A5 U+FE0F) is not blank and is kept as sent.",
          edit(QR, deviceInfo__name="🖥️"), rules=["PAIR-INFO-001"], flags=["boundary"])
dp.accept("zhang-macbook", "A macOS desktop whose hostname has an apostrophe, as the seed's <hostname> allows.",
          edit(QR, deviceInfo={"name": "Zhang's MacBook Pro", "platform": "darwin", "version": "5.1.0"}),
          rules=["PAIR-INFO-001", "PAIR-INFO-002"])
dp.accept("optional-members-null", "Kotlin writes null for absent optionals: null signalingUrl, iceServers, iceExpiry and version mean not given and are omitted.",
          edit(QR, signalingUrl=None, iceServers=None, iceExpiry=None, deviceInfo__version=None),
          edit(QR, signalingUrl=DROP, iceServers=DROP, iceExpiry=DROP, deviceInfo__version=DROP),
          rules=["CORE-TYPE-002", "PAIR-URL-001", "PAIR-ICE-001", "PAIR-ICE-002"], flags=["interop-trap"])
dp.accept("peer-id-256-bytes-multibyte", "A pcPeerId of 86 characters and exactly 256 UTF-8 bytes (85 x 张 + d) is accepted: the limit counts bytes.",
          edit(QR, pcPeerId="张" * 85 + "d"), rules=["PAIR-PEER-001"], flags=["boundary", "interop-trap"])
dp.accept("pc-peer-id-zero-width-no-break-space", "U+FEFF is not Unicode White_Space, so it is not blank (JavaScript's trim() would strip it).",
          edit(QR, pcPeerId="\ufeff"), rules=["PAIR-PEER-001"], flags=["interop-trap"])
dp.accept("pc-peer-id-alias-lookalike", "pairing-code-4f9c2a (a hyphen, not a colon) is not an alias, so PAIR-PEER-002 does not apply.",
          edit(QR, pcPeerId="pairing-code-4f9c2a"), rules=["PAIR-PEER-002", "PAIR-PEER-001"], flags=["boundary"])
dp.accept("relay-localhost", "ws:// is allowed for a relay on localhost.", edit(QR, relayUrl="ws://localhost:9001"),
          rules=["PAIR-URL-002"], flags=["boundary"])
dp.accept("relay-ipv6-loopback", "ws:// is allowed for a relay on [::1].", edit(QR, relayUrl="ws://[::1]:9001/signal"),
          rules=["PAIR-URL-002"], flags=["boundary"])
dp.accept("relay-url-port-65535", "Port 65535 is the largest port.", edit(QR, relayUrl="wss://signaling.chainlesschain.com:65535/"),
          rules=["PAIR-URL-001", "PAIR-URL-002"], flags=["boundary"])

# rejections, in check order
dp.reject("type-missing", "A payload without type is not a pairing payload.", "/type", "CORE-TYPE-001", edit(QR, type=DROP))
dp.reject("type-null", "type null is not absent for a required member.", "/type", "CORE-TYPE-002", edit(QR, type=None), flags=["interop-trap"])
dp.reject("type-number", "type must be a string.", "/type", "CORE-TYPE-003", edit(QR, type=42))
dp.reject("type-other-case", "The type is compared case-sensitively.", "/type", "PAIR-TYPE-001", edit(QR, type="Desktop-Pairing"), flags=["interop-trap"])
dp.reject("type-other-kind", "A pair-ack is not a desktop-pairing payload.", "/type", "PAIR-TYPE-001", edit(QR, type="pair-ack"))
dp.reject("code-missing", "code is required.", "/code", "CORE-TYPE-001", edit(QR, code=DROP))
dp.reject("code-as-number", "A code sent as the number 123456 is rejected: as a number, 012345 would lose its zero.",
          "/code", "CORE-TYPE-003", edit(QR, code=123456), flags=["interop-trap"])
dp.reject("code-five-digits", "Five digits are not a code.", "/code", "PAIR-CODE-001", edit(QR, code="48213"))
dp.reject("code-five-digits-leading-zero-lost", "\"12345\" is what a numeric 012345 becomes: rejected.", "/code", "PAIR-CODE-001",
          edit(QR, code="12345"), flags=["interop-trap"])
dp.reject("code-seven-digits", "Seven digits are not a code.", "/code", "PAIR-CODE-001", edit(QR, code="0482131"))
dp.reject("code-arabic-indic-digits", "\\d in Java/Kotlin/.NET matches ١٢٣٤٥٦; the Spec requires ASCII digits.",
          "/code", "PAIR-CODE-001", edit(QR, code="١٢٣٤٥٦"), flags=["interop-trap"])
dp.reject("code-fullwidth-digits", "Fullwidth digits are not ASCII digits.", "/code", "PAIR-CODE-001", edit(QR, code="０４８２１３"), flags=["interop-trap"])
dp.reject("code-surrounding-space", "Codes are not trimmed.", "/code", "PAIR-CODE-001", edit(QR, code=" 048213"), flags=["interop-trap"])
dp.reject("pc-peer-id-missing", "pcPeerId is required.", "/pcPeerId", "CORE-TYPE-001", edit(QR, pcPeerId=DROP))
dp.reject("pc-peer-id-null", "null is not absent for a required member.", "/pcPeerId", "CORE-TYPE-002", edit(QR, pcPeerId=None), flags=["interop-trap"])
dp.reject("pc-peer-id-empty", "An empty pcPeerId fails the seed's check 3 (非空).", "/pcPeerId", "PAIR-PEER-001", edit(QR, pcPeerId=""))
dp.reject("pc-peer-id-spaces", "Whitespace only is blank.", "/pcPeerId", "PAIR-PEER-001", edit(QR, pcPeerId="   "), flags=["interop-trap"])
dp.reject("pc-peer-id-ideographic-space", "U+3000 is Unicode White_Space: blank.", "/pcPeerId", "PAIR-PEER-001", edit(QR, pcPeerId="\u3000"), flags=["interop-trap"])
dp.reject("pc-peer-id-tab", "A tab alone is blank.", "/pcPeerId", "PAIR-PEER-001", edit(QR, pcPeerId="\t"))
dp.reject("pc-peer-id-control-char", "Control characters in a peer id are rejected.", "/pcPeerId", "PAIR-PEER-001", edit(QR, pcPeerId="desk\u0000top"))
dp.reject("pc-peer-id-257-bytes", "A pcPeerId over 256 UTF-8 bytes is rejected.", "/pcPeerId", "PAIR-PEER-001",
          edit(QR, pcPeerId="d" * 255 + "é"), flags=["boundary"])
dp.reject("pc-peer-id-bad-alias", "A peer id starting pairing-code: must carry six digits.", "/pcPeerId", "PAIR-PEER-002",
          edit(QR, pcPeerId="pairing-code:12345"))
dp.reject("timestamp-as-string", "A timestamp sent as a string is rejected, not parsed.", "/timestamp", "CORE-TYPE-003",
          edit(QR, timestamp=str(T0 - 10000)), flags=["interop-trap"])
dp.reject("timestamp-with-fraction", "1747299990000.0 is a double to Swift and Kotlin: not an integer literal.", "/timestamp", "CORE-TYPE-004",
          text=compact(QR).replace(str(T0 - 10000), str(T0 - 10000) + ".0"), flags=["interop-trap"])
dp.reject("timestamp-with-exponent", "1.74729999e12 is not an integer literal.", "/timestamp", "CORE-TYPE-004",
          text=compact(QR).replace(str(T0 - 10000), "1.74729999e12"), flags=["interop-trap"])
dp.reject("timestamp-beyond-2-53", "9007199254740993 cannot be held exactly by a double.", "/timestamp", "CORE-TYPE-004",
          text=compact(QR).replace(str(T0 - 10000), "9007199254740993"), flags=["interop-trap"])
dp.reject("timestamp-in-seconds", "Epoch seconds (as in seed 000) where milliseconds are due.", "/timestamp", "PAIR-TIME-001",
          edit(QR, timestamp=(T0 - 10000) // 1000), flags=["interop-trap"])
dp.reject("timestamp-in-microseconds", "Epoch microseconds where milliseconds are due.", "/timestamp", "PAIR-TIME-001",
          edit(QR, timestamp=(T0 - 10000) * 1000), flags=["interop-trap"])
dp.reject("timestamp-negative", "A negative timestamp is not epoch milliseconds.", "/timestamp", "PAIR-TIME-001", edit(QR, timestamp=-1))
dp.reject("expired-by-one-ms", "300001 ms old is past the desktop's pairing timeout.", "/timestamp", "PAIR-TIME-002",
          edit(QR, timestamp=T0 - 300001), flags=["boundary"])
dp.reject("expired-yesterday", "A day-old QR code is expired.", "/timestamp", "PAIR-TIME-002", edit(QR, timestamp=T0 - 86400000))
dp.reject("future-by-sixty-seconds-and-one", "60001 ms in the future is beyond the allowed clock skew.", "/timestamp", "PAIR-TIME-003",
          edit(QR, timestamp=T0 + 60001), flags=["boundary", "interop-trap"])
dp.reject("future-next-year", "A QR dated next year would otherwise never expire.", "/timestamp", "PAIR-TIME-003",
          edit(QR, timestamp=T0 + 365 * 86400000), flags=["interop-trap"])
dp.reject("no-active-did", "The seed's check 5: without an active DID the phone cannot pair.", "", "PAIR-DID-002", QR, context={"activeDid": None})
dp.reject("order-code-before-did", "Check order: a bad code is reported before a missing DID.", "/code", "PAIR-CODE-001",
          edit(QR, code="48213"), rules=["PAIR-CODE-001", "PAIR-DID-002"], context={"activeDid": None})
dp.reject("order-age-before-platform", "Check order: the age (check 4) is reported before a bad platform (later).", "/timestamp", "PAIR-TIME-002",
          edit(QR, timestamp=T0 - 400000, deviceInfo__platform="windows"), rules=["PAIR-TIME-002", "PAIR-INFO-002"])
dp.reject("order-did-before-device-info", "Check order: the missing DID (check 5) comes before deviceInfo.", "", "PAIR-DID-002",
          edit(QR, deviceInfo=DROP), rules=["PAIR-DID-002", "CORE-TYPE-001"], context={"activeDid": None})
dp.reject("device-info-missing", "deviceInfo is required: the phone shows the desktop's name.", "/deviceInfo", "CORE-TYPE-001", edit(QR, deviceInfo=DROP))
dp.reject("device-info-string", "deviceInfo must be an object.", "/deviceInfo", "CORE-TYPE-003", edit(QR, deviceInfo="DESKTOP-7F3K"))
dp.reject("device-name-missing", "deviceInfo.name is required.", "/deviceInfo/name", "CORE-TYPE-001", edit(QR, deviceInfo__name=DROP))
dp.reject("device-name-blank", "A blank desktop name is rejected.", "/deviceInfo/name", "PAIR-INFO-001", edit(QR, deviceInfo__name=" \u00a0 "))
dp.reject("platform-windows", "\"windows\" is not Node's process.platform value.", "/deviceInfo/platform", "PAIR-INFO-002",
          edit(QR, deviceInfo__platform="windows"), flags=["interop-trap"])
dp.reject("platform-upper-case", "Platforms are case-sensitive.", "/deviceInfo/platform", "PAIR-INFO-002", edit(QR, deviceInfo__platform="Win32"))
dp.reject("platform-phone", "ios is a phone platform, not a desktop's.", "/deviceInfo/platform", "PAIR-INFO-002", edit(QR, deviceInfo__platform="ios"))
dp.reject("version-number", "version, when given, is a string.", "/deviceInfo/version", "CORE-TYPE-003", edit(QR, deviceInfo__version=5))
dp.reject("signaling-url-http", "The LAN URL must be ws:// or wss://.", "/signalingUrl", "PAIR-URL-001", edit(QR, signalingUrl="http://192.168.1.20:9001"))
dp.reject("signaling-url-no-scheme", "A bare host:port is not a URL.", "/signalingUrl", "PAIR-URL-001", edit(QR, signalingUrl="192.168.1.20:9001"), flags=["interop-trap"])
dp.reject("signaling-url-no-host", "ws:// without a host.", "/signalingUrl", "PAIR-URL-001", edit(QR, signalingUrl="ws://"))
dp.reject("signaling-url-bad-port", "Port 70000 does not exist.", "/signalingUrl", "PAIR-URL-001", edit(QR, signalingUrl="ws://192.168.1.20:70000"))
dp.reject("relay-url-missing", "relayUrl is required: it is the fallback of G5.", "/relayUrl", "CORE-TYPE-001", edit(QR, relayUrl=DROP))
dp.reject("relay-url-null", "relayUrl null is not absent for a required member.", "/relayUrl", "CORE-TYPE-002", edit(QR, relayUrl=None))
dp.reject("relay-url-plain-ws", "A public relay over unencrypted ws:// is rejected.", "/relayUrl", "PAIR-URL-002",
          edit(QR, relayUrl="ws://signaling.chainlesschain.com"))
dp.reject("relay-url-empty", "An empty relayUrl is not a URL.", "/relayUrl", "PAIR-URL-002", edit(QR, relayUrl=""))
dp.reject("ice-servers-object", "iceServers must be an array.", "/iceServers", "CORE-TYPE-003", edit(QR, iceServers={"urls": "stun:a"}))
dp.reject("ice-server-not-object", "Each ICE server is an object.", "/iceServers/0", "CORE-TYPE-003", edit(QR, iceServers=["stun:a"]))
dp.reject("ice-urls-missing", "An ICE server needs urls.", "/iceServers/1/urls", "CORE-TYPE-001",
          edit(QR, iceServers=[ICE[0], {"username": "u", "credential": "c"}]))
dp.reject("ice-urls-empty-list", "An empty urls list names no server.", "/iceServers/0/urls", "PAIR-ICE-001", edit(QR, iceServers=[{"urls": []}]))
dp.reject("ice-url-http", "An ICE URL is stun:, stuns:, turn: or turns:.", "/iceServers/1/urls/0", "PAIR-ICE-001",
          edit(QR, iceServers=[ICE[0], {"urls": ["https://turn.example.com", "turn:t.example.com"]}]))
dp.reject("ice-url-not-string", "urls list elements are strings.", "/iceServers/0/urls/1", "CORE-TYPE-003", edit(QR, iceServers=[{"urls": ["stun:a", 5]}]))
dp.reject("ice-username-number", "username, when given, is a string.", "/iceServers/0/username", "CORE-TYPE-003",
          edit(QR, iceServers=[{"urls": "turn:a", "username": 5}]))
dp.reject("ice-expiry-in-milliseconds", "iceExpiry is seconds; a millisecond value is rejected.", "/iceExpiry", "PAIR-ICE-002",
          edit(QR, iceExpiry=1747386400000), flags=["interop-trap"])
dp.reject("ice-expiry-as-string", "iceExpiry is an integer, not a string.", "/iceExpiry", "CORE-TYPE-003", edit(QR, iceExpiry="1747386400"), flags=["interop-trap"])
# wire profile
dp.reject("duplicate-code", "Two code members: parsers disagree on which wins, so the document is rejected.", "/code", "CORE-JSON-003",
          text=compact(QR)[:-1] + ',"code":"999999"}', flags=["interop-trap"])
dp.reject("duplicate-in-unknown-member", "Duplicate names are rejected even inside ignored members.", "/extra/a", "CORE-JSON-003",
          text=compact(QR)[:-1] + ',"extra":{"a":1,"a":2}}', flags=["interop-trap"])
bad_utf8 = compact(QR).encode().replace(DESK.encode(), b"desk\xc3\x28top")
dp.reject("invalid-utf8", "Invalid UTF-8 inside pcPeerId is rejected, not repaired.", "/pcPeerId", "CORE-JSON-002",
          b64=base64.b64encode(bad_utf8).decode(), flags=["interop-trap"])
dp.reject("lone-surrogate", "A lone surrogate escape cannot become a Swift string.", "/deviceInfo/name", "CORE-JSON-002",
          text=compact(QR).replace("DESKTOP-7F3K", "DESK\\ud800TOP"), flags=["interop-trap"])
dp.reject("byte-order-mark", "A UTF-8 byte order mark before the document is rejected.", "", "CORE-JSON-001",
          b64=base64.b64encode(b"\xef\xbb\xbf" + compact(QR).encode()).decode(), flags=["interop-trap"])
dp.reject("trailing-garbage", "Nothing may follow the top-level value.", "", "CORE-JSON-001", text=compact(QR) + "x")
dp.reject("trailing-comma", "A trailing comma is not JSON.", "", "CORE-JSON-001", text=compact(QR)[:-1] + ",}", flags=["interop-trap"])
dp.reject("number-overflow", "1e400 is infinite as a double.", "/x", "CORE-JSON-006", text=compact(QR)[:-1] + ',"x":1e400}')
dp.reject("too-large", "A document over 64 KiB is rejected before parsing.", "", "CORE-JSON-004",
          segments=[{"text": base}, {"text": "a", "repeat": pad + 1}, {"text": "\"}"}], flags=["boundary"])
dp.reject("too-deep", "Nesting of 65 levels is rejected at the container that exceeds it.", "/x" + "/0" * 63, "CORE-JSON-005",
          segments=[{"text": compact(QR)[:-1] + ',"x":'}, {"text": "[", "repeat": 64}, {"text": "]", "repeat": 64}, {"text": "}"}], flags=["boundary"])
dp.reject("root-array", "The document must be an object.", "", "CORE-TYPE-003", [QR])
dp.reject("root-string", "A QR text that is a JSON string is not a payload.", "", "CORE-TYPE-003", "desktop-pairing")

# rejected: check order, boundaries and interop traps (second batch)
dp.reject("order-type-before-everything", "Check order: with every member wrong, only the type (check 1) is reported.", "/type", "PAIR-TYPE-001",
          {"type": "desktop_pairing", "code": 48213, "pcPeerId": "", "timestamp": "1747299990000", "deviceInfo": None, "relayUrl": "http://x"},
          rules=["PAIR-TYPE-001", "CORE-TYPE-003", "PAIR-PEER-001", "CORE-TYPE-002"], flags=["interop-trap"])
dp.reject("code-null", "code null is not absent: the member is required.", "/code", "CORE-TYPE-002", edit(QR, code=None), flags=["interop-trap"])
# inputText, not input: Python's jsonschema (re.search) lets "048213\n" match ^[0-9]{6}$, so the schema check cannot state this case.
dp.reject("code-trailing-newline", "\"048213\\n\" matches ^\\d{6}$ where $ also matches before a final newline (Python, PCRE); it is not six digits.",
          "/code", "PAIR-CODE-001", text=compact(edit(QR, code="048213\n")), flags=["interop-trap"])
dp.reject("order-peer-before-timestamp", "Check order: a blank pcPeerId (check 3) is reported before a timestamp in seconds (check 4).",
          "/pcPeerId", "PAIR-PEER-001", edit(QR, pcPeerId="   ", timestamp=(T0 - 10000) // 1000), rules=["PAIR-PEER-001", "PAIR-TIME-001"])
dp.reject("pc-peer-id-figure-spaces", "U+2007 and U+202F are White_Space, so the id is blank, though Java's Character.isWhitespace says no.",
          "/pcPeerId", "PAIR-PEER-001", edit(QR, pcPeerId="\u2007\u202f"), flags=["interop-trap"])
dp.reject("pc-peer-id-c1-control", "U+0085 (NEL) inside a peer id is a C1 control character.", "/pcPeerId", "PAIR-PEER-001",
          edit(QR, pcPeerId="desktop\u00854f9c2a"))
dp.reject("pc-peer-id-257-bytes-multibyte", "87 characters but 257 UTF-8 bytes (85 x 张 + dd): over the limit though far below 256 characters.",
          "/pcPeerId", "PAIR-PEER-001", edit(QR, pcPeerId="张" * 85 + "dd"), flags=["boundary", "interop-trap"])
dp.reject("timestamp-null", "timestamp null is not absent: the member is required.", "/timestamp", "CORE-TYPE-002", edit(QR, timestamp=None),
          flags=["interop-trap"])
dp.reject("timestamp-infinite", "1e400 is a wire violation (CORE-JSON-006), reported before the member's type is looked at.", "/timestamp",
          "CORE-JSON-006", text=compact(QR).replace(str(T0 - 10000), "1e400"), rules=["CORE-JSON-006", "CORE-TYPE-004"], flags=["interop-trap"])
dp.reject("timestamp-leading-zero", "A number written with a leading zero (01747299990000) is not JSON.", "/timestamp", "CORE-JSON-001",
          text=compact(QR).replace(str(T0 - 10000), "0" + str(T0 - 10000)), flags=["interop-trap"])
dp.reject("timestamp-2-53-minus-1", "9007199254740991 is a valid integer literal (CORE-TYPE-004 holds) but not epoch milliseconds.", "/timestamp",
          "PAIR-TIME-001", edit(QR, timestamp=2**53 - 1), rules=["PAIR-TIME-001", "CORE-TYPE-004"], flags=["boundary"])
dp.reject("timestamp-10-to-13", "10^13 is outside [10^12, 10^13); PAIR-TIME-001 is checked before the future bound.", "/timestamp", "PAIR-TIME-001",
          edit(QR, timestamp=10**13), rules=["PAIR-TIME-001", "PAIR-TIME-003"], flags=["boundary"])
dp.reject("device-info-null", "deviceInfo null is not absent: the member is required.", "/deviceInfo", "CORE-TYPE-002", edit(QR, deviceInfo=None))
dp.reject("order-name-before-platform", "Inside a desktop's deviceInfo, name is checked before platform.", "/deviceInfo/name", "PAIR-INFO-001",
          edit(QR, deviceInfo={"name": "\u3000", "platform": "Windows_NT"}), rules=["PAIR-INFO-001", "PAIR-INFO-002"])
dp.reject("order-signaling-before-relay", "The optional signalingUrl (member 7) is checked before the required relayUrl (member 8).",
          "/signalingUrl", "PAIR-URL-001", edit(QR, signalingUrl="http://192.168.1.20:9001", relayUrl=DROP), rules=["PAIR-URL-001", "CORE-TYPE-001"])
dp.reject("signaling-url-user-info", "User-info in a signaling URL is rejected.", "/signalingUrl", "PAIR-URL-001",
          edit(QR, signalingUrl="ws://admin:secret@192.168.1.20:9001"))
dp.reject("signaling-url-leading-space", "URLs are not trimmed: a leading space is whitespace in the URL.", "/signalingUrl", "PAIR-URL-001",
          edit(QR, signalingUrl=" ws://192.168.1.20:9001"), flags=["interop-trap"])
dp.reject("signaling-url-port-zero", "Port 0 is outside 1-65535.", "/signalingUrl", "PAIR-URL-001", edit(QR, signalingUrl="ws://192.168.1.20:0"),
          flags=["boundary"])
dp.accept("signaling-url-port-leading-zero", "A port is 1 to 5 digits: 09001 is port 9001.", edit(QR, signalingUrl="ws://192.168.1.20:09001"),
          rules=["PAIR-URL-001"], flags=["boundary"])
dp.reject("signaling-url-port-six-digits", "Six port digits are refused even when the value is small (009001).", "/signalingUrl", "PAIR-URL-001",
          edit(QR, signalingUrl="ws://192.168.1.20:009001"), flags=["boundary"])
for slug, host, why in (("underscore", "exa_mple.com", "an underscore is not a DNS name character"),
                        ("leading-hyphen", "-a.com", "a label does not start with a hyphen"),
                        ("trailing-hyphen", "a-.com", "a label does not end with a hyphen"),
                        ("empty-label", "a..b", "labels are not empty"),
                        ("ipv4-octet-999", "999.1.1.1", "an IPv4 octet is at most 255"),
                        ("ipv4-three-octets", "1.2.3", "a host ending in a number is IPv4: four octets"),
                        ("ipv4-leading-zero", "192.168.01.20", "octets have no leading zeros (01 is octal to some parsers)")):
    dp.reject(f"signaling-url-host-{slug}", f"Host {host}: {why}.", "/signalingUrl", "PAIR-URL-001", edit(QR, signalingUrl=f"ws://{host}:9001"),
              flags=["interop-trap"])
for slug, host in (("dns-name", "signal-1.lan.example.com"), ("punycode", "xn--fsqu00a.example"), ("localhost", "localhost"),
                   ("ipv4-zero-octet", "10.0.0.1")):
    dp.accept(f"signaling-url-host-{slug}", f"Host {host} is a valid host.", edit(QR, signalingUrl=f"ws://{host}:9001"), rules=["PAIR-URL-001"])
for slug, literal, why in (("two-double-colons", "[1::2::3]", "two :: make the address ambiguous"),
                          ("nine-groups", "[1:2:3:4:5:6:7:8:9]", "nine groups of 16 bits"),
                          ("five-hex-digits", "[12345::]", "a group of five hex digits")):
    dp.reject("relay-url-ipv6-" + slug, f"{literal} is no IPv6 address ({why}); a character-class check lets it through.", "/relayUrl", "PAIR-URL-002",
              edit(QR, relayUrl=f"wss://{literal}:9001/"), flags=["interop-trap"])
dp.accept("relay-url-ipv6-mapped-ipv4", "An IPv4-mapped IPv6 address is an IPv6 literal.", edit(QR, relayUrl="wss://[::ffff:192.0.2.7]:9001/"),
          rules=["PAIR-URL-001", "PAIR-URL-002"], flags=["boundary"])
dp.reject("relay-url-localhost-lookalike", "localhost.chainlesschain.com is not localhost: a prefix test must not let ws:// through.", "/relayUrl",
          "PAIR-URL-002", edit(QR, relayUrl="ws://localhost.chainlesschain.com"), flags=["interop-trap"])
dp.reject("relay-url-127-lookalike", "127.0.0.1.nip.io is a DNS name, not an address in 127.0.0.0/8.", "/relayUrl", "PAIR-URL-002",
          edit(QR, relayUrl="ws://127.0.0.1.nip.io:9001"), flags=["interop-trap"])
dp.reject("ice-urls-null-element", "null in an array is an element of the wrong type (CORE-TYPE-003), never \"not given\" (CORE-TYPE-002 is for members).",
          "/iceServers/0/urls/1", "CORE-TYPE-003", edit(QR, iceServers=[{"urls": ["stun:stun.example.com:3478", None]}]), flags=["interop-trap"])
dp.reject("ice-url-scheme-only", "\"stun:\" has nothing after the scheme.", "/iceServers/0/urls", "PAIR-ICE-001", edit(QR, iceServers=[{"urls": "stun:"}]),
          flags=["boundary"])
dp.accept("ice-url-combining-mark-after-scheme", "Prefixes compare code points: \"stun:\" followed by U+0301 starts with stun: and has text after it, "
          "though a grapheme-cluster prefix test (Swift hasPrefix) does not see the prefix.", edit(QR, iceServers=[{"urls": "stun:\u0301"}]),
          rules=["PAIR-ICE-001"], flags=["interop-trap"])
# Depth-first, document order inside arrays (core.md "Order of checks").
dp.reject("order-ice-server-depth-first", "Elements are checked in document order, each completely: the bad URL of server 0 is reported before server 1's type.",
          "/iceServers/0/urls", "PAIR-ICE-001", edit(QR, iceServers=[{"urls": "https://turn.chainlesschain.com"}, "stun:stun.l.google.com:19302"]),
          rules=["PAIR-ICE-001", "CORE-TYPE-003"])
dp.reject("order-ice-urls-depth-first", "Inside urls, element 0's scheme is checked before element 1's type.", "/iceServers/0/urls/0", "PAIR-ICE-001",
          edit(QR, iceServers=[{"urls": ["https://turn.chainlesschain.com", 3478]}]), rules=["PAIR-ICE-001", "CORE-TYPE-003"])
dp.accept("ice-expiry-zero", "0 is no expiry: a STUN-only desktop puts it in the QR (desktop-pair-handlers.js 543).",
          edit(QR, iceExpiry=0), rules=["PAIR-ICE-002"], flags=["interop-trap", "real-implementation"])
dp.reject("ice-expiry-one", "1 is neither 0 nor a seconds value of this era.", "/iceExpiry", "PAIR-ICE-002", edit(QR, iceExpiry=1), flags=["boundary"])
dp.reject("ice-expiry-10-to-11", "10^11 is the smallest value taken for milliseconds: rejected.", "/iceExpiry", "PAIR-ICE-002", edit(QR, iceExpiry=10**11),
          flags=["boundary"])
dp.reject("ice-expiry-below-10-to-9", "999999999 is below the epoch-seconds range.", "/iceExpiry", "PAIR-ICE-002", edit(QR, iceExpiry=10**9 - 1),
          flags=["boundary"])
dp.reject("order-wire-before-type", "Wire rules come first: a repeated relayUrl is reported although the type is wrong too.", "/relayUrl", "CORE-JSON-003",
          text=compact(edit(QR, type="pair-ack"))[:-1] + ',"relayUrl":"wss://relay.example.net"}', rules=["CORE-JSON-003", "PAIR-TYPE-001"],
          flags=["interop-trap"])
dp.reject("duplicate-code-escaped-name", "\"co\\u0064e\" is \"code\" after unescaping, so it repeats code.", "/code", "CORE-JSON-003",
          text=compact(QR)[:-1] + ',"co\\u0064e":"999999"}', flags=["interop-trap"])
dp.reject("name-raw-tab", "An unescaped tab inside a string is not JSON, though lenient parsers take it.", "/deviceInfo/name", "CORE-JSON-001",
          text=compact(QR).replace("DESKTOP-7F3K", "DESKTOP\t7F3K"), flags=["interop-trap"])
dp.reject("name-overlong-utf8", "C0 AF (an overlong '/') is invalid UTF-8.", "/deviceInfo/name", "CORE-JSON-002",
          b64=base64.b64encode(compact(QR).encode().replace(b"DESKTOP-7F3K", b"DESKTOP\xc0\xaf7F3K")).decode(), flags=["interop-trap"])
dp.reject("name-cesu8-surrogates", "A surrogate pair encoded as two 3-byte sequences (CESU-8, Java's modified UTF-8) is invalid UTF-8.",
          "/deviceInfo/name", "CORE-JSON-002",
          b64=base64.b64encode(compact(QR).encode().replace(b"DESKTOP-7F3K", b"DESKTOP \xed\xa0\xbd\xed\xb2\xbb")).decode(), flags=["interop-trap"])
dp.reject("ice-expiry-nan", "NaN, which Python's json.dumps writes, is not JSON.", "/iceExpiry", "CORE-JSON-001",
          text=compact(QR).replace('"iceExpiry":1747386400', '"iceExpiry":NaN'), flags=["interop-trap"])
dp.reject("empty-document", "An empty text is not a JSON document.", "", "CORE-JSON-001", text="")
dp.reject("too-large-multibyte", "22000 x 张 is 66000 bytes but 22000 characters: the size limit counts bytes.", "", "CORE-JSON-004",
          segments=[{"text": compact(QR)[:-1] + ',"note":"'}, {"text": "张", "repeat": 22000}, {"text": "\"}"}], flags=["boundary", "interop-trap"])
dp.reject("order-size-before-syntax", "Size is checked before parsing: an oversized text with trailing garbage is reported as too large.", "",
          "CORE-JSON-004", segments=[{"text": base}, {"text": "a", "repeat": pad + 1}, {"text": "\"}x"}], rules=["CORE-JSON-004", "CORE-JSON-001"])
dp.reject("too-deep-objects", "65 levels of nested objects: reported at the object that reaches level 65.", "/x" + "/a" * 63, "CORE-JSON-005",
          segments=[{"text": compact(QR)[:-1] + ',"x":'}, {"text": '{"a":', "repeat": 63}, {"text": "{}"}, {"text": "}", "repeat": 63}, {"text": "}"}],
          flags=["boundary"])

# ---------------------------------------------------------------- pair-ack
pa = File("pair-ack", "The phone's ack (seed 002 §4.2; Spec pairing.md 3.2).", {"now": T0})
pa.accept("seed-example", "The seed's ack.", ACK, rules=["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-DID-001", "PAIR-INFO-001",
          "PAIR-INFO-002", "PAIR-INFO-003", "PAIR-TIME-001"], flags=["seed-example"])
pa.accept("upper-case-uuid-kept", "An iOS upper-case UUID deviceId is accepted and kept exactly (never case-folded).",
          edit(ACK, deviceInfo__deviceId=UUID.upper()), rules=["PAIR-INFO-003"], flags=["interop-trap"])
pa.accept("android", "Android sends the same ack with platform android.",
          edit(ACK, deviceInfo__platform="android", deviceInfo__name="Xiaomi 24115RA8EC", deviceInfo__deviceId="a3f1c9e07b2d4e58"),
          rules=["PAIR-INFO-002"])
pa.accept("no-age-check", "Acks are not age-checked (the flows time out on their own clock): a day-old ack is well-formed.",
          edit(ACK, timestamp=T0 - 86400000), rules=["PAIR-TIME-001"])
pa.accept("did-with-segments", "DIDs may have several segments and percent-escapes.", edit(ACK, mobileDid="did:cc:z6Mk:key-1.a_b-c%2F"),
          rules=["PAIR-DID-001"])
pa.accept("did-256-chars", "A DID of exactly 256 characters is accepted.", edit(ACK, mobileDid="did:cc:" + "a" * 249),
          rules=["PAIR-DID-001"], flags=["boundary"])
pa.accept("unknown-members", "Unknown members are ignored.", edit(ACK, signature="abc", deviceInfo__osVersion="18.1"), ACK,
          rules=["PAIR-TYPE-001"], flags=["interop-trap"])
pa.reject("type-other", "A device-pairing payload is not an ack.", "/type", "PAIR-TYPE-001", edit(ACK, type="device-pairing"))
pa.reject("code-five-digits", "Five digits are not a code.", "/pairingCode", "PAIR-CODE-001", edit(ACK, pairingCode="48213"))
pa.reject("code-number", "A numeric code is rejected.", "/pairingCode", "CORE-TYPE-003", edit(ACK, pairingCode=48213), flags=["interop-trap"])
pa.reject("did-missing", "mobileDid is required.", "/mobileDid", "CORE-TYPE-001", edit(ACK, mobileDid=DROP))
pa.accept("did-key", "did:key with an Ed25519 key in base58btc, as every real phone sends (ChainlessChain Android DidKeyGenerator.kt, iOS DIDManager.swift).",
          edit(ACK, mobileDid="did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"), rules=["PAIR-DID-001"], flags=["real-implementation"])
pa.accept("did-other-method", "Any W3C DID method with a lower-case name is a DID (the desktop's own did:chainlesschain:, did:web:).",
          edit(ACK, mobileDid="did:web:phones.example.com:li"), rules=["PAIR-DID-001"])
pa.reject("did-key-not-base58", "did:key is base58btc multibase: 0, O, I and l are not base58 characters.", "/mobileDid", "PAIR-DID-001",
          edit(ACK, mobileDid="did:key:z6Mk0OIl"))
pa.reject("did-key-not-multibase", "did:key without the z (base58btc) multibase prefix.", "/mobileDid", "PAIR-DID-001",
          edit(ACK, mobileDid="did:key:6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"))
pa.reject("did-key-method-upper-case", "A method name is lower-case letters and digits, KEY included.", "/mobileDid", "PAIR-DID-001", edit(ACK, mobileDid="did:KEY:z6Mk"),
          flags=["interop-trap"])
pa.reject("did-key-injection", "A did:key followed by a quote and a brace is an injection attempt.", "/mobileDid", "PAIR-DID-001",
          edit(ACK, mobileDid='did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"}'), flags=["interop-trap"])
pa.reject("did-empty-id", "did:cc: with no identifier.", "/mobileDid", "PAIR-DID-001", edit(ACK, mobileDid="did:cc:"))
pa.reject("did-upper-case-scheme", "The scheme is lowercase did.", "/mobileDid", "PAIR-DID-001", edit(ACK, mobileDid="DID:cc:phone-1"), flags=["interop-trap"])
pa.reject("did-injection", "A quote and brace in a DID are an injection attempt.", "/mobileDid", "PAIR-DID-001",
          edit(ACK, mobileDid="did:cc:abc\"},{\"admin\":true"), flags=["interop-trap"])
pa.reject("did-257-chars", "A DID over 256 characters is rejected.", "/mobileDid", "PAIR-DID-001", edit(ACK, mobileDid="did:cc:" + "a" * 250), flags=["boundary"])
pa.reject("device-id-missing", "deviceId is required.", "/deviceInfo/deviceId", "CORE-TYPE-001", edit(ACK, deviceInfo__deviceId=DROP))
pa.reject("device-id-empty", "An empty deviceId would merge devices.", "/deviceInfo/deviceId", "PAIR-INFO-003", edit(ACK, deviceInfo__deviceId=""))
pa.reject("device-id-blank", "A blank deviceId is rejected.", "/deviceInfo/deviceId", "PAIR-INFO-003", edit(ACK, deviceInfo__deviceId="  "), flags=["interop-trap"])
pa.reject("device-id-number", "deviceId is a string.", "/deviceInfo/deviceId", "CORE-TYPE-003", edit(ACK, deviceInfo__deviceId=12345))
pa.reject("name-blank", "A blank phone name is rejected.", "/deviceInfo/name", "PAIR-INFO-001", edit(ACK, deviceInfo__name=""))
pa.reject("platform-desktop", "win32 is not a phone platform.", "/deviceInfo/platform", "PAIR-INFO-002", edit(ACK, deviceInfo__platform="win32"))
pa.reject("platform-mixed-case", "iOS is spelled ios.", "/deviceInfo/platform", "PAIR-INFO-002", edit(ACK, deviceInfo__platform="iOS"), flags=["interop-trap"])
pa.reject("timestamp-seconds", "Seconds where milliseconds are due.", "/timestamp", "PAIR-TIME-001", edit(ACK, timestamp=T0 // 1000), flags=["interop-trap"])
pa.reject("timestamp-null", "timestamp null is not absent.", "/timestamp", "CORE-TYPE-002", edit(ACK, timestamp=None))

# second batch
pa.accept("lower-case-uuid-kept", "An Android lower-case UUID deviceId is accepted and kept exactly as sent.",
          edit(ACK, deviceInfo__platform="android", deviceInfo__deviceId="5f1c2d3e-4b6a-4c8d-9e0f-a1b2c3d4e5f6"),
          rules=["PAIR-INFO-003", "PAIR-INFO-002"], flags=["interop-trap"])
pa.accept("did-multibase-key", "A did:cc DID whose identifier is a multibase key (z6Mk...).",
          edit(ACK, mobileDid="did:cc:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"), rules=["PAIR-DID-001"])
pa.accept("timestamp-10-to-12", "10^12 is the smallest epoch-millisecond value; acks are not age-checked, so it is accepted.",
          edit(ACK, timestamp=10**12), rules=["PAIR-TIME-001", "CORE-TYPE-004"], flags=["boundary"])
pa.accept("emoji-phone-name", "A phone name with Chinese and an emoji is kept as sent.", edit(ACK, deviceInfo__name="小李的 iPhone 📱"),
          rules=["PAIR-INFO-001", "CORE-TYPE-003"])
pa.accept("unknown-member-null", "An unknown member set to null is ignored like any unknown member; CORE-TYPE-002 covers declared members only.",
          edit(ACK, signature=None), ACK, rules=["CORE-TYPE-002", "CORE-TYPE-001"], flags=["interop-trap"])
pa.reject("order-code-before-did", "Check order: pairingCode (member 2) is reported before mobileDid (member 3).", "/pairingCode", "PAIR-CODE-001",
          edit(ACK, pairingCode="04821", mobileDid="did:key:6Mk"), rules=["PAIR-CODE-001", "PAIR-DID-001"])
pa.reject("order-device-id-before-name", "A phone's deviceInfo is checked deviceId, name, platform: the empty deviceId is reported.",
          "/deviceInfo/deviceId", "PAIR-INFO-003", edit(ACK, deviceInfo={"deviceId": "", "name": "", "platform": "windows"}),
          rules=["PAIR-INFO-003", "PAIR-INFO-001", "PAIR-INFO-002"])
pa.reject("did-null", "mobileDid null is not absent: the member is required.", "/mobileDid", "CORE-TYPE-002", edit(ACK, mobileDid=None),
          flags=["interop-trap"])
pa.reject("did-method-upper-case", "A method name is lower-case: CC is not cc.", "/mobileDid", "PAIR-DID-001", edit(ACK, mobileDid="did:CC:phone-1"),
          flags=["interop-trap"])
pa.reject("did-bad-percent-escape", "% must be followed by two hex digits.", "/mobileDid", "PAIR-DID-001", edit(ACK, mobileDid="did:cc:phone%2G1"))
pa.reject("timestamp-exponent", "1.747299998e12 is not an integer literal.", "/timestamp", "CORE-TYPE-004",
          text=compact(ACK).replace(str(T0 - 2000), "1.747299998e12"), flags=["interop-trap"])
pa.reject("timestamp-10-to-13", "10^13 is outside [10^12, 10^13).", "/timestamp", "PAIR-TIME-001", edit(ACK, timestamp=10**13), flags=["boundary"])
pa.reject("duplicate-pairing-code", "Two pairingCode members: the desktop could compare either one, so the ack is rejected.", "/pairingCode",
          "CORE-JSON-003", text=compact(ACK)[:-1] + ',"pairingCode":"999999"}', flags=["interop-trap"])

# ---------------------------------------------------------------- device-pairing
dv = File("device-pairing", "The QR payload a phone shows in Flow A (seed 002 §4.3; Spec pairing.md 3.3).", {"now": T0})
dv.accept("seed-example", "The seed's Flow A payload.", DEVICE, rules=["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-DID-001",
          "PAIR-INFO-003", "PAIR-TIME-001"], flags=["seed-example"])
dv.accept("leading-zero-code", "Codes keep leading zeros.", edit(DEVICE, code="000417"), rules=["PAIR-CODE-001"], flags=["interop-trap"])
dv.reject("code-missing", "code is required.", "/code", "CORE-TYPE-001", edit(DEVICE, code=DROP))
dv.reject("code-five-digits", "Five digits are not a code.", "/code", "PAIR-CODE-001", edit(DEVICE, code="73029"))
dv.reject("did-space", "A DID with a space is rejected.", "/did", "PAIR-DID-001", edit(DEVICE, did="did:cc:phone 1"))
dv.reject("did-trailing-colon", "An empty last segment is not allowed.", "/did", "PAIR-DID-001", edit(DEVICE, did="did:cc:phone-1:"))
dv.reject("platform-desktop", "A phone QR must name a phone platform.", "/deviceInfo/platform", "PAIR-INFO-002", edit(DEVICE, deviceInfo__platform="darwin"))
dv.reject("timestamp-string", "A string timestamp is rejected.", "/timestamp", "CORE-TYPE-003", edit(DEVICE, timestamp=str(T0)), flags=["interop-trap"])
dv.reject("type-confirmation", "A confirmation is not a device-pairing payload.", "/type", "PAIR-TYPE-001", edit(DEVICE, type="pairing:confirmation"))

# second batch
dv.accept("upper-case-uuid-kept", "An iOS upper-case UUID deviceId is accepted and kept exactly (never case-folded).",
          edit(DEVICE, deviceInfo__deviceId=UUID.upper()), rules=["PAIR-INFO-003"], flags=["interop-trap"])
dv.accept("android-emoji-name", "An Android phone with an emoji in its name.",
          edit(DEVICE, deviceInfo={"deviceId": "5f1c2d3e-4b6a-4c8d-9e0f-a1b2c3d4e5f6", "name": "Redmi Note 13 🚀", "platform": "android"}),
          rules=["PAIR-INFO-001", "PAIR-INFO-002"])
dv.accept("unknown-members", "Unknown members (one of them null), also inside deviceInfo, are ignored and dropped from the canonical form.",
          edit(DEVICE, qrVersion=2, signature=None, deviceInfo__model="iPhone15,2"), DEVICE,
          rules=["PAIR-TYPE-001", "CORE-TYPE-001", "CORE-TYPE-002", "CORE-TYPE-003", "CORE-TYPE-004"], flags=["interop-trap"])
dv.reject("code-number", "A code sent as a number is rejected.", "/code", "CORE-TYPE-003", edit(DEVICE, code=730291), flags=["interop-trap"])
dv.reject("did-null", "did null is not absent: the member is required.", "/did", "CORE-TYPE-002", edit(DEVICE, did=None), flags=["interop-trap"])
dv.reject("did-injection", "A quote and a brace in a DID are an injection attempt.", "/did", "PAIR-DID-001", edit(DEVICE, did="did:cc:abc\"}"),
          flags=["interop-trap"])
dv.accept("did-key-method", "did:key, as the real Android and iOS apps put in their Flow A QR payload.",
          edit(DEVICE, did="did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"), rules=["PAIR-DID-001"], flags=["real-implementation"])
dv.reject("did-key-space", "A space inside a did:key is refused.", "/did", "PAIR-DID-001", edit(DEVICE, did="did:key:z6Mk haX"), flags=["interop-trap"])
dv.reject("did-upper-case-scheme", "The scheme is the lowercase did.", "/did", "PAIR-DID-001", edit(DEVICE, did="DID:cc:x"), flags=["interop-trap"])
dv.reject("did-257-chars", "A DID over 256 characters is rejected.", "/did", "PAIR-DID-001", edit(DEVICE, did="did:cc:" + "z" * 250), flags=["boundary"])
dv.reject("device-id-ideographic-space", "A deviceId of U+3000 alone is blank.", "/deviceInfo/deviceId", "PAIR-INFO-003",
          edit(DEVICE, deviceInfo__deviceId="\u3000"), flags=["interop-trap"])
dv.reject("name-tab", "A phone name that is a tab is blank.", "/deviceInfo/name", "PAIR-INFO-001", edit(DEVICE, deviceInfo__name="\t"))
dv.reject("timestamp-seconds", "Epoch seconds where milliseconds are due.", "/timestamp", "PAIR-TIME-001", edit(DEVICE, timestamp=(T0 - 2000) // 1000),
          flags=["interop-trap"])
dv.reject("timestamp-fraction", "1747299998000.0 is a double to Swift and Kotlin, not an integer literal.", "/timestamp", "CORE-TYPE-004",
          text=compact(DEVICE).replace(str(T0 - 2000), str(T0 - 2000) + ".0"), flags=["interop-trap"])

# ---------------------------------------------------------------- pairing:confirmation
cf = File("pairing:confirmation", "The desktop's confirmation (seed 002 §4.4; Spec pairing.md 3.4).", {"now": T0})
cf.accept("seed-example", "A confirmation with the desktop's deviceInfo.", CONF, rules=["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-PEER-001",
          "PAIR-INFO-001", "PAIR-INFO-002", "PAIR-TIME-001"], flags=["seed-example"])
cf.accept("no-version", "version is optional.", edit(CONF, deviceInfo__version=DROP), rules=["CORE-TYPE-001"])
cf.accept("unknown-members", "Unknown members are ignored.", edit(CONF, sessionId="s-1", deviceInfo__hostname="h"), CONF, flags=["interop-trap"],
          rules=["PAIR-TYPE-001"])
cf.reject("type-underscore", "pairing_confirmation is not the type.", "/type", "PAIR-TYPE-001", edit(CONF, type="pairing_confirmation"), flags=["interop-trap"])
cf.reject("code-letters", "A code with letters.", "/pairingCode", "PAIR-CODE-001", edit(CONF, pairingCode="73O291"))
cf.reject("pc-peer-id-blank", "A blank pcPeerId is rejected.", "/pcPeerId", "PAIR-PEER-001", edit(CONF, pcPeerId=" "))
cf.reject("platform-android", "A desktop does not run android.", "/deviceInfo/platform", "PAIR-INFO-002", edit(CONF, deviceInfo__platform="android"))
cf.reject("timestamp-fraction", "1747299999000.5 is not an integer.", "/timestamp", "CORE-TYPE-004",
          text=compact(CONF).replace(str(T0 - 1000), str(T0 - 1000) + ".5"))

# second batch
cf.accept("version-null", "version null is not given and is omitted.", edit(CONF, deviceInfo__version=None), edit(CONF, deviceInfo__version=DROP),
          rules=["CORE-TYPE-002"], flags=["interop-trap"])
cf.accept("chinese-linux-name", "A Linux desktop with a Chinese name and an emoji.",
          edit(CONF, deviceInfo={"name": "张伟的台式机 🖥️", "platform": "linux"}), rules=["PAIR-INFO-001", "PAIR-INFO-002", "CORE-TYPE-003"])
cf.accept("day-old-not-age-checked", "Confirmations are not age-checked (the flows time out on their own clock): a day-old one is well-formed.",
          edit(CONF, timestamp=T0 - 86400000), rules=["PAIR-TIME-001", "CORE-TYPE-004"])
cf.reject("order-code-before-peer", "Check order: pairingCode (member 2) is reported before pcPeerId (member 3).", "/pairingCode", "PAIR-CODE-001",
          edit(CONF, pairingCode="7302911", pcPeerId=""), rules=["PAIR-CODE-001", "PAIR-PEER-001"])
cf.reject("pairing-code-number", "A code sent as a number is rejected.", "/pairingCode", "CORE-TYPE-003", edit(CONF, pairingCode=730291),
          flags=["interop-trap"])
cf.reject("pc-peer-id-null", "pcPeerId null is not absent: the member is required.", "/pcPeerId", "CORE-TYPE-002", edit(CONF, pcPeerId=None),
          flags=["interop-trap"])
cf.reject("device-info-missing", "deviceInfo is required: the phone shows the desktop's name on success.", "/deviceInfo", "CORE-TYPE-001",
          edit(CONF, deviceInfo=DROP))
cf.reject("name-ideographic-space", "A desktop name of U+3000 alone is blank.", "/deviceInfo/name", "PAIR-INFO-001", edit(CONF, deviceInfo__name="\u3000"),
          flags=["interop-trap"])
cf.reject("timestamp-seconds", "Epoch seconds where milliseconds are due.", "/timestamp", "PAIR-TIME-001", edit(CONF, timestamp=(T0 - 1000) // 1000),
          flags=["interop-trap"])
cf.reject("duplicate-pairing-code", "Two pairingCode members: the phone's code comparison (PAIR-FLOWA-001) could read either one.", "/pairingCode",
          "CORE-JSON-003", text=compact(CONF)[:-1] + ',"pairingCode":"000000"}', flags=["interop-trap"])

# ---------------------------------------------------------------- register
rg = File("register", "Registration on the signaling relay (Spec pairing.md 3.5).", {"now": T0, "localPeerId": PHONE})
rg.accept("own-did", "A phone registers its own DID.", {"type": "register", "peerId": PHONE}, rules=["PAIR-SIG-001", "PAIR-PEER-001"])
rg.accept("pairing-code-alias", "A desktop also registers its pairing-code alias (§6.5).", {"type": "register", "peerId": "pairing-code:048213"},
          rules=["PAIR-SIG-001", "PAIR-PEER-002"], context={"localPeerId": DESK})
rg.accept("no-local-id-known", "Without a known sender id, PAIR-SIG-001 is not checked.", {"type": "register", "peerId": DESK},
          rules=["PAIR-PEER-001"], context={"localPeerId": None})
rg.accept("unknown-members", "Unknown members (a role hint) are ignored.", {"type": "register", "peerId": PHONE, "role": "mobile"},
          {"type": "register", "peerId": PHONE}, rules=["PAIR-TYPE-001"], flags=["interop-trap"])
rg.reject("target-id-echo-loop", "Registering the desktop's id from the phone is the echo-loop bug of §6.2.", "/peerId", "PAIR-SIG-001",
          {"type": "register", "peerId": DESK}, flags=["interop-trap"])
rg.reject("own-id-other-case", "Peer ids are compared exactly: a case-folded DID is someone else's id.", "/peerId", "PAIR-SIG-001",
          {"type": "register", "peerId": "did:cc:PHONE-1"}, flags=["interop-trap"])
rg.reject("own-id-other-normalization", "Peer ids are compared byte for byte: the NFD spelling of the sender's own id (e and U+0301) is another id, "
          "which a Swift String comparison takes for the same one.", "/peerId", "PAIR-SIG-001",
          {"type": "register", "peerId": "did:cc:cafe\u0301"}, context={"localPeerId": "did:cc:caf\u00e9"}, flags=["interop-trap"])
rg.reject("alias-five-digits", "An alias must carry a six-digit code.", "/peerId", "PAIR-PEER-002", {"type": "register", "peerId": "pairing-code:12345"})
rg.reject("alias-empty-code", "pairing-code: alone is no alias.", "/peerId", "PAIR-PEER-002", {"type": "register", "peerId": "pairing-code:"})
rg.reject("alias-letters", "pairing-code:abcdef is no alias.", "/peerId", "PAIR-PEER-002", {"type": "register", "peerId": "pairing-code:abcdef"})
rg.reject("alias-combining-mark", "Prefixes compare code points: pairing-code: followed by U+0301 is an alias with a bad code, "
          "though a grapheme-cluster prefix test (Swift hasPrefix) does not see the prefix.", "/peerId", "PAIR-PEER-002",
          {"type": "register", "peerId": "pairing-code:\u0301123456"}, flags=["interop-trap"])
rg.reject("peer-id-blank", "A blank peer id is rejected.", "/peerId", "PAIR-PEER-001", {"type": "register", "peerId": "  "})
rg.reject("peer-id-missing", "peerId is required.", "/peerId", "CORE-TYPE-001", {"type": "register"})
rg.reject("peer-id-number", "peerId is a string.", "/peerId", "CORE-TYPE-003", {"type": "register", "peerId": 42})

# second batch
rg.accept("phone-registers-alias", "A pairing-code: alias is accepted whatever the sender's own id: a document alone does not say whether a phone or a desktop sent it (PAIR-SIG-001).",
          {"type": "register", "peerId": "pairing-code:123456"}, rules=["PAIR-SIG-001", "PAIR-PEER-002"])
rg.accept("desktop-own-id", "A desktop registers its own mobileBridge peer id; an unknown member set to null is ignored.",
          {"type": "register", "peerId": DESK, "role": None}, {"type": "register", "peerId": DESK},
          rules=["PAIR-SIG-001", "PAIR-PEER-001", "CORE-TYPE-002", "CORE-TYPE-003"], context={"localPeerId": DESK})
rg.accept("alias-with-role-hint", "The desktop's alias registration with the seed's role hint (§6.5); the unknown role is dropped.",
          {"type": "register", "peerId": "pairing-code:048213", "role": "manual-pair-listener"}, {"type": "register", "peerId": "pairing-code:048213"},
          rules=["PAIR-SIG-001", "PAIR-PEER-002", "CORE-TYPE-001"], context={"localPeerId": DESK}, flags=["seed-example"])
rg.accept("alias-all-zeros", "pairing-code:000000 is a valid alias: the code keeps its zeros.", {"type": "register", "peerId": "pairing-code:000000"},
          rules=["PAIR-PEER-002", "PAIR-CODE-001"], context={"localPeerId": DESK}, flags=["boundary"])
rg.reject("type-capitalised", "Register is not register.", "/type", "PAIR-TYPE-001", {"type": "Register", "peerId": PHONE})
rg.reject("peer-id-null", "peerId null is not absent: the member is required.", "/peerId", "CORE-TYPE-002", {"type": "register", "peerId": None},
          flags=["interop-trap"])
rg.reject("alias-arabic-indic-digits", "An alias code in Arabic-Indic digits is not six ASCII digits.", "/peerId", "PAIR-PEER-002",
          {"type": "register", "peerId": "pairing-code:١٢٣٤٥٦"}, flags=["interop-trap"])
rg.reject("alias-prefix-other-case", "Pairing-Code:123456 is no alias (the prefix is case-sensitive), so it is someone else's id.", "/peerId",
          "PAIR-SIG-001", {"type": "register", "peerId": "Pairing-Code:123456"}, flags=["interop-trap"])
rg.reject("own-id-trailing-space", "Peer ids are not trimmed: the DID with a trailing space is another id.", "/peerId", "PAIR-SIG-001",
          {"type": "register", "peerId": PHONE + " "}, flags=["interop-trap"])
rg.reject("peer-id-257-bytes", "A peer id over 256 UTF-8 bytes is rejected before it is compared.", "/peerId", "PAIR-PEER-001",
          {"type": "register", "peerId": "d" * 257}, rules=["PAIR-PEER-001", "PAIR-SIG-001"], flags=["boundary"])
rg.reject("duplicate-peer-id", "Own id first and the target's id second: a reader keeping the last one re-creates the echo loop.", "/peerId",
          "CORE-JSON-003", text=compact({"type": "register", "peerId": PHONE})[:-1] + ',"peerId":"' + DESK + '"}', flags=["interop-trap"])

# ---------------------------------------------------------------- message
ms = File("message", "The signaling envelope {type:\"message\", to, payload} (seed 002 §4.2; Spec pairing.md 3.5).", {"now": T0})
ms.accept("seed-example", "The Flow B ack routed to the desktop.", {"type": "message", "to": DESK, "payload": ACK},
          rules=["PAIR-PEER-001", "PAIR-TYPE-001"], flags=["seed-example"])
ms.accept("from-set-by-relay", "A relay-delivered message carries from.", {"type": "message", "to": DESK, "from": PHONE, "payload": ACK},
          rules=["PAIR-PEER-001"])
ms.accept("to-alias-matching-ack", "The manual flow's ack to pairing-code:<code> with the same code.",
          {"type": "message", "to": "pairing-code:048213", "payload": ACK}, rules=["PAIR-SIG-002", "PAIR-PEER-002"])
ms.accept("other-payload-kept", "A payload of another type is relayed and kept exactly as received.",
          {"type": "message", "to": DESK, "payload": {"type": "terminal:open", "cols": 80, "x": [1.5, None]}},
          rules=["PAIR-PEER-001"])
ms.accept("nested-payload-canonical", "A known payload is checked and reduced to its canonical form (unknown members dropped).",
          {"type": "message", "to": DESK, "payload": edit(ACK, extra=1)}, {"type": "message", "to": DESK, "payload": ACK},
          rules=["PAIR-TYPE-001"], flags=["interop-trap"])
ms.reject("to-missing", "to is required.", "/to", "CORE-TYPE-001", {"type": "message", "payload": ACK})
ms.reject("from-null-to-missing", "from null is not given (CORE-TYPE-002): a message without a sender is a client's and needs to.", "/to", "CORE-TYPE-001",
          {"type": "message", "from": None, "payload": ACK}, flags=["interop-trap"])
ms.reject("to-blank", "A blank target is rejected.", "/to", "PAIR-PEER-001", {"type": "message", "to": "", "payload": ACK})
ms.reject("to-bad-alias", "pairing-code:1234 is not an alias.", "/to", "PAIR-PEER-002", {"type": "message", "to": "pairing-code:1234", "payload": ACK})
ms.reject("from-blank", "from, when given, is a peer id.", "/from", "PAIR-PEER-001", {"type": "message", "to": DESK, "from": " ", "payload": ACK})
ms.reject("payload-missing", "payload is required.", "/payload", "CORE-TYPE-001", {"type": "message", "to": DESK})
ms.reject("payload-string", "payload is an object, not JSON text in a string.", "/payload", "CORE-TYPE-003",
          {"type": "message", "to": DESK, "payload": compact(ACK)}, flags=["interop-trap"])
ms.reject("nested-ack-bad-code", "The nested ack is checked: its five-digit code is reported under /payload.", "/payload/pairingCode", "PAIR-CODE-001",
          {"type": "message", "to": DESK, "payload": edit(ACK, pairingCode="48213")})
ms.accept("delivered-without-to", "The deployed relay delivers without to, with from and its own timestamp (signaling-server/index.js 328-333).",
          {"type": "message", "from": PHONE, "payload": ACK, "timestamp": T0 + 7}, {"type": "message", "from": PHONE, "payload": ACK},
          rules=["PAIR-PEER-001"], flags=["real-implementation"])
ms.reject("client-message-without-to", "A message without from is a client's: it must name its target.", "/to", "CORE-TYPE-001",
          {"type": "message", "payload": ACK})
ms.reject("nested-ack-bad-did", "The nested ack's DID is checked (a slash is no DID character).", "/payload/mobileDid", "PAIR-DID-001",
          {"type": "message", "to": DESK, "payload": edit(ACK, mobileDid="did:web:example.com/li")})
ms.reject("alias-code-mismatch", "An ack for 654321 sent to pairing-code:048213.", "/payload/pairingCode", "PAIR-SIG-002",
          {"type": "message", "to": "pairing-code:048213", "payload": edit(ACK, pairingCode="654321")})
ms.reject("alias-wrong-payload", "Only pair-acks go to an alias.", "/payload/type", "PAIR-SIG-002",
          {"type": "message", "to": "pairing-code:730291", "payload": DEVICE})
ms.reject("alias-untyped-payload", "A payload without type sent to an alias.", "/payload/type", "PAIR-SIG-002",
          {"type": "message", "to": "pairing-code:048213", "payload": {"pairingCode": "048213"}})

# second batch
ms.accept("nested-desktop-pairing", "A nested desktop-pairing payload is reduced to its canonical form (signalingUrl \"\" omitted).",
          {"type": "message", "to": PHONE, "from": DESK, "payload": edit(QR, signalingUrl="")},
          {"type": "message", "to": PHONE, "from": DESK, "payload": edit(QR, signalingUrl=DROP)},
          rules=["PAIR-TYPE-001", "PAIR-URL-001"], context={"activeDid": PHONE})
ms.accept("nested-confirmation", "The desktop's confirmation routed to the phone's DID (§4.4); its unknown members are dropped.",
          {"type": "message", "to": PHONE, "from": DESK, "payload": edit(CONF, sessionId="s-7")},
          {"type": "message", "to": PHONE, "from": DESK, "payload": CONF}, rules=["PAIR-TYPE-001", "PAIR-INFO-002", "PAIR-PEER-001", "CORE-TYPE-003"])
ms.accept("from-null", "from null is not given and is omitted.", {"type": "message", "to": DESK, "from": None, "payload": ACK},
          {"type": "message", "to": DESK, "payload": ACK}, rules=["CORE-TYPE-002", "CORE-TYPE-001", "PAIR-DID-001"], flags=["interop-trap"])
ms.accept("payload-type-other-case", "A payload typed Pair-Ack names no pairing kind: it is relayed unchecked and kept as received.",
          {"type": "message", "to": DESK, "payload": edit(ACK, type="Pair-Ack", pairingCode="12345")}, rules=["PAIR-TYPE-001", "PAIR-CODE-001"],
          flags=["interop-trap"])
ms.reject("type-capitalised", "Message is not message.", "/type", "PAIR-TYPE-001", {"type": "Message", "to": DESK, "payload": ACK})
ms.reject("to-null", "to null is not absent: the member is required.", "/to", "CORE-TYPE-002", {"type": "message", "to": None, "payload": ACK},
          flags=["interop-trap"])
ms.reject("payload-null", "payload null is not absent: the member is required.", "/payload", "CORE-TYPE-002",
          {"type": "message", "to": DESK, "payload": None})
ms.reject("payload-array", "payload is an object.", "/payload", "CORE-TYPE-003", {"type": "message", "to": DESK, "payload": [ACK]})
ms.reject("alias-ack-five-digit-code", "The nested ack is checked before PAIR-SIG-002: its five-digit code is a PAIR-CODE-001 violation.",
          "/payload/pairingCode", "PAIR-CODE-001", {"type": "message", "to": "pairing-code:123456", "payload": edit(ACK, pairingCode="12345")},
          rules=["PAIR-CODE-001", "PAIR-SIG-002"])
ms.reject("alias-payload-type-other-case", "A payload typed Pair-Ack is not a pair-ack, so an alias may not receive it.", "/payload/type",
          "PAIR-SIG-002", {"type": "message", "to": "pairing-code:048213", "payload": edit(ACK, type="Pair-Ack")}, flags=["interop-trap"])
ms.reject("nested-confirmation-phone-platform", "A nested confirmation is checked as one: a desktop cannot run ios.", "/payload/deviceInfo/platform",
          "PAIR-INFO-002", {"type": "message", "to": PHONE, "payload": edit(CONF, deviceInfo__platform="ios")})
ms.reject("nested-ack-timestamp-string", "The nested ack's timestamp sent as a string is rejected under /payload.", "/payload/timestamp",
          "CORE-TYPE-003", {"type": "message", "to": DESK, "payload": edit(ACK, timestamp=str(T0 - 2000))}, flags=["interop-trap"])
ms.reject("nested-desktop-pairing-http-lan-url", "A nested desktop-pairing is checked as one: its LAN URL must be ws:// or wss://.",
          "/payload/signalingUrl", "PAIR-URL-001", {"type": "message", "to": PHONE, "from": DESK, "payload": edit(QR, signalingUrl="http://192.168.1.20:9001")},
          context={"activeDid": PHONE})
ms.reject("duplicate-to", "Two to members: the relay and a logger could route to different peers.", "/to", "CORE-JSON-003",
          text=compact({"type": "message", "to": DESK, "payload": ACK})[:-1] + ',"to":"pairing-code:048213"}', flags=["interop-trap"])

# ---------------------------------------------------------------- relay replies
rd = File("registered", "The relay's answer to register (Spec pairing.md 3.5).", {"now": T0})
rd.accept("own-did", "registered echoes the id.", {"type": "registered", "peerId": PHONE}, rules=["PAIR-PEER-001"])
rd.accept("alias", "registered for an alias.", {"type": "registered", "peerId": "pairing-code:048213"}, rules=["PAIR-PEER-002"])
rd.reject("peer-id-blank", "A blank id.", "/peerId", "PAIR-PEER-001", {"type": "registered", "peerId": "\n"})
rd.reject("type-capitalised", "Registered is not registered.", "/type", "PAIR-TYPE-001", {"type": "Registered", "peerId": PHONE})

# second batch
rd.accept("desktop-id", "registered for a desktop's peer id.", {"type": "registered", "peerId": DESK},
          rules=["PAIR-TYPE-001", "PAIR-PEER-001", "CORE-TYPE-003"])
rd.accept("unknown-members", "Unknown members (a server time, a null) are ignored and dropped.", {"type": "registered", "peerId": PHONE, "serverTime": T0, "session": None},
          {"type": "registered", "peerId": PHONE}, rules=["PAIR-TYPE-001", "CORE-TYPE-001", "CORE-TYPE-002"], flags=["interop-trap"])
rd.accept("peer-id-256-bytes", "A peer id of exactly 256 UTF-8 bytes.", {"type": "registered", "peerId": "d" * 256}, rules=["PAIR-PEER-001"],
          flags=["boundary"])
rd.reject("peer-id-missing", "peerId is required.", "/peerId", "CORE-TYPE-001", {"type": "registered"})
rd.reject("peer-id-null", "peerId null is not absent: the member is required.", "/peerId", "CORE-TYPE-002", {"type": "registered", "peerId": None},
          flags=["interop-trap"])
rd.reject("peer-id-number", "peerId is a string.", "/peerId", "CORE-TYPE-003", {"type": "registered", "peerId": 1})
rd.reject("alias-seven-digits", "pairing-code:0482131 carries seven digits.", "/peerId", "PAIR-PEER-002",
          {"type": "registered", "peerId": "pairing-code:0482131"})
rd.reject("peer-id-257-bytes", "A peer id of 257 UTF-8 bytes.", "/peerId", "PAIR-PEER-001", {"type": "registered", "peerId": "d" * 257},
          flags=["boundary"])

po = File("peer-offline", "The relay's answer when the target is not registered (seed 002 §6.5).", {"now": T0})
po.accept("alias-offline", "The manual flow's alias is not registered: the desktop has not enabled manual codes.",
          {"type": "peer-offline", "peerId": "pairing-code:048213"}, rules=["PAIR-PEER-002"], flags=["seed-example"])
po.reject("peer-id-missing", "peerId is required.", "/peerId", "CORE-TYPE-001", {"type": "peer-offline"})
po.reject("peer-id-null", "null is not absent for a required member.", "/peerId", "CORE-TYPE-002", {"type": "peer-offline", "peerId": None})

# second batch
po.accept("desktop-offline", "The desktop targeted by a Flow B ack is not connected.", {"type": "peer-offline", "peerId": DESK},
          rules=["PAIR-TYPE-001", "PAIR-PEER-001", "CORE-TYPE-003"])
po.accept("unknown-members", "Unknown members (a reason text, a null) are ignored and dropped.",
          {"type": "peer-offline", "peerId": DESK, "reason": "target not registered", "since": None}, {"type": "peer-offline", "peerId": DESK},
          rules=["PAIR-TYPE-001", "CORE-TYPE-001", "CORE-TYPE-002"], flags=["interop-trap"])
po.reject("type-underscore", "peer_offline is not peer-offline.", "/type", "PAIR-TYPE-001", {"type": "peer_offline", "peerId": DESK},
          flags=["interop-trap"])
po.reject("peer-id-ideographic-space", "A peer id of U+3000 alone is blank.", "/peerId", "PAIR-PEER-001", {"type": "peer-offline", "peerId": "\u3000"},
          flags=["interop-trap"])
po.reject("peer-id-line-break", "CR LF after the id are control characters.", "/peerId", "PAIR-PEER-001", {"type": "peer-offline", "peerId": DESK + "\r\n"})
po.reject("alias-fullwidth-digit", "A fullwidth digit in the alias code is not an ASCII digit.", "/peerId", "PAIR-PEER-002",
          {"type": "peer-offline", "peerId": "pairing-code:04821３"}, flags=["interop-trap"])
po.reject("peer-id-number", "peerId is a string.", "/peerId", "CORE-TYPE-003", {"type": "peer-offline", "peerId": 48213})

er = File("error", "The relay's error answer (Spec pairing.md 3.5, PAIR-SIG-003).", {"now": T0})
er.accept("rate-limited", "An error with its code and a human message.", {"type": "error", "code": "rate-limited", "message": "slow down"},
          rules=["PAIR-SIG-003"])
er.accept("code-only", "message is optional.", {"type": "error", "code": "alias-taken"}, rules=["PAIR-SIG-003", "CORE-TYPE-001"])
er.accept("message-null", "message null is absent.", {"type": "error", "code": "too-large", "message": None}, {"type": "error", "code": "too-large"},
          rules=["CORE-TYPE-002"])
er.reject("code-upper-snake", "RATE_LIMITED is not one of the codes.", "/code", "PAIR-SIG-003", {"type": "error", "code": "RATE_LIMITED"}, flags=["interop-trap"])
er.reject("code-http-status", "A number is not a code.", "/code", "CORE-TYPE-003", {"type": "error", "code": 429})
er.reject("code-missing", "code is required: clients act on it.", "/code", "CORE-TYPE-001", {"type": "error", "message": "oops"})
er.reject("message-number", "message, when given, is a string.", "/message", "CORE-TYPE-003", {"type": "error", "code": "invalid-message", "message": 5})

# second batch
er.accept("invalid-message", "invalid-message is one of the codes.", {"type": "error", "code": "invalid-message"}, rules=["PAIR-SIG-003"])
er.accept("not-registered", "not-registered is one of the codes.", {"type": "error", "code": "not-registered"}, rules=["PAIR-SIG-003"])
er.accept("alias-expired-chinese-message", "The human text may be in any language; clients act on the code.",
          {"type": "error", "code": "alias-expired", "message": "配对码已过期,请重新扫码"}, rules=["PAIR-SIG-003", "CORE-TYPE-003"])
er.accept("unknown-members", "Unknown members (a retry hint) are ignored and dropped.", {"type": "error", "code": "rate-limited", "retryAfter": 30},
          {"type": "error", "code": "rate-limited"}, rules=["PAIR-TYPE-001"], flags=["interop-trap"])
er.reject("type-capitalised", "Error is not error.", "/type", "PAIR-TYPE-001", {"type": "Error", "code": "too-large"})
er.reject("code-null", "code null is not absent: the member is required.", "/code", "CORE-TYPE-002", {"type": "error", "code": None},
          flags=["interop-trap"])
er.reject("code-trailing-space", "Codes are compared exactly: a trailing space is another code.", "/code", "PAIR-SIG-003",
          {"type": "error", "code": "rate-limited "}, flags=["interop-trap"])
er.reject("code-empty", "An empty code is not one of the codes.", "/code", "PAIR-SIG-003", {"type": "error", "code": ""}, flags=["boundary"])
er.reject("duplicate-code", "Two code members: clients act on the code, so it must be unambiguous.", "/code", "CORE-JSON-003",
          text='{"type":"error","code":"alias-taken","code":"rate-limited"}', flags=["interop-trap"])

# ---------------------------------------------------------------- paired-desktop
pd = File("paired-desktop", "The record a phone stores per paired desktop (seed 002 §6.3; Spec pairing.md 3.6).", {"now": T0})
pd.accept("full-record", "A record written after Flow B, iceServersJson as received.", RECORD,
          rules=["PAIR-STORE-001", "PAIR-STORE-002", "PAIR-ICE-002", "PAIR-TIME-001", "PAIR-URL-001", "PAIR-URL-002", "PAIR-INFO-001"])
nulls = edit(RECORD, lanSignalingUrl=None, relayUrl=None, iceServersJson=None, iceExpiry=0, lastSeenAt=T0)
pd.accept("nullable-members-null", "Nullable members null are omitted; iceExpiry 0 means no ICE credentials; lastSeenAt may equal pairedAt.",
          nulls, edit(RECORD, lanSignalingUrl=DROP, relayUrl=DROP, iceServersJson=DROP, iceExpiry=0, lastSeenAt=T0),
          rules=["PAIR-ICE-002", "PAIR-STORE-002", "CORE-TYPE-002"], flags=["boundary"])
pd.accept("ice-json-with-whitespace", "iceServersJson need not be compact; it is stored as received.",
          edit(RECORD, iceServersJson=json.dumps(ICE, indent=1)), rules=["PAIR-STORE-001"])
pd.reject("pc-peer-id-missing", "pcPeerId is the record's key.", "/pcPeerId", "CORE-TYPE-001", edit(RECORD, pcPeerId=DROP))
pd.reject("device-name-blank", "A blank name.", "/deviceName", "PAIR-INFO-001", edit(RECORD, deviceName="   "))
pd.reject("platform-phone", "A desktop record with platform ios.", "/platform", "PAIR-INFO-002", edit(RECORD, platform="ios"))
pd.reject("relay-plain-ws", "A public relay over ws://.", "/relayUrl", "PAIR-URL-002", edit(RECORD, relayUrl="ws://signaling.chainlesschain.com"))
pd.reject("ice-json-not-json", "iceServersJson must be JSON text.", "/iceServersJson", "PAIR-STORE-001", edit(RECORD, iceServersJson="stun:a"))
pd.reject("ice-json-object", "iceServersJson must hold an array.", "/iceServersJson", "PAIR-STORE-001", edit(RECORD, iceServersJson="{}"))
pd.reject("ice-json-bad-entry", "iceServersJson must hold valid ICE servers.", "/iceServersJson", "PAIR-STORE-001",
          edit(RECORD, iceServersJson='[{"urls":"http://x"}]'))
pd.reject("ice-json-duplicate-key", "The stored text follows the wire profile too.", "/iceServersJson", "PAIR-STORE-001",
          edit(RECORD, iceServersJson='[{"urls":"stun:a","urls":"stun:b"}]'), flags=["interop-trap"])
pd.reject("ice-expiry-missing", "iceExpiry is required (0 when none).", "/iceExpiry", "CORE-TYPE-001", edit(RECORD, iceExpiry=DROP))
pd.reject("ice-expiry-ms", "iceExpiry in milliseconds.", "/iceExpiry", "PAIR-ICE-002", edit(RECORD, iceExpiry=1747386400000), flags=["interop-trap"])
pd.reject("paired-at-seconds", "pairedAt in seconds.", "/pairedAt", "PAIR-TIME-001", edit(RECORD, pairedAt=T0 // 1000), flags=["interop-trap"])
pd.reject("last-seen-before-paired", "A desktop cannot be seen before it was paired.", "/lastSeenAt", "PAIR-STORE-002", edit(RECORD, lastSeenAt=T0 - 1), flags=["boundary"])

# second batch
pd.accept("url-members-empty-string", "\"\" for lanSignalingUrl and relayUrl means no URL, as null and absence do; both are omitted.",
          edit(RECORD, lanSignalingUrl="", relayUrl=""), edit(RECORD, lanSignalingUrl=DROP, relayUrl=DROP), rules=["PAIR-URL-001", "PAIR-URL-002"],
          flags=["interop-trap"])
pd.accept("nullable-members-absent", "Swift's Codable omits nil optionals: absent lanSignalingUrl, relayUrl and iceServersJson are accepted like null.",
          edit(RECORD, lanSignalingUrl=DROP, relayUrl=DROP, iceServersJson=DROP, iceExpiry=0), rules=["CORE-TYPE-001", "PAIR-ICE-002"],
          flags=["interop-trap"])
pd.accept("ice-json-empty-array", "\"[]\" is a valid (empty) ICE server list.", edit(RECORD, iceServersJson="[]"), rules=["PAIR-STORE-001"],
          flags=["boundary"])
pd.accept("ice-json-kept-verbatim", "The stored text is kept as received: an unknown member and an upper-case scheme inside it stay.",
          edit(RECORD, iceServersJson='[{"urls":"STUN:stun.l.google.com:19302","credentialType":"password"}]'), rules=["PAIR-STORE-001", "PAIR-ICE-001"],
          flags=["interop-trap"])
pd.accept("type-member-ignored", "The record has no type member: one written anyway is an unknown member and dropped.",
          edit(RECORD, type="paired-desktop"), RECORD, rules=["PAIR-TYPE-001", "CORE-TYPE-003", "CORE-TYPE-004"], flags=["interop-trap"])
pd.accept("darwin-emoji-name", "A macOS desktop whose name has an emoji.", edit(RECORD, deviceName="Zhang's MacBook Pro 💻", platform="darwin"),
          rules=["PAIR-INFO-001", "PAIR-INFO-002"])
pd.accept("ice-expiry-negative-zero", "-0 is an integer literal whose value is 0 (no ICE credentials); the canonical form writes 0.",
          text=compact(edit(RECORD, iceExpiry=0)).replace('"iceExpiry":0', '"iceExpiry":-0'), canonical=edit(RECORD, iceExpiry=0),
          rules=["CORE-TYPE-004", "PAIR-ICE-002"], flags=["boundary", "interop-trap"])
pd.reject("lan-url-http", "The LAN URL must be ws:// or wss://.", "/lanSignalingUrl", "PAIR-URL-001",
          edit(RECORD, lanSignalingUrl="http://192.168.1.20:9001"))
pd.reject("ice-json-empty-string", "\"\" means no URL for the URL members only: an empty iceServersJson is not JSON text.", "/iceServersJson",
          "PAIR-STORE-001", edit(RECORD, iceServersJson=""), flags=["interop-trap"])
pd.reject("ice-json-null-text", "The text \"null\" (a serialized null list) is not an array.", "/iceServersJson", "PAIR-STORE-001",
          edit(RECORD, iceServersJson="null"), flags=["interop-trap"])
pd.reject("ice-json-array-of-strings", "Each element of the stored list must be an ICE server object, not a bare URL.", "/iceServersJson",
          "PAIR-STORE-001", edit(RECORD, iceServersJson='["stun:stun.l.google.com:19302"]'), flags=["interop-trap"])
pd.reject("ice-expiry-one", "Only 0 is allowed below the epoch-seconds range.", "/iceExpiry", "PAIR-ICE-002", edit(RECORD, iceExpiry=1),
          flags=["boundary"])
pd.reject("ice-expiry-null", "iceExpiry is required (Int64, 0 when none): null is rejected.", "/iceExpiry", "CORE-TYPE-002", edit(RECORD, iceExpiry=None),
          flags=["interop-trap"])
pd.reject("paired-at-string", "pairedAt sent as a string is rejected, not parsed.", "/pairedAt", "CORE-TYPE-003", edit(RECORD, pairedAt=str(T0)),
          flags=["interop-trap"])
pd.reject("last-seen-fraction", "1747386400000.0 is not an integer literal.", "/lastSeenAt", "CORE-TYPE-004",
          text=compact(RECORD).replace('"lastSeenAt":1747386400000', '"lastSeenAt":1747386400000.0'))
pd.reject("last-seen-seconds", "lastSeenAt in seconds fails PAIR-TIME-001 before it is compared with pairedAt.", "/lastSeenAt", "PAIR-TIME-001",
          edit(RECORD, lastSeenAt=T0 // 1000), rules=["PAIR-TIME-001", "PAIR-STORE-002"], flags=["interop-trap"])

# ------------------------------------------------------------------ real implementations (evidence: Spec beside PAIR-DID-001)
ms.accept("real-android-pair-ack", "ChainlessChain Android's Flow B pair-ack as its envelope carries it (ScanDesktopPairingViewModel.kt 128-138, 3b0b2dc): did:key, ANDROID_ID deviceId.",
          {"type": "message", "to": "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi", "payload": {"type": "pair-ack", "pairingCode": "482913", "mobileDid": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "deviceInfo": {"deviceId": "3f8a2c9d1b7e4a60", "name": "24115RA8EC", "platform": "android"}, "timestamp": 1747300012345}},
          {"type": "message", "to": "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi", "payload": {"type": "pair-ack", "pairingCode": "482913", "mobileDid": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "deviceInfo": {"deviceId": "3f8a2c9d1b7e4a60", "name": "24115RA8EC", "platform": "android"}, "timestamp": 1747300012345}},
          rules=["PAIR-DID-001"], flags=["real-implementation"], context={"now": 1747300013000, "activeDid": PHONE})
ms.accept("real-ios-pair-ack", "ChainlessChain iOS's Flow B pair-ack, keys sorted (ScanDesktopPairingViewModel.swift 84-94, WebSocketSignalClient.swift 226): did:key, upper-case UUID deviceId.",
          {"payload": {"deviceInfo": {"deviceId": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "name": "iPhone", "platform": "ios"}, "mobileDid": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "pairingCode": "482913", "timestamp": 1747300012345, "type": "pair-ack"}, "to": "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi", "type": "message"},
          {"type": "message", "to": "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi", "payload": {"type": "pair-ack", "pairingCode": "482913", "mobileDid": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "deviceInfo": {"deviceId": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "name": "iPhone", "platform": "ios"}, "timestamp": 1747300012345}},
          rules=["PAIR-DID-001"], flags=["real-implementation"], context={"now": 1747300013000, "activeDid": PHONE})
dv.accept("real-android-qr", "ChainlessChain Android's Flow A QR payload (DesktopPairingViewModel.kt 86-99, 3b0b2dc).",
          {"type": "device-pairing", "code": "573920", "did": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "deviceInfo": {"deviceId": "3f8a2c9d1b7e4a60", "name": "24115RA8EC", "platform": "android"}, "timestamp": 1747300000000},
          {"type": "device-pairing", "code": "573920", "did": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "deviceInfo": {"deviceId": "3f8a2c9d1b7e4a60", "name": "24115RA8EC", "platform": "android"}, "timestamp": 1747300000000},
          rules=["PAIR-DID-001"], flags=["real-implementation"], context={"now": 1747300013000, "activeDid": PHONE})
dp.accept("real-desktop-without-lan", "ChainlessChain desktop's QR with no LAN address: signalingUrl null, the public relay (desktop-pair-handlers.js 549-563, 92d6d8c).",
          {"type": "desktop-pairing", "code": "482913", "pcPeerId": "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi", "deviceInfo": {"name": "DESKTOP-7F3K2QH", "platform": "win32", "version": "v1.1"}, "signalingUrl": None, "relayUrl": "wss://signaling.chainlesschain.com", "timestamp": 1747300000000},
          {"type": "desktop-pairing", "code": "482913", "pcPeerId": "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi", "deviceInfo": {"name": "DESKTOP-7F3K2QH", "platform": "win32", "version": "v1.1"}, "timestamp": 1747300000000, "relayUrl": "wss://signaling.chainlesschain.com"},
          rules=["PAIR-URL-001", "PAIR-URL-002"], flags=["real-implementation"], context={"now": 1747300013000, "activeDid": PHONE})

# ---------------------------------------------------------------- keepalives (PAIR-RELAY-002)
pi = File("ping", "A client's keepalive as a text frame (Spec pairing.md PAIR-RELAY-002, PAIR-CONN-003).", {"now": T0})
pi.accept("plain", "The Spec's keepalive.", {"type": "ping"}, rules=["PAIR-RELAY-002"])
pi.accept("android-with-timestamp", "Android's heartbeat carries a timestamp: an unknown member, ignored (SignalingConfig.kt).",
          {"type": "ping", "timestamp": T0}, {"type": "ping"}, rules=["PAIR-RELAY-002", "PAIR-TYPE-001"], flags=["interop-trap", "real-implementation"])
pi.reject("type-capitalised", "Ping is not ping.", "/type", "PAIR-TYPE-001", {"type": "Ping"})
pi.reject("not-an-object", "A keepalive is an object.", "", "CORE-TYPE-003", ["ping"])
po2 = File("pong", "The relay's answer to a ping (Spec pairing.md PAIR-RELAY-002).", {"now": T0})
po2.accept("plain", "The Spec's answer.", {"type": "pong"}, rules=["PAIR-RELAY-002"])
po2.accept("deployed-relay-with-timestamp", "The deployed relay's pong carries a timestamp: ignored (server.js).",
           {"type": "pong", "timestamp": T0}, {"type": "pong"}, rules=["PAIR-RELAY-002", "PAIR-TYPE-001"], flags=["interop-trap", "real-implementation"])
po2.reject("type-number", "type is a string.", "/type", "CORE-TYPE-003", {"type": 1})

# ---------------------------------------------------------------- presence (Spec pairing.md 3.5)
ps = File("peer-status", "A relay's presence broadcast, which clients ignore (Spec pairing.md 3.5, PAIR-RELAY-002).", {"now": T0})
ps.accept("standalone-relay-online", "What ChainlessChain's standalone relay sends after a register: its device metadata and time are unknown members, dropped (index.js broadcastPeerStatus).",
          {"type": "peer-status", "peerId": DESK, "status": "online", "deviceType": "desktop", "deviceInfo": {"name": "Office PC"}, "timestamp": T0},
          {"type": "peer-status", "peerId": DESK, "status": "online"}, rules=["PAIR-TYPE-001", "PAIR-PEER-001"], flags=["real-implementation"])
ps.accept("standalone-relay-offline", "And when the registered connection closes.",
          {"type": "peer-status", "peerId": PHONE, "status": "offline", "timestamp": T0}, {"type": "peer-status", "peerId": PHONE, "status": "offline"},
          rules=["PAIR-PEER-001", "PAIR-SEC-006"], flags=["real-implementation"])
ps.reject("announces-an-alias", "The standalone relay announces a desktop's manual-code alias to every client: a live code handed out (PAIR-SEC-006).",
          "/peerId", "PAIR-SEC-006", {"type": "peer-status", "peerId": "pairing-code:048213", "status": "online", "deviceType": "desktop", "timestamp": T0},
          flags=["real-implementation"])
ps.accept("id-that-only-contains-the-prefix", "An id with pairing-code: inside it, not at its start, is no alias.",
          {"type": "peer-status", "peerId": "desktop-pairing-code:1", "status": "online"}, rules=["PAIR-SEC-006"])
ps.reject("peer-id-missing", "peerId is required.", "/peerId", "CORE-TYPE-001", {"type": "peer-status", "status": "online"})
ps.reject("peer-id-blank", "A blank id.", "/peerId", "PAIR-PEER-001", {"type": "peer-status", "peerId": " ", "status": "online"})
ps.reject("peer-id-alias-letters", "pairing-code: with letters is no alias.", "/peerId", "PAIR-PEER-002",
          {"type": "peer-status", "peerId": "pairing-code:abcdef", "status": "online"})
ps.reject("status-missing", "status is required, after peerId.", "/status", "CORE-TYPE-001", {"type": "peer-status", "peerId": DESK})
ps.reject("status-null", "null is not absent for a required member.", "/status", "CORE-TYPE-002", {"type": "peer-status", "peerId": DESK, "status": None})
ps.reject("status-boolean", "status is a string (a relay that sends online: true sends another shape).", "/status", "CORE-TYPE-003",
          {"type": "peer-status", "peerId": DESK, "status": True})
ps.reject("type-underscore", "peer_status is not peer-status.", "/type", "PAIR-TYPE-001", {"type": "peer_status", "peerId": DESK, "status": "online"})

# WebRTC signals as message payloads (Spec pairing.md 3.7).
webrtc_cases.add_message_cases(ms)

total = 0
for f in (dp, pa, dv, cf, rg, ms, rd, po, er, pd, pi, po2, ps):
    n = f.write()
    total += n
    print(f"{f.slug}: {n}")
print("total", total)
