"""Writes Spec/schemas/pairing/*.schema.json (JSON Schema 2020-12) from the member tables of
Spec/pairing.md. Schemas express types, required members, patterns and enums; the rules they
cannot express (blank after trimming, check order, time relative to now, duplicate names,
context) are named in each schema's description. check_schemas.py holds them against the vectors."""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Spec", "schemas", "pairing")
BASE = "https://devicedata.example/spec/schemas/pairing/"

CODE = {"type": "string", "minLength": 6, "maxLength": 6, "pattern": "^[0-9]{6}$", "x-rules": ["PAIR-CODE-001"]}
PEER = {"type": "string", "minLength": 1, "pattern": "^(?!pairing-code:)|^pairing-code:[0-9]{6}$",
        "x-rules": ["PAIR-PEER-001", "PAIR-PEER-002"]}
MILLIS = {"type": "integer", "minimum": 1000000000000, "exclusiveMaximum": 10000000000000, "x-rules": ["CORE-TYPE-004", "PAIR-TIME-001"]}
DID = {"type": "string", "maxLength": 256,
       "pattern": "^did:cc:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+)*$", "x-rules": ["PAIR-DID-001"]}
WS_URL = "^[Ww][Ss][Ss]?://(?:[A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?(?:[/?][!-~]*)?$"
SIGNALING = {"type": ["string", "null"], "anyOf": [{"type": "null"}, {"const": ""}, {"pattern": WS_URL}],
             "x-rules": ["PAIR-URL-001"]}
RELAY_PATTERN = "^(?:[Ww][Ss][Ss]://|[Ww][Ss]://(?:localhost|127\\.[0-9.]+|\\[::1\\])(?:[:/?]|$))"
RELAY = {"type": "string", "allOf": [{"pattern": WS_URL}, {"pattern": RELAY_PATTERN}], "x-rules": ["PAIR-URL-002"]}
ICE_URL = {"type": "string", "pattern": "^(?:[Ss][Tt][Uu][Nn][Ss]?|[Tt][Uu][Rr][Nn][Ss]?):.+"}
ICE_SERVERS = {"type": "array", "x-rules": ["PAIR-ICE-001"], "items": {
    "type": "object", "required": ["urls"], "additionalProperties": True,
    "properties": {"urls": {"oneOf": [ICE_URL, {"type": "array", "minItems": 1, "items": ICE_URL}]},
                   "username": {"type": ["string", "null"]}, "credential": {"type": ["string", "null"]}}}}
SECONDS = {"type": "integer", "minimum": 1000000000, "exclusiveMaximum": 100000000000, "x-rules": ["PAIR-ICE-002"]}
DESKTOP_INFO = {"type": "object", "required": ["name", "platform"], "additionalProperties": True,
                "properties": {"name": {"type": "string", "minLength": 1, "x-rules": ["PAIR-INFO-001"]},
                               "platform": {"enum": ["win32", "darwin", "linux"], "x-rules": ["PAIR-INFO-002"]},
                               "version": {"type": ["string", "null"]}}}
MOBILE_INFO = {"type": "object", "required": ["deviceId", "name", "platform"], "additionalProperties": True,
               "properties": {"deviceId": {"type": "string", "minLength": 1, "x-rules": ["PAIR-INFO-003"]},
                              "name": {"type": "string", "minLength": 1, "x-rules": ["PAIR-INFO-001"]},
                              "platform": {"enum": ["ios", "android"], "x-rules": ["PAIR-INFO-002"]}}}
NOT_EXPRESSIBLE = ("Not expressible here: the check order (the first failing check is the one reported), blank after "
                   "trimming Unicode White_Space (PAIR-PEER-001, PAIR-INFO-001/003), peer ids of at most 256 UTF-8 bytes "
                   "without control characters, duplicate member names (CORE-JSON-003), integer literals (CORE-TYPE-004: "
                   "1.0 passes a schema's integer), and rules that need the receiver's context")


def type_const(kind):
    return {"const": kind, "x-rules": ["PAIR-TYPE-001"]}


def schema(file, kind, title, rules, required, properties, extra=""):
    doc = {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": BASE + file + ".schema.json",
        "title": title, "description": f"Spec/pairing.md; rules {', '.join(rules)}. {NOT_EXPRESSIBLE}{extra}.",
        "type": "object", "required": required, "additionalProperties": True, "properties": properties,
    }
    with open(os.path.join(OUT, file + ".schema.json"), "w") as f:
        f.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")


os.makedirs(OUT, exist_ok=True)
schema("desktop-pairing", "desktop-pairing", "desktop-pairing (seed 002 §4.1)",
       ["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-PEER-001", "PAIR-TIME-001..003", "PAIR-DID-002", "PAIR-INFO-001/002", "PAIR-URL-001/002", "PAIR-ICE-001/002"],
       ["type", "code", "pcPeerId", "timestamp", "deviceInfo", "relayUrl"],
       {"type": type_const("desktop-pairing"), "code": CODE, "pcPeerId": PEER, "timestamp": MILLIS, "deviceInfo": DESKTOP_INFO,
        "signalingUrl": SIGNALING, "relayUrl": RELAY, "iceServers": dict(ICE_SERVERS, type=["array", "null"]),
        "iceExpiry": dict(SECONDS, type=["integer", "null"])},
       ", and the age rules PAIR-TIME-002/003 (relative to the receiver's clock) and PAIR-DID-002 (its identity)")
schema("pair-ack", "pair-ack", "pair-ack (seed 002 §4.2)", ["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-DID-001", "PAIR-INFO-001..003", "PAIR-TIME-001"],
       ["type", "pairingCode", "mobileDid", "deviceInfo", "timestamp"],
       {"type": type_const("pair-ack"), "pairingCode": CODE, "mobileDid": DID, "deviceInfo": MOBILE_INFO, "timestamp": MILLIS})
schema("device-pairing", "device-pairing", "device-pairing (seed 002 §4.3)", ["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-DID-001", "PAIR-INFO-001..003", "PAIR-TIME-001"],
       ["type", "code", "did", "deviceInfo", "timestamp"],
       {"type": type_const("device-pairing"), "code": CODE, "did": DID, "deviceInfo": MOBILE_INFO, "timestamp": MILLIS})
schema("pairing-confirmation", "pairing:confirmation", "pairing:confirmation (seed 002 §4.4)",
       ["PAIR-TYPE-001", "PAIR-CODE-001", "PAIR-PEER-001", "PAIR-INFO-001/002", "PAIR-TIME-001"],
       ["type", "pairingCode", "pcPeerId", "deviceInfo", "timestamp"],
       {"type": type_const("pairing:confirmation"), "pairingCode": CODE, "pcPeerId": PEER, "deviceInfo": DESKTOP_INFO, "timestamp": MILLIS})
schema("register", "register", "register (Spec pairing.md 3.5)", ["PAIR-TYPE-001", "PAIR-PEER-001/002", "PAIR-SIG-001"], ["type", "peerId"],
       {"type": type_const("register"), "peerId": PEER}, ", and PAIR-SIG-001 (the sender's own id)")
schema("message", "message", "message (seed 002 §4.2)", ["PAIR-TYPE-001", "PAIR-PEER-001/002", "PAIR-SIG-002"], ["type", "to", "payload"],
       {"type": type_const("message"), "to": PEER, "from": dict(PEER, type=["string", "null"]),
        "payload": {"type": "object", "description": "Checked as its own kind when its type is a pairing payload kind.",
                    "allOf": [{"if": {"required": ["type"], "properties": {"type": {"const": k}}},
                               "then": {"$ref": f.replace(":", "-") + ".schema.json"}}
                              for k, f in (("desktop-pairing", "desktop-pairing"), ("pair-ack", "pair-ack"),
                                           ("device-pairing", "device-pairing"), ("pairing:confirmation", "pairing-confirmation"))]}},
       ", and PAIR-SIG-002 (the payload of a message to a pairing-code: alias)")
schema("registered", "registered", "registered (Spec pairing.md 3.5)", ["PAIR-TYPE-001", "PAIR-PEER-001/002"], ["type", "peerId"],
       {"type": type_const("registered"), "peerId": PEER})
schema("peer-offline", "peer-offline", "peer-offline (seed 002 §6.5)", ["PAIR-TYPE-001", "PAIR-PEER-001/002"], ["type", "peerId"],
       {"type": type_const("peer-offline"), "peerId": PEER})
schema("error", "error", "error (Spec pairing.md 3.5)", ["PAIR-TYPE-001", "PAIR-SIG-003"], ["type", "code"],
       {"type": type_const("error"), "code": {"enum": ["invalid-message", "not-registered", "rate-limited", "alias-taken", "alias-expired", "too-large"],
                                               "x-rules": ["PAIR-SIG-003"]}, "message": {"type": ["string", "null"]}})
schema("paired-desktop", "paired-desktop", "PairedDesktop record (seed 002 §6.3)",
       ["PAIR-PEER-001", "PAIR-INFO-001/002", "PAIR-URL-001/002", "PAIR-STORE-001/002", "PAIR-ICE-002", "PAIR-TIME-001"],
       ["pcPeerId", "deviceName", "platform", "iceExpiry", "pairedAt", "lastSeenAt"],
       {"pcPeerId": PEER, "deviceName": {"type": "string", "minLength": 1, "x-rules": ["PAIR-INFO-001"]},
        "platform": {"enum": ["win32", "darwin", "linux"], "x-rules": ["PAIR-INFO-002"]},
        "lanSignalingUrl": SIGNALING, "relayUrl": {"anyOf": [{"type": "null"}, {"const": ""}, RELAY], "x-rules": ["PAIR-URL-002"]},
        "iceServersJson": {"type": ["string", "null"], "x-rules": ["PAIR-STORE-001"]},
        "iceExpiry": {"anyOf": [{"const": 0}, SECONDS], "type": "integer", "x-rules": ["PAIR-ICE-002"]},
        "pairedAt": MILLIS, "lastSeenAt": MILLIS},
       ", and PAIR-STORE-001 (the text inside iceServersJson) and PAIR-STORE-002 (lastSeenAt not before pairedAt)")

