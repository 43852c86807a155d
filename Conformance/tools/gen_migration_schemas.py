"""Writes Spec/schemas/migration/*.schema.json (JSON Schema 2020-12) from Spec/migration.md and the
reference decoders (Sources/Migration/Transfer/ControlMessageCodec.swift, Package/Manifest.swift,
Package/Exports.swift), one file per kind. Usage: gen_migration_schemas.py [OUTPUT_FOLDER].

Kinds: `control-message` (any control message: it checks `type` and `payload`, then the message's
own schema by its `type`), one schema per control message named as the codec names it
(`Handshake`, `AuthPIN`, `StartBackup`, `BackupMeta`, `StartTransfer`, `PauseTransfer`,
`ResumeTransfer`, `CancelTransfer`, `ChunkAck`, `Complete`: the whole `{type, payload}`), `manifest`,
and the five exports (`categories`, `stories`, `media`, `settings`, `relations_story_categories`:
arrays of elements). The envelope, the package and the chunk frames are binary: no schema.

A schema states what JSON Schema can state: JSON types, required members, `null` for optional
members (CORE-TYPE-002), UUIDs, seconds, digests, enums, ranges, file names and package paths, base64,
blank strings (a pattern that asks for one character outside Unicode White_Space), the two shapes
of AuthPIN and Complete and the pairing of ResumeTransfer's `resumeToken` and `have`. Unknown members
are allowed (core.md, "Unknown members"), except in `entityStats` (MIG-MAN-004: exactly four). Every
property carries `x-rules`, the rule ids that govern it. At the root, as for pairing
(gen_pairing_schemas.py):

- `x-rules`: every rule of the kind, in the order its checks run;
- `x-check-order`: the members in the order they are checked;
- `x-rules-expressed`: rules the schema states exactly (check_schemas.py holds the vectors to this);
- `x-rules-partly-expressed` / `x-rules-not-expressed`: rule id -> what the schema cannot state;
- `x-rules-expressed-at`: for a partly expressed rule, the members (JSON Pointers, `*` for any
  element) where the schema states it exactly: a document broken there on that rule is rejected.

Patterns are ECMA-262 (JSON Schema 2020-12, section 6.4). A pattern anchored with `$` either has a
fixed length (minLength = maxLength) or sits beside a "no control characters" constraint, so engines
whose `$` also matches before a final line feed (Python's `re`) give the same answers. Control
characters are written as JSON `\\uXXXX` escapes.
"""
import json
import os
import sys

from schema_blocks import CORE_TYPES, CORE_WIRE, TYPE4_WHY, WHITE_SPACE, WIRE_WHY, member

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Spec", "schemas", "migration")
BASE = "https://devicedata.example/spec/schemas/migration/"

# ---------------------------------------------------------------------------------------------
# Building blocks

# WHITE_SPACE (schema_blocks) is Unicode White_Space, as MigrationFields.nonBlank reads it
# (Unicode.Scalar.Properties.isWhitespace).
# C0 controls: what the reference refuses in file names and package paths (MigrationFields.isSafeFileName,
# PackagePath.isSafe: scalar < 0x20). migration.md says "control character" without a range.
C0 = "\u0000-\u001f"
NO_C0 = {"not": {"type": "string", "pattern": f"[{C0}]"}}

UUID_PATTERN = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
# PackagePath.isSafe: no segment of only dots and spaces (empty, ".", "..", and what Windows trims to them),
# no backslash, colon, C0 control or DEL; not manifest.json (compared ignoring case: PackagePath.collisionKey).
PATH_CONTROLS = C0 + "\u007f"
NO_PATH_CONTROL = {"not": {"type": "string", "pattern": f"[{PATH_CONTROLS}]"}}
SEGMENT = f"(?![. ]*(?:/|$))[^/\\\\:{PATH_CONTROLS}]+"
PACKAGE_PATH_PATTERN = f"^(?![Mm][Aa][Nn][Ii][Ff][Ee][Ss][Tt]\\.[Jj][Ss][Oo][Nn]$){SEGMENT}(?:/{SEGMENT})*$"
FILE_NAME_PATTERN = f"^(?!\\.\\.?$)[^/\\\\{C0}]+$"
BASE64_PATTERN = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
HEADER_BASE64_PATTERN = "^[A-Za-z0-9+/]{130}==$"  # 97 bytes: 32 groups of 3, then 1 byte (2 characters, "==")


def not_above(n):
    """Digit strings of exactly len(n) digits whose value is at most n."""
    alts = []
    for i, ch in enumerate(n):
        d, rest = int(ch), len(n) - i - 1
        if d > 0:
            alts.append(n[:i] + ("0" if d == 1 else f"[0-{d - 1}]") + (f"[0-9]{{{rest}}}" if rest else ""))
    alts.append(n)
    return "(?:" + "|".join(alts) + ")"


# SettingRecord "int": Int64(value) != nil and no leading "+": optional "-", digits (leading zeros
# allowed), within -2^63 ... 2^63 - 1.
INT64_TEXT_PATTERN = ("^(?:0*(?:[0-9]{1,18}|" + not_above("9223372036854775807") + ")|-0*(?:[0-9]{1,18}|"
                      + not_above("9223372036854775808") + "))$")
# SettingRecord "double": Double(value) (strtod's decimal and hexadecimal forms, no whitespace), finite.
DOUBLE_TEXT_PATTERN = ("^[+-]?(?:(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                       "|0[xX](?:[0-9A-Fa-f]+(?:\\.[0-9A-Fa-f]*)?|\\.[0-9A-Fa-f]+)(?:[pP][+-]?[0-9]+)?)$")


def given(name):
    """The member is present and not null (absent and null both mean "not given", CORE-TYPE-002)."""
    return {"required": [name], "properties": {name: {"not": {"type": "null"}}}}


def uuid(description="A UUID, 8-4-4-4-12 hexadecimal digits, either case (MIG-ID-001)."):
    return {"type": "string", "minLength": 36, "maxLength": 36, "pattern": UUID_PATTERN, "description": description}


def non_blank(description):
    return {"type": "string", "pattern": f"[^{WHITE_SPACE}]", "description": description}


def digest(what):
    return {"type": "string", "minLength": 64, "maxLength": 64, "pattern": "^[0-9a-f]{64}$",
            "description": f"{what}: 64 lower-case hexadecimal digits."}


def seconds():
    return {"type": "integer", "minimum": 1000000000, "exclusiveMaximum": 100000000000,
            "description": "Unix seconds in [10^9, 10^11) (MIG-TIME-001)."}


def integer(minimum=None, maximum=None, description=None):
    s = {"type": "integer"}
    if minimum is not None:
        s["minimum"] = minimum
    if maximum is not None:
        s["maximum"] = maximum
    if description:
        s["description"] = description
    return s


def file_name():
    return {"type": "string", "minLength": 1, "maxLength": 255, "pattern": FILE_NAME_PATTERN, **NO_C0,
            "description": ("A plain file name (MIG-EXP-003): not empty, not . or .., no /, \\ or control character "
                            "(U+0000-U+001F). maxLength 255 counts characters; the limit of 255 UTF-8 bytes is "
                            "not expressible.")}


def package_path():
    return {"type": "string", "minLength": 1, "maxLength": 1024, "pattern": PACKAGE_PATH_PATTERN, **NO_PATH_CONTROL,
            "description": ("A package-relative path (MIG-MAN-006, the syntax of MIG-PKG-006): /-separated, no "
                            "leading /, no segment of only dots and spaces (so no empty, . or .. segment), no \\, : "
                            "or control character (U+0000-U+001F, U+007F), not manifest.json in any ASCII case. Not "
                            "expressible: Unicode NFC, case folding beyond ASCII, and the limit of 1024 UTF-8 bytes "
                            "(maxLength counts characters).")}


def base64(description):
    return {"type": "string", "pattern": BASE64_PATTERN, **NO_C0, "description": description}


# ---------------------------------------------------------------------------------------------
# Writing a kind

NOT_EXPRESSED = {"CORE-TYPE-004": TYPE4_WHY,
                 "MIG-ID-002": ("uniqueness of one member (or pair of members) across the elements, UUIDs compared "
                                "case-insensitively: uniqueItems compares whole elements")}
for _rule in CORE_WIRE:
    NOT_EXPRESSED[_rule] = WIRE_WHY

GENERAL = ("Not expressible here: the order of the checks and which violations are reported (a control message "
           "reports its first failing check, the manifest and the exports every independent one: core.md, Order "
           "of checks; x-check-order lists the members in check order), the wire rules CORE-JSON-001 to -006 "
           "(syntax, UTF-8, duplicate member names, size, depth, finite numbers: properties of the text, not of "
           "the parsed instance), integer literals (CORE-TYPE-004: 1.0 is an integer to a schema)")

WRITTEN = {}  # kind -> (file, partly, expressed_at), for control-message's summary


def write(file, kind, section, title, rules, order, schema, partly=None, expressed_at=None):
    """rules: the kind's family rules in check order; the wire and typed-member rules come first.
    partly: rule -> what the schema cannot state; expressed_at: rule -> pointers where it states it exactly."""
    partly = partly or {}
    expressed_at = expressed_at or {}
    rules = CORE_WIRE + CORE_TYPES + rules
    not_expressed = {r: NOT_EXPRESSED[r] for r in rules if r in NOT_EXPRESSED}
    partly = {r: partly[r] for r in rules if r in partly}
    expressed = [r for r in rules if r not in not_expressed and r not in partly]
    specific = [f"{r} (partly: {why})" for r, why in partly.items()]
    specific += [f"{r} ({why})" for r, why in not_expressed.items() if r not in CORE_WIRE and r != "CORE-TYPE-004"]
    description = (f"{title}. Spec/migration.md {section}; rules {', '.join(r for r in rules if r not in CORE_WIRE)}. "
                   f"Expressed here: {', '.join(expressed)}. {GENERAL}"
                   + (f"; and for this kind {'; '.join(specific)}" if specific else "") + ".")
    doc = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": BASE + file + ".schema.json",
        "title": f"Migration: {kind}",
        "description": description,
    }
    doc.update(schema)
    doc["x-kind"] = kind
    doc["x-rules"] = rules
    doc["x-check-order"] = order
    doc["x-rules-expressed"] = expressed
    doc["x-rules-partly-expressed"] = partly
    doc["x-rules-expressed-at"] = {r: expressed_at[r] for r in partly if r in expressed_at}
    doc["x-rules-not-expressed"] = not_expressed
    WRITTEN[kind] = (file, partly, doc["x-rules-expressed-at"])
    # ASCII only: invisible and non-ASCII characters (inside patterns) are written as JSON escapes.
    text = json.dumps(doc, ensure_ascii=True, indent=2) + "\n"
    with open(os.path.join(OUT, file + ".schema.json"), "w", encoding="utf-8") as f:
        f.write(text)


os.makedirs(OUT, exist_ok=True)

# ---------------------------------------------------------------------------------------------
# Control messages (migration.md 5.1; ControlMessageCodec.swift)

TYPES = ["Handshake", "AuthPIN", "StartBackup", "BackupMeta", "StartTransfer", "PauseTransfer", "ResumeTransfer",
         "CancelTransfer", "ChunkAck", "Complete"]
CANCEL_REASONS = ["user-cancelled", "user-declined", "schema-incompatible", "insufficient-space", "pin-locked",
                  "digest-mismatch", "too-many-retransmits", "timeout", "protocol-error", "wrong-password",
                  "store-changed"]


def backup_id(required=True):
    return member(uuid("The backup's id, a UUID (MIG-ID-001)."), required, ["MIG-ID-001"])


def window(required, rule):
    return member(integer(1, 64, "The window, 1 to 64."), required, [rule], integer=True)


def message(type_name, rule, payload_rules, payload, order, section, title, partly=None, expressed_at=None):
    """One control message, `{type, payload}`, with `type` fixed."""
    write(type_name, type_name, section, title, ["MIG-MSG-001"] + payload_rules, ["type", "payload"] + order,
          {"type": "object", "required": ["type", "payload"], "additionalProperties": True,
           "properties": {
               "type": member({"type": "string", "const": type_name}, True, ["MIG-MSG-001"]),
               "payload": member(dict({"type": "object", "additionalProperties": True}, **payload), True,
                                 ["MIG-MSG-001"] + ([rule] if rule else []))}},
          partly, expressed_at)


message("Handshake", "MIG-MSG-002", ["MIG-MSG-002", "MIG-ID-001"], {
    "required": ["protocolVersion", "role", "sessionId", "appVersion", "schemaVersion", "device", "maxWindow",
                 "maxChunkSize"],
    "properties": {
        "protocolVersion": member({"type": "integer", "const": 1, "description": "1, the only version."}, True,
                                  ["MIG-MSG-002"], integer=True),
        "role": member({"type": "string", "enum": ["sender", "receiver"]}, True, ["MIG-MSG-002"]),
        "sessionId": member(uuid("The session's id, a UUID (MIG-ID-001)."), True, ["MIG-ID-001"]),
        "appVersion": member(non_blank("Non-blank."), True, ["MIG-MSG-002"]),
        "schemaVersion": member(integer(1), True, ["MIG-MSG-002"], integer=True),
        "device": member({"type": "object", "required": ["name"], "additionalProperties": True,
                          "properties": {"name": member(non_blank("The device's name, non-blank."), True,
                                                        ["MIG-MSG-002"])}},
                         True, ["MIG-MSG-002"]),
        "maxWindow": member(integer(1, 64, "The most unacknowledged chunks this side accepts."), True,
                            ["MIG-MSG-002"], integer=True),
        "maxChunkSize": member(integer(4096, 16777216, "4096 to 16 MiB."), True, ["MIG-MSG-002"], integer=True)}},
    ["protocolVersion", "role", "sessionId", "appVersion", "schemaVersion", "device.name", "maxWindow",
     "maxChunkSize"],
    "5.1 MIG-MSG-002", "Both sides' greeting")

message("AuthPIN", "MIG-MSG-003", ["MIG-MSG-003"], {
    "description": ("The sender's request {pin} or the receiver's result {result, resumeToken | attemptsLeft}: "
                    "exactly one of pin and result is given."),
    "properties": {
        "pin": member({"type": "string", "minLength": 6, "maxLength": 6, "pattern": "^[0-9]{6}$",
                       "description": "Six ASCII digits (the request)."}, False, ["MIG-MSG-003"]),
        "result": member({"type": "string", "enum": ["accepted", "rejected", "locked"]}, False, ["MIG-MSG-003"])},
    "allOf": [
        {"description": "Exactly one of pin and result (absent and null are not given).", "x-rules": ["MIG-MSG-003"],
         "if": given("pin"), "then": {"not": given("result")}, "else": given("result")},
        {"description": "accepted carries the resume token.", "x-rules": ["MIG-MSG-003"],
         "if": {"required": ["result"], "properties": {"result": {"const": "accepted"}}},
         "then": {"required": ["resumeToken"], "properties": {"resumeToken": member(
             {"type": "string", "minLength": 32, "maxLength": 32, "pattern": "^[0-9a-f]{32}$",
              "description": "32 lower-case hexadecimal digits."}, True, ["MIG-MSG-003"])}}},
        {"description": "rejected carries the attempts left, 1 to 4 (none left is locked).", "x-rules": ["MIG-MSG-003"],
         "if": {"required": ["result"], "properties": {"result": {"const": "rejected"}}},
         "then": {"required": ["attemptsLeft"], "properties": {"attemptsLeft": member(
             integer(1, 4), True, ["MIG-MSG-003"], integer=True)}}}]},
    ["(pin xor result)", "pin", "result", "resumeToken | attemptsLeft"],
    "5.1 MIG-MSG-003", "The PIN request, or its result")

message("StartBackup", None, [], {
    "description": ("The Spec names no member: any object (its members are ignored; the canonical form is "
                    "{\"type\": \"StartBackup\", \"payload\": {}}).")},
    [], "5.1 MIG-MSG-001", "The receiver asks for the backup")

message("BackupMeta", "MIG-MSG-004", ["MIG-ID-001", "MIG-MSG-004"], {
    "required": ["backupId", "fileSize", "chunkSize", "chunkCount", "envelopeSHA256", "zipSize", "schemaVersion",
                 "appVersion"],
    "properties": {
        "backupId": backup_id(),
        "fileSize": member(integer(97, description="The envelope file's size, at least its 97-byte header."), True,
                           ["MIG-MSG-004"], integer=True),
        "chunkSize": member(integer(4096, 16777216, "4096 to 16 MiB."), True, ["MIG-MSG-004"], integer=True),
        "chunkCount": member(integer(1, description=("\u2308fileSize / chunkSize\u2309 (at least 1); the division "
                                                     "is not expressible.")), True, ["MIG-MSG-004"], integer=True),
        "envelopeSHA256": member(digest("The SHA-256 of the whole envelope file"), True, ["MIG-MSG-004"]),
        "zipSize": member(integer(0), True, ["MIG-MSG-004"], integer=True),
        "schemaVersion": member(integer(1), True, ["MIG-MSG-004"], integer=True),
        "appVersion": member(non_blank("Non-blank (the reference's check; 5.1 names the member only)."), True,
                             ["MIG-MSG-004"]),
        "envelopeHeader": member({"type": "string", "minLength": 132, "maxLength": 132,
                                  "pattern": HEADER_BASE64_PATTERN,
                                  "description": "Base64 (RFC 4648, padded) of the envelope's first 97 bytes."},
                                 False, ["MIG-MSG-004"])}},
    ["backupId", "fileSize", "chunkSize", "chunkCount", "envelopeSHA256", "zipSize", "schemaVersion", "appVersion",
     "envelopeHeader"],
    "5.1 MIG-MSG-004", "The sender announces the backup",
    {"MIG-MSG-004": "chunkCount = \u2308fileSize / chunkSize\u2309 (arithmetic across members); chunkCount >= 1 is stated"},
    {"MIG-MSG-004": ["/payload/fileSize", "/payload/chunkSize", "/payload/envelopeSHA256", "/payload/zipSize",
                     "/payload/schemaVersion", "/payload/appVersion", "/payload/envelopeHeader"]})

message("StartTransfer", "MIG-MSG-005", ["MIG-ID-001", "MIG-MSG-005"], {
    "required": ["backupId", "window"],
    "properties": {"backupId": backup_id(), "window": window(True, "MIG-MSG-005")}},
    ["backupId", "window"], "5.1 MIG-MSG-005", "The receiver starts the transfer")

message("PauseTransfer", None, ["MIG-ID-001"], {
    "required": ["backupId"], "properties": {"backupId": backup_id()}},
    ["backupId"], "5.1 MIG-MSG-005", "Either side pauses")

message("ResumeTransfer", "MIG-MSG-005", ["MIG-ID-001", "MIG-MSG-005"], {
    "description": ("{backupId} after a pause, or {backupId, resumeToken, have, window?} after a reconnect: "
                    "resumeToken and have are given together or not at all."),
    "required": ["backupId"],
    "properties": {
        "backupId": backup_id(),
        "resumeToken": member({"type": "string", "description": ("The token AuthPIN gave; the codec reads any "
                                                                 "string (the sender compares it).")},
                              False, ["MIG-MSG-005"]),
        "have": member({"type": "array",
                        "description": ("The chunks the receiver holds, as half-open ranges [from, to), sorted and "
                                        "not touching (not expressible: they compare elements)."),
                        "items": {"type": "array", "minItems": 2, "maxItems": 2,
                                  "x-rules": ["CORE-TYPE-003", "MIG-MSG-005"],
                                  "prefixItems": [integer(0, 4294967294, "from, at least 0"),
                                                  integer(1, 4294967295, "to, above from, at most 2^32 - 1")]}},
                       False, ["MIG-MSG-005"]),
        "window": window(False, "MIG-MSG-005")},
    "allOf": [{"description": "resumeToken and have come together.", "x-rules": ["MIG-MSG-005"],
               "if": given("resumeToken"), "then": given("have"), "else": {"not": given("have")}}]},
    ["backupId", "resumeToken", "have", "(resumeToken and have together)", "have/*", "window"],
    "5.1 MIG-MSG-005", "The transfer resumes after a pause or a reconnect",
    {"MIG-MSG-005": ("that the ranges of have are sorted and not touching, each with from < to (they compare "
                     "elements), and that their bounds are integer literals (the codec reports 0.0 on MIG-MSG-005; "
                     "0.0 is an integer to a schema)")},
    {"MIG-MSG-005": ["/payload/resumeToken", "/payload/have", "/payload/window"]})

message("CancelTransfer", "MIG-MSG-007", ["MIG-ID-001", "MIG-MSG-007"], {
    "required": ["reason"],
    "properties": {"backupId": backup_id(False),
                   "reason": member({"type": "string", "enum": CANCEL_REASONS}, True, ["MIG-MSG-007"])}},
    ["backupId", "reason"], "5.1 MIG-MSG-007", "Either side ends the session")

message("ChunkAck", "MIG-MSG-006", ["MIG-ID-001", "MIG-MSG-006"], {
    "required": ["backupId", "index", "status"],
    "properties": {"backupId": backup_id(),
                   "index": member(integer(0), True, ["MIG-MSG-006"], integer=True),
                   "status": member({"type": "string", "enum": ["ok", "retransmit"]}, True, ["MIG-MSG-006"])}},
    ["backupId", "index", "status"], "5.1 MIG-MSG-006", "The receiver acknowledges a chunk or asks for it again")

message("Complete", "MIG-MSG-008", ["MIG-ID-001", "MIG-MSG-008"], {
    "description": ("The sender's {backupId, chunkCount, envelopeSHA256} or the receiver's {backupId, result}: "
                    "exactly one of chunkCount and result is given."),
    "required": ["backupId"],
    "properties": {
        "backupId": backup_id(),
        "chunkCount": member(integer(1, description="At least 1 (the reference's check)."), False, ["MIG-MSG-008"],
                             integer=True),
        "result": member({"type": "string", "enum": ["verified", "digest-mismatch"]}, False, ["MIG-MSG-008"])},
    "allOf": [
        {"description": "Exactly one of chunkCount (the sender's) and result (the receiver's).",
         "x-rules": ["MIG-MSG-008"], "if": given("chunkCount"), "then": {"not": given("result")},
         "else": given("result")},
        {"description": "The sender's shape carries the envelope's digest.", "x-rules": ["MIG-MSG-008"],
         "if": given("chunkCount"),
         "then": {"required": ["envelopeSHA256"], "properties": {"envelopeSHA256": member(
             digest("The SHA-256 of the whole envelope file"), True, ["MIG-MSG-008"])}}}]},
    ["backupId", "(chunkCount xor result)", "chunkCount", "envelopeSHA256", "result"],
    "5.1 MIG-MSG-008", "The sender's last message, or the receiver's verdict")

# Any control message: type and payload, then the message's own schema.
_partly = {}
_at = {}
for _t in TYPES:
    _, p, a = WRITTEN[_t]
    for r, why in p.items():
        _partly.setdefault(r, []).append(f"{_t}: {why}")
    for r, ptrs in a.items():
        _at.setdefault(r, []).extend(ptrs)
_rules = ["MIG-MSG-001", "MIG-ID-001", "MIG-MSG-002", "MIG-MSG-003", "MIG-MSG-004", "MIG-MSG-005", "MIG-MSG-006",
          "MIG-MSG-007", "MIG-MSG-008"]
write("control-message", "control-message", "5.1", "Any control message {type, payload} (one WebSocket text frame)",
      _rules, ["type", "payload", "(the message's own schema, by type)"],
      {"type": "object", "required": ["type", "payload"], "additionalProperties": True,
       "properties": {
           "type": member({"type": "string", "enum": TYPES, "description": "Case-sensitive, the seed's names."}, True,
                          ["MIG-MSG-001"]),
           "payload": member({"type": "object"}, True, ["MIG-MSG-001"])},
       "allOf": [{"if": {"required": ["type"], "properties": {"type": {"const": t}}}, "then": {"$ref": t + ".schema.json"}}
                 for t in TYPES]},
      {r: "; ".join(whys) for r, whys in _partly.items()},
      {r: sorted(set(p)) for r, p in _at.items()})

# ---------------------------------------------------------------------------------------------
# manifest.json (migration.md 3.2; Manifest.swift)

ENTITIES = ["CategoryEntity", "StoryEntity", "MediaEntity", "SettingEntity"]
write("manifest", "manifest", "3.2 (seed 000 \u00a75)", "manifest.json, the package's table of contents",
      ["MIG-ID-001", "MIG-MAN-002", "MIG-MAN-003", "MIG-TIME-001", "MIG-MAN-004", "MIG-MAN-005", "MIG-MAN-006",
       "MIG-MAN-007"],
      ["backupId", "appVersion", "schemaVersion", "createdAt", "entityStats", "mediaStats", "integrity", "options",
       "brokenMedia/*"],
      {"type": "object",
       "required": ["backupId", "appVersion", "schemaVersion", "createdAt", "entityStats", "mediaStats", "integrity",
                    "options"],
       "additionalProperties": True,
       "properties": {
           "backupId": member(uuid(), True, ["MIG-ID-001"]),
           "appVersion": member(non_blank("Non-blank (MIG-MAN-002)."), True, ["MIG-MAN-002"]),
           "schemaVersion": member(integer(1, description=(
               "At least 1 and at most the newest schema the receiver imports (context supportedSchemaVersion, "
               "default 1): only the lower bound is stated.")), True, ["MIG-MAN-003"], integer=True),
           "createdAt": member(seconds(), True, ["MIG-TIME-001"], integer=True),
           "entityStats": member({"type": "object", "required": ENTITIES, "additionalProperties": False,
                                  "description": "Exactly the four entities, each {count} (MIG-MAN-004).",
                                  "x-check-order": ENTITIES + ["(no other member)"],
                                  "properties": {e: member({"type": "object", "required": ["count"],
                                                            "additionalProperties": True,
                                                            "properties": {"count": member(integer(0), True,
                                                                                           ["MIG-MAN-004"],
                                                                                           integer=True)}},
                                                           True, ["MIG-MAN-004"]) for e in ENTITIES}},
                                 True, ["MIG-MAN-004"]),
           "mediaStats": member({"type": "object", "required": ["totalFiles", "totalBytes"], "additionalProperties": True,
                                 "properties": {"totalFiles": member(integer(0), True, ["MIG-MAN-005"], integer=True),
                                                "totalBytes": member(integer(0), True, ["MIG-MAN-005"], integer=True)}},
                                True, ["MIG-MAN-005"]),
           "integrity": member({"type": "object", "required": ["hashAlgorithm", "files"], "additionalProperties": True,
                                "x-check-order": ["zipSize", "zipSHA256", "hashAlgorithm", "files/*/path",
                                                  "(each path once)", "files/*/size", "files/*/sha256"],
                                "properties": {
                                    "zipSize": {"not": {}, "x-rules": ["MIG-MAN-006"],
                                                "description": "MUST NOT be present, not even as null."},
                                    "zipSHA256": {"not": {}, "x-rules": ["MIG-MAN-006"],
                                                  "description": "MUST NOT be present, not even as null."},
                                    "hashAlgorithm": member({"type": "string", "const": "SHA256"}, True, ["MIG-MAN-006"]),
                                    "files": member({"type": "array", "description": (
                                        "Every file of the package but manifest.json, each once (uniqueness of "
                                        "path is not expressible)."),
                                        "items": {"type": "object", "required": ["path", "size", "sha256"],
                                                  "additionalProperties": True, "x-rules": ["CORE-TYPE-003", "MIG-MAN-006"],
                                                  "properties": {
                                                      "path": member(package_path(), True, ["MIG-MAN-006"]),
                                                      "size": member(integer(0), True, ["MIG-MAN-006"], integer=True),
                                                      "sha256": member(digest("The file's SHA-256"), True,
                                                                       ["MIG-MAN-006"])}}},
                                                    True, ["MIG-MAN-006"])}},
                               True, ["MIG-MAN-006"]),
           "options": member({"type": "object", "required": ["hasBrokenMedia", "brokenMediaCount"],
                              "additionalProperties": True,
                              "properties": {"hasBrokenMedia": member({"type": "boolean"}, True, ["MIG-MAN-007"]),
                                             "brokenMediaCount": member(integer(0), True, ["MIG-MAN-007"],
                                                                        integer=True)}},
                             True, ["MIG-MAN-007"]),
           "brokenMedia": member({"type": "array",
                                  "items": {"type": "object", "required": ["mediaId", "fileName", "reason"],
                                            "additionalProperties": True, "x-rules": ["CORE-TYPE-003", "MIG-MAN-007"],
                                            "properties": {
                                                "mediaId": member(uuid(), True, ["MIG-ID-001", "MIG-MAN-007"]),
                                                "fileName": member({"type": "string"}, True, ["MIG-MAN-007"]),
                                                "reason": member({"type": "string",
                                                                  "enum": ["FILE_NOT_FOUND", "READ_ERROR"]},
                                                                 True, ["MIG-MAN-007"])}}},
                                 False, ["MIG-MAN-007"])}},
      {"MIG-MAN-003": ("the upper bound, the newest schema the receiver imports (context supportedSchemaVersion, "
                       "default 1); the lower bound 1 is stated"),
       "MIG-MAN-006": ("that each path is listed once, also ignoring case (uniqueItems compares whole entries, "
                       "exactly), that a path is in Unicode NFC, that it is not manifest.json under Unicode case "
                       "folding beyond ASCII, and the limit of 1024 UTF-8 bytes per path (maxLength counts "
                       "characters)")},
      {"MIG-MAN-006": ["/integrity/zipSize", "/integrity/zipSHA256", "/integrity/hashAlgorithm",
                       "/integrity/files/*/size", "/integrity/files/*/sha256"]})

# ---------------------------------------------------------------------------------------------
# The exports (migration.md 3.3; Exports.swift): arrays of elements, every element checked on its own.


def export(kind, section, title, rules, order, required, properties, partly=None, expressed_at=None, extra=None):
    element = {"type": "object", "required": required, "additionalProperties": True,
               "x-rules": ["CORE-TYPE-003"] + [r for r in rules if r != "MIG-ID-002"], "properties": properties}
    if extra:
        element.update(extra)
    write(kind, kind, section, title, rules, order + ["(MIG-ID-002 among the elements that passed)"],
          {"type": "array", "items": element}, partly, expressed_at)


export("categories", "3.3 (seed 000 \u00a76.1)", "coredata/categories.json, an array of categories",
       ["MIG-ID-001", "MIG-EXP-001", "MIG-TIME-001", "MIG-ID-002"],
       ["id", "name", "nameEn", "colorHex", "level", "parentId", "iconName", "iconType", "customIconData", "sortOrder",
        "createdAt"],
       ["id", "name", "colorHex", "level", "iconName", "iconType", "sortOrder", "createdAt"],
       {"id": member(uuid(), True, ["MIG-ID-001", "MIG-ID-002"]),
        "name": member(non_blank("Non-blank (MIG-EXP-001)."), True, ["MIG-EXP-001"]),
        "nameEn": member({"type": "string"}, False, []),
        "colorHex": member({"type": "string", "minLength": 7, "maxLength": 7, "pattern": "^#[0-9A-Fa-f]{6}$",
                            "description": "#RRGGBB, hexadecimal digits of either case."}, True, ["MIG-EXP-001"]),
        "level": member(integer(1), True, ["MIG-EXP-001"], integer=True),
        "parentId": member(uuid("The parent category, a UUID (MIG-ID-001)."), False, ["MIG-ID-001"]),
        "iconName": member({"type": "string"}, True, []),
        "iconType": member({"type": "string", "enum": ["system", "custom"]}, True, ["MIG-EXP-001"]),
        "customIconData": member(base64("Standard base64 (RFC 4648, padded); the empty string is no bytes."), False,
                                 ["MIG-EXP-001"]),
        "sortOrder": member(integer(), True, [], integer=True),
        "createdAt": member(seconds(), True, ["MIG-TIME-001"], integer=True)})

export("stories", "3.3 (seed 000 \u00a76.2)", "coredata/stories.json, an array of stories",
       ["MIG-ID-001", "MIG-TIME-001", "MIG-EXP-002", "MIG-ID-002"],
       ["id", "title", "content", "plainTextContent", "createdAt", "updatedAt", "(updatedAt >= createdAt)", "timestamp",
        "isDeleted", "syncStatus", "mood", "locationName", "locationAddress", "locationCity", "latitude", "longitude",
        "horizontalAccuracy", "verticalAccuracy"],
       ["id", "createdAt", "updatedAt", "timestamp", "isDeleted", "syncStatus", "latitude", "longitude",
        "horizontalAccuracy", "verticalAccuracy"],
       {"id": member(uuid(), True, ["MIG-ID-001", "MIG-ID-002"]),
        "title": member({"type": "string"}, False, []),
        "content": member({"type": "string"}, False, []),
        "plainTextContent": member({"type": "string"}, False, []),
        "createdAt": member(seconds(), True, ["MIG-TIME-001"], integer=True),
        "updatedAt": member(seconds(), True, ["MIG-TIME-001", "MIG-EXP-002"], integer=True,
                            description="Not before createdAt (MIG-EXP-002; not expressible: it compares two members)."),
        "timestamp": member(seconds(), True, ["MIG-TIME-001"], integer=True),
        "isDeleted": member({"type": "boolean"}, True, []),
        "syncStatus": member(integer(), True, [], integer=True),
        "mood": member({"type": "string"}, False, []),
        "locationName": member({"type": "string"}, False, []),
        "locationAddress": member({"type": "string"}, False, []),
        "locationCity": member({"type": "string"}, False, []),
        "latitude": member({"type": "number", "minimum": -90, "maximum": 90}, True, ["MIG-EXP-002"]),
        "longitude": member({"type": "number", "minimum": -180, "maximum": 180}, True, ["MIG-EXP-002"]),
        "horizontalAccuracy": member({"type": "number", "anyOf": [{"minimum": 0}, {"const": -1}],
                                      "description": "At least 0, or -1 for not measured."}, True, ["MIG-EXP-002"]),
        "verticalAccuracy": member({"type": "number", "anyOf": [{"minimum": 0}, {"const": -1}],
                                    "description": "At least 0, or -1 for not measured."}, True, ["MIG-EXP-002"])},
       {"MIG-EXP-002": "updatedAt not before createdAt (it compares two members)"},
       {"MIG-EXP-002": ["/*/latitude", "/*/longitude", "/*/horizontalAccuracy", "/*/verticalAccuracy"]})

export("media", "3.3 (seed 000 \u00a76.3)", "coredata/media.json, an array of media elements",
       ["MIG-ID-001", "MIG-EXP-003", "MIG-TIME-001", "MIG-ID-002"],
       ["id", "type", "fileName", "thumbnailFileName", "encryptionKeyId", "fileSize", "width", "height", "duration",
        "createdAt", "storyId"],
       ["id", "type", "fileName", "encryptionKeyId", "fileSize", "width", "height", "duration", "createdAt"],
       {"id": member(uuid(), True, ["MIG-ID-001", "MIG-ID-002"]),
        "type": member({"type": "string", "enum": ["image", "video"]}, True, ["MIG-EXP-003"]),
        "fileName": member(file_name(), True, ["MIG-EXP-003"]),
        "thumbnailFileName": member(file_name(), False, ["MIG-EXP-003"]),
        "encryptionKeyId": member(non_blank("Non-blank (MIG-EXP-003)."), True, ["MIG-EXP-003"]),
        "fileSize": member(integer(0), True, ["MIG-EXP-003"], integer=True),
        "width": member(integer(0), True, ["MIG-EXP-003"], integer=True),
        "height": member(integer(0), True, ["MIG-EXP-003"], integer=True),
        "duration": member({"type": "number", "minimum": 0, "description": "Seconds, at least 0."}, True,
                           ["MIG-EXP-003"]),
        "createdAt": member(seconds(), True, ["MIG-TIME-001"], integer=True),
        "storyId": member(uuid("The story, a UUID (MIG-ID-001)."), False, ["MIG-ID-001"])},
       {"MIG-EXP-003": "the limit of 255 UTF-8 bytes per file name (maxLength counts characters)"},
       {"MIG-EXP-003": ["/*/type", "/*/encryptionKeyId", "/*/fileSize", "/*/width", "/*/height", "/*/duration"]})

SETTING_TYPES = ["bool", "int", "double", "string", "json"]
VALUE_FORMS = [
    ("bool", {"enum": ["true", "false"], "description": "\"true\" or \"false\"."}),
    ("int", {"pattern": INT64_TEXT_PATTERN, **NO_C0,
             "description": "A decimal integer within -2^63 ... 2^63 - 1: optional -, digits (leading zeros allowed), no +."}),
    ("double", {"pattern": DOUBLE_TEXT_PATTERN, **NO_C0,
                "description": ("A number as strtod reads it (decimal or hexadecimal, optional sign, no whitespace); "
                                "that it is finite (1e999 overflows) is not expressible.")}),
]
export("settings", "3.3 (seed 000 \u00a76.4)", "coredata/settings.json, an array of settings",
       ["MIG-EXP-004", "MIG-TIME-001", "MIG-ID-002"],
       ["key", "type", "value", "(value in the form of type)", "updatedAt"],
       ["key", "type", "value", "updatedAt"],
       {"key": member(non_blank("Non-blank, unique within the file (MIG-EXP-004, MIG-ID-002)."), True,
                      ["MIG-EXP-004", "MIG-ID-002"]),
        "type": member({"type": "string", "enum": SETTING_TYPES}, True, ["MIG-EXP-004"]),
        "value": member({"type": "string", "description": (
            "The string form of type: bool, int and double as stated below, string anything, json a JSON text "
            "under core.md (not expressible).")}, True, ["MIG-EXP-004"]),
        "updatedAt": member(seconds(), True, ["MIG-TIME-001"], integer=True)},
       {"MIG-EXP-004": ("that a json value is a JSON text under core.md and that a double value is finite once "
                        "parsed; the forms of bool, int (64-bit range) and double values are stated")},
       {"MIG-EXP-004": ["/*/key", "/*/type"]},
       {"allOf": [{"description": f"A {t} setting's value.", "x-rules": ["MIG-EXP-004"],
                   "if": {"required": ["type"], "properties": {"type": {"const": t}}},
                   "then": {"properties": {"value": dict({"type": "string"}, **form, **{"x-rules": ["MIG-EXP-004"]})}}}
                  for t, form in VALUE_FORMS]})

export("relations_story_categories", "3.3 (seed 000 \u00a76.5)",
       "coredata/relations_story_categories.json, an array of story-category pairs",
       ["MIG-ID-001", "MIG-ID-002"], ["storyId", "categoryId"], ["storyId", "categoryId"],
       {"storyId": member(uuid(), True, ["MIG-ID-001", "MIG-ID-002"]),
        "categoryId": member(uuid(), True, ["MIG-ID-001", "MIG-ID-002"])})

# ---------------------------------------------------------------------------------------------
# The store after a session (migration.md 4, MIG-REST-001): three inventories and how it ended.


def inventory(what):
    return {"type": "array", "description": f"{what}: one element per file.", "x-rules": ["MIG-REST-001"],
            "items": {"type": "object", "required": ["path", "sha256"], "x-rules": ["MIG-REST-001"],
                      "properties": {"path": {"type": "string", "description": "The file's path, relative to the package's folder or the store.",
                                              "x-rules": ["MIG-REST-001"]},
                                     "sha256": dict(digest("The file's SHA-256"), **{"x-rules": ["MIG-REST-001"]})}}}


write("restored-store", "restored-store", "4", "A receiver's store before and after a session, and the package it was sent",
      ["MIG-REST-001"], ["outcome", "package", "before", "after", "(the store compared by content or as it was)"],
      {"type": "object", "required": ["outcome", "package", "before", "after"],
       "properties": {"outcome": {"enum": ["verified", "refused"], "x-rules": ["MIG-REST-001"],
                                  "description": "verified: Complete with result verified; refused: any other ending."},
                      "package": inventory("Every file of the package, manifest.json included"),
                      "before": inventory("The store before the session"),
                      "after": inventory("The store after it")}},
      {"MIG-REST-001": ("the comparison itself: the package's files by content once verified, the store path for path "
                        "and digest for digest otherwise; the members' forms are stated")},
      {"MIG-REST-001": ["/outcome", "/package/*/sha256", "/before/*/sha256", "/after/*/sha256"]})
