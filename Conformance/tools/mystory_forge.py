"""Writes and strictly reads MyStory's own backup container, `MYSTBACK1`.

MyStory (GavinZL/MyStory, the app of the migration seed) does not write the Spec's package. Since
d3d35d73329c2a959d96478b19a0ec4d9a577dc3 its backup file `backup-<UUID>.bin` is this container,
unencrypted. Before that the same container was sealed once with AES-GCM into `backup-<UUID>.enc`
(not reproduced here: AES-GCM is not in the standard library). See
Conformance/known-implementations/mystory.md for the evidence.

Layout (all offsets in bytes):

    0   9        magic, the ASCII bytes "MYSTBACK1" (no NUL, no newline)
    9   8        L = byte length of the JSON document, UInt64 little-endian
    17  L        the JSON document: `BackupPayload`, UTF-8, written by JSONEncoder
    17+L ...     the media files' bytes, concatenated in `mediaFiles` order, nothing between
                 them; file i is `mediaFiles[i].fileSize` bytes. No trailer, no checksum.

Source lines this follows, in GavinZL/MyStory at d3d35d7 (`path line`):
- writer: MyStory/Services/MigrationBackupService.swift 312-316 (format comment), 328-330
  (`JSONEncoder`, `.iso8601` dates, default options otherwise), 340-342 (magic, `"MYSTBACK1"`
  as UTF-8), 345-348 (`UInt64(jsonData.count)` in host order, little-endian on iOS), 351 (JSON),
  358-373 (each `mediaFiles` entry's file, whole, in order; a file missing at write time is
  skipped but stays listed); the document's type `BackupPayload` 12-100, filled 131-247, media
  list 251-308 (`relativePath` under Documents/Media, `fileSize` from `.fileSizeKey`).
- reader: MyStory/Services/MigrationRestoreService.swift 130-170 (9-byte magic compared as a
  UTF-8 string, 8-byte length loaded as a host-order UInt64, exactly L bytes of JSON, decoded
  with `JSONDecoder` and `.iso8601` into `BackupPayload` 12-93, media offsets 17 + L + the sum of
  the earlier `fileSize`s), 196-214 (each file read from its offset; a short read ends it silently;
  written to Documents/Media/<relativePath> without any containment check).

What `write` cannot promise byte for byte: the JSON text. The framing is exact; the document is
encoded as Foundation's JSONEncoder is documented to encode it (compact, `/` escaped as `\\/`,
nil optionals omitted, dates ISO 8601 in UTC without fractions, `Data` as base64, UUIDs upper case),
with members in the struct's declaration order. JSONEncoder without `.sortedKeys` does not promise
a member order, and its number and control-character formatting is not specified by the app's
code, so a device's JSON can differ from this one in those respects only (same document).

`read` is stricter than the app: it refuses what the app would silently mis-restore (see
MystoryError messages), and the consistency checks (`consistency=True`) hold for every file the
app's writer produces (counts, sizes, flags computed in the same pass).

    python3 mystory_forge.py sample OUT [--legacy]   write a small sample container
    python3 mystory_forge.py read IN                 check IN and print a summary
    python3 mystory_forge.py selftest                round trips and refusals
"""
import base64
import datetime
import hashlib
import json
import math
import re
import struct
import sys

MAGIC = b"MYSTBACK1"  # MigrationBackupService.swift 340 (d3d35d7)
LENGTH_FORMAT = "<Q"  # UInt64, host order = little-endian on every iOS device (345-348)
HEADER_LENGTH = len(MAGIC) + 8  # 17: MigrationRestoreService.swift 163 (d3d35d7)
SCHEMA_VERSION = 1  # MigrationBackupService.swift 224 (d3d35d7); never checked by the reader

INT16 = (-(2 ** 15), 2 ** 15 - 1)
INT32 = (-(2 ** 31), 2 ** 31 - 1)
INT64 = (-(2 ** 63), 2 ** 63 - 1)  # Swift `Int` on 64-bit iOS

# BackupPayload and its nested types, members in declaration order: (name, type, optional).
# MigrationRestoreService.swift 12-93 (d3d35d7) is the decoder of record; the writer's struct
# (MigrationBackupService.swift 12-100) is the same without masterKeyBase64.
ENTITY_STATS = (("categoryCount", "int", False), ("storyCount", "int", False), ("mediaCount", "int", False))
MEDIA_STATS = (("totalFiles", "int", False), ("totalBytes", "int64", False))
CATEGORY = (("id", "uuid", False), ("name", "string", False), ("nameEn", "string", True),
            ("colorHex", "string", True), ("level", "int16", False), ("sortOrder", "int32", False),
            ("createdAt", "date", False), ("iconName", "string", True), ("iconType", "string", True),
            ("customIconData", "data", True), ("parentId", "uuid", True))
STORY = (("id", "uuid", False), ("title", "string", True), ("content", "string", True),
         ("plainTextContent", "string", True), ("createdAt", "date", False), ("updatedAt", "date", False),
         ("timestamp", "date", False), ("syncStatus", "int16", False), ("mood", "string", True),
         ("locationName", "string", True), ("locationAddress", "string", True),
         ("locationCity", "string", True), ("latitude", "double", False), ("longitude", "double", False),
         ("horizontalAccuracy", "double", False), ("verticalAccuracy", "double", False))
# 76355a1's StoryDTO had `isDeleted: Bool` after `timestamp` (its writer line 47); later decoders
# ignore it (Codable ignores unknown keys).
STORY_76355A1 = STORY[:7] + (("isDeleted", "bool", False),) + STORY[7:]
MEDIA = (("id", "uuid", False), ("type", "string", True), ("fileName", "string", True),
         ("thumbnailFileName", "string", True), ("createdAt", "date", False), ("width", "int32", False),
         ("height", "int32", False), ("duration", "double", False), ("storyId", "uuid", True))
RELATION = (("storyId", "uuid", False), ("categoryId", "uuid", False))
MEDIA_FILE = (("relativePath", "string", False), ("fileSize", "int64", False))
PAYLOAD = (("backupId", "uuid", False), ("appVersion", "string", False), ("schemaVersion", "int", False),
           ("createdAt", "date", False), ("entityStats", ENTITY_STATS, False), ("mediaStats", MEDIA_STATS, False),
           ("hasBrokenMedia", "bool", False), ("brokenMediaCount", "int", False),
           ("masterKeyBase64", "string", True),  # written up to d3d35d7's parent; reader: optional
           ("categories", [CATEGORY], False), ("stories", [STORY], False), ("media", [MEDIA], False),
           ("relationsStoryCategories", [RELATION], False), ("mediaFiles", [MEDIA_FILE], False))
PAYLOAD_76355A1 = tuple((n, [STORY_76355A1], o) if n == "stories" else (n, k, o) for n, k, o in PAYLOAD)

UUID_RE = re.compile(r"\A[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z")
# ISO8601DateFormatter's internet date-time, which JSONDecoder's `.iso8601` uses: no fraction.
DATE_RE = re.compile(r"\A(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})\Z")


class MystoryError(ValueError):
    """A container the strict reader refuses: `where` is a byte offset (int) or a JSON path (str)."""

    def __init__(self, where, message):
        super().__init__(f"{where}: {message}")
        self.where, self.message = where, message


# ---------------------------------------------------------------- JSON as JSONEncoder writes it

def _string(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "/":
            out.append("\\/")  # JSONEncoder escapes '/' unless .withoutEscapingSlashes is set
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif o < 0x20:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)  # non-ASCII as raw UTF-8
    out.append('"')
    return "".join(out)


def _number(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if not math.isfinite(v):
        raise MystoryError("(json)", "JSONEncoder throws on a non-finite Double")
    if v == int(v) and abs(v) < 2 ** 53:
        return str(int(v))  # Foundation writes an integral Double without ".0"
    return repr(v)


def encode_json(value):
    """The compact JSON text of `value` (dicts in their order; None members already dropped)."""
    if isinstance(value, dict):
        return "{" + ",".join(_string(k) + ":" + encode_json(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(encode_json(v) for v in value) + "]"
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    return _number(value)


def _shaped(value, schema):
    """`value` with known members in declaration order, unknown ones after, None optionals dropped
    (synthesized Encodable uses encodeIfPresent for optionals)."""
    if isinstance(schema, list):
        return [_shaped(v, schema[0]) for v in value] if isinstance(value, list) else value
    if not isinstance(schema, tuple) or not isinstance(value, dict):
        return value
    out = {}
    known = {name for name, _, _ in schema}
    for name, kind, optional in schema:
        if name in value and not (optional and value[name] is None):
            out[name] = _shaped(value[name], kind)
    for name, v in value.items():
        if name not in known and v is not None:
            out[name] = v
    return out


# ---------------------------------------------------------------- the decoder's type checks

def _check_value(v, kind, path):
    if isinstance(kind, tuple):
        _check_object(v, kind, path)
    elif isinstance(kind, list):
        if not isinstance(v, list):
            raise MystoryError(path, "expected an array")
        for i, e in enumerate(v):
            _check_value(e, kind[0], f"{path}/{i}")
    elif kind == "string":
        if not isinstance(v, str):
            raise MystoryError(path, "expected a string")
    elif kind == "bool":
        if not isinstance(v, bool):
            raise MystoryError(path, "expected true or false")
    elif kind in ("int", "int16", "int32", "int64"):
        if isinstance(v, bool) or not isinstance(v, int):
            raise MystoryError(path, f"expected an integer ({kind}) without fraction or exponent")
        lo, hi = {"int": INT64, "int64": INT64, "int16": INT16, "int32": INT32}[kind]
        if not lo <= v <= hi:
            raise MystoryError(path, f"outside {kind}")
    elif kind == "double":
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise MystoryError(path, "expected a finite number")
    elif kind == "uuid":
        if not isinstance(v, str) or not UUID_RE.match(v):
            raise MystoryError(path, "expected a UUID string 8-4-4-4-12 (Swift UUID(uuidString:))")
    elif kind == "date":
        m = DATE_RE.match(v) if isinstance(v, str) else None
        if not m:
            raise MystoryError(path, "expected an ISO 8601 date-time like 2026-02-24T08:30:00Z "
                                     "(JSONDecoder .iso8601 refuses fractions and numbers)")
        try:
            datetime.datetime(*(int(x) for x in m.groups()[:6]))
        except ValueError:
            raise MystoryError(path, "not a calendar date-time") from None
    elif kind == "data":
        try:
            if not isinstance(v, str):
                raise ValueError
            base64.b64decode(v.encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError):
            raise MystoryError(path, "expected standard base64 with padding (Data(base64Encoded:))") from None
    else:
        raise AssertionError(kind)


def _check_object(v, schema, path):
    if not isinstance(v, dict):
        raise MystoryError(path or "/", "expected an object")
    for name, kind, optional in schema:
        here = f"{path}/{name}"
        if name not in v or v[name] is None:
            if optional:
                continue
            raise MystoryError(here, "required member missing (keyNotFound/valueNotFound)")
        _check_value(v[name], kind, here)
    # Unknown members are ignored, as Codable ignores them (e.g. 76355a1's stories[].isDeleted).


def _check_relative_path(p, path):
    segments = p.split("/")
    if (not p or p.startswith("/") or any(s in ("", ".", "..") for s in segments)
            or "\\" in p or any(ord(c) < 0x20 for c in p)):
        raise MystoryError(path, f"unsafe relativePath {p!r}: the app writes Documents/Media/<relativePath> "
                                 "with no containment check (MigrationRestoreService.swift 211-214)")


def check_document(doc, consistency=True):
    """Raises MystoryError unless `doc` decodes as BackupPayload (and, with `consistency`, unless it
    has the invariants MyStory's writer always produces)."""
    _check_object(doc, PAYLOAD, "")
    seen = set()
    for i, f in enumerate(doc["mediaFiles"]):
        here = f"/mediaFiles/{i}"
        _check_relative_path(f["relativePath"], here + "/relativePath")
        if f["relativePath"] in seen:
            raise MystoryError(here + "/relativePath", "listed twice")
        seen.add(f["relativePath"])
        if f["fileSize"] < 0:
            raise MystoryError(here + "/fileSize", "negative: the reader's offsets would run backwards")
    if not consistency:
        return
    stats, counts = doc["entityStats"], (("categoryCount", "categories"), ("storyCount", "stories"),
                                         ("mediaCount", "media"))
    for member, array in counts:  # MigrationBackupService.swift 226-230 (d3d35d7)
        if stats[member] != len(doc[array]):
            raise MystoryError(f"/entityStats/{member}", f"{stats[member]}, but {array} has {len(doc[array])}")
    files = doc["mediaFiles"]  # 293-295, 305
    if doc["mediaStats"]["totalFiles"] != len(files):
        raise MystoryError("/mediaStats/totalFiles", f"{doc['mediaStats']['totalFiles']}, but mediaFiles has {len(files)}")
    total = sum(f["fileSize"] for f in files)
    if doc["mediaStats"]["totalBytes"] != total:
        raise MystoryError("/mediaStats/totalBytes", f"{doc['mediaStats']['totalBytes']}, but the fileSizes sum to {total}")
    if doc["hasBrokenMedia"] != (doc["brokenMediaCount"] > 0) or doc["brokenMediaCount"] < 0:  # 306
        raise MystoryError("/hasBrokenMedia", "must be true exactly when brokenMediaCount > 0")
    if doc["schemaVersion"] != SCHEMA_VERSION:  # 224
        raise MystoryError("/schemaVersion", f"{doc['schemaVersion']}; every stored writer writes 1")


# ---------------------------------------------------------------- container

def build(document, media, check=True):
    """The container's bytes. `media` is [(relativePath, bytes)] in order. Without a `mediaFiles`
    member, the document gets one from `media`. With `check`, the document must decode as the app
    decodes it and match `media` exactly; without it, anything is written (for negative tests)."""
    doc = dict(document)
    if "mediaFiles" not in doc:
        doc["mediaFiles"] = [{"relativePath": name, "fileSize": len(data)} for name, data in media]
    legacy = any(isinstance(s, dict) and "isDeleted" in s for s in doc.get("stories") or [])
    doc = _shaped(doc, PAYLOAD_76355A1 if legacy else PAYLOAD)  # isDeleted after timestamp, as 76355a1
    if check:
        check_document(doc)
        listed = [(f["relativePath"], f["fileSize"]) for f in doc["mediaFiles"]]
        given = [(name, len(data)) for name, data in media]
        if listed != given:
            raise MystoryError("/mediaFiles", "must list the media given, in order, with their sizes")
    text = encode_json(doc).encode("utf-8")
    return MAGIC + struct.pack(LENGTH_FORMAT, len(text)) + text + b"".join(data for _, data in media)


def write(path, document, media, check=True):
    """Writes the container of `document` and `media` ([(relativePath, bytes)]) to `path`."""
    data = build(document, media, check=check)
    with open(path, "wb") as f:
        f.write(data)
    return data


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise MystoryError(f"/{k}", "member appears twice")
        out[k] = v
    return out


def _no_constants(name):
    raise MystoryError("(json)", f"{name} is not JSON")


def parse(data, consistency=True):
    """(document, [(relativePath, bytes)]) of a container's bytes, or MystoryError."""
    if len(data) < len(MAGIC) or data[:len(MAGIC)] != MAGIC:
        raise MystoryError(0, f"magic is not {MAGIC!r} (the app: code -11 '备份文件格式不正确')")
    if len(data) < HEADER_LENGTH:
        raise MystoryError(len(MAGIC), "file ends inside the 8-byte length (the app: code -12)")
    (length,) = struct.unpack_from(LENGTH_FORMAT, data, len(MAGIC))
    end = HEADER_LENGTH + length
    if length == 0 or end > len(data):
        raise MystoryError(len(MAGIC), f"JSON length {length} does not fit the file of {len(data)} bytes "
                                       "(the app: code -13, or a decoding error for 0)")
    raw = data[HEADER_LENGTH:end]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MystoryError(HEADER_LENGTH + e.start, "JSON is not UTF-8") from None
    if text.startswith("\ufeff"):
        raise MystoryError(HEADER_LENGTH, "JSON starts with a byte order mark")
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except json.JSONDecodeError as e:
        raise MystoryError(HEADER_LENGTH + len(text[:e.pos].encode("utf-8")), f"not JSON: {e.msg}") from None
    check_document(doc, consistency=consistency)
    media, offset = [], end
    for f in doc["mediaFiles"]:
        size = f["fileSize"]
        if offset + size > len(data):
            raise MystoryError(offset, f"{f['relativePath']!r} needs {size} bytes, {len(data) - offset} remain "
                                       "(the app would write a truncated file without an error)")
        media.append((f["relativePath"], data[offset:offset + size]))
        offset += size
    if offset != len(data):
        raise MystoryError(offset, f"{len(data) - offset} bytes after the last listed file "
                                   "(the app ignores them; its writer never leaves any)")
    return doc, media


def read(path, consistency=True):
    """(document, [(relativePath, bytes)]) of the container at `path`; MystoryError if it is not one."""
    with open(path, "rb") as f:
        return parse(f.read(), consistency=consistency)


# ---------------------------------------------------------------- sample

def sample(legacy=False):
    """A small document and its media, shaped as d3d35d7 writes them (with `legacy`, as the
    plaintext inside a 76355a1 `.enc`: stories carry isDeleted, and masterKeyBase64 is set).
    The media bytes are placeholders, not decodable images."""
    backup_id = "6F1C2B9E-3D4A-4E5F-8A7B-1C2D3E4F5A6B"
    parent_id, child_id = "0A1B2C3D-4E5F-4A6B-8C7D-8E9FA0B1C2D3", "1B2C3D4E-5F6A-4B7C-9D8E-9FA0B1C2D3E4"
    story_id, media_id = "2C3D4E5F-6A7B-4C8D-8E9F-A0B1C2D3E4F5", "3D4E5F6A-7B8C-4D9E-9FA0-B1C2D3E4F5A6"
    file_id = "4E5F6A7B-8C9D-4EAF-A0B1-C2D3E4F5A6B7"
    image = b"\x00\x00\x00\x18ftypheic" + b"placeholder image bytes / \xff\x00"
    thumb = b"\x00\x00\x00\x18ftypheic" + b"thumb"
    media = [(f"Images/2026/02/{file_id}.heic", image), (f"Images/2026/02/{file_id}_thumb.heic", thumb)]
    story = {"id": story_id, "title": "搬家那天", "content": "**新家**的第一晚 / first night",
             "plainTextContent": "新家的第一晚 / first night", "createdAt": "2026-02-24T08:30:00Z",
             "updatedAt": "2026-02-24T09:00:00Z", "timestamp": "2026-02-23T20:15:00Z", "syncStatus": 0,
             "mood": "happy", "locationName": "家", "locationAddress": "Hangzhou", "locationCity": "杭州",
             "latitude": 30.274084, "longitude": 120.15507, "horizontalAccuracy": 35.0,
             "verticalAccuracy": -1.0}
    if legacy:
        story["isDeleted"] = False  # placed after timestamp by build()
    doc = {
        "backupId": backup_id, "appVersion": "1.0.0", "schemaVersion": 1, "createdAt": "2026-02-24T10:00:00Z",
        "entityStats": {"categoryCount": 2, "storyCount": 1, "mediaCount": 1},
        "mediaStats": {"totalFiles": len(media), "totalBytes": sum(len(d) for _, d in media)},
        "hasBrokenMedia": False, "brokenMediaCount": 0,
        "masterKeyBase64": base64.b64encode(bytes(range(32))).decode("ascii") if legacy else None,
        "categories": [
            {"id": parent_id, "name": "生活", "nameEn": "Life", "colorHex": "#FF6B6B", "level": 1, "sortOrder": 0,
             "createdAt": "2026-01-05T12:00:00Z", "iconName": "house.fill", "iconType": "system"},
            {"id": child_id, "name": "搬家", "colorHex": "#4ECDC4", "level": 2, "sortOrder": 1,
             "createdAt": "2026-02-01T12:00:00Z", "iconType": "custom",
             "customIconData": base64.b64encode(b"\x89PNG\r\n\x1a\nicon").decode("ascii"), "parentId": parent_id},
        ],
        "stories": [story],
        "media": [{"id": media_id, "type": "image", "fileName": f"{file_id}.heic",
                   "thumbnailFileName": f"{file_id}_thumb.heic", "createdAt": "2026-02-24T08:31:00Z",
                   "width": 4032, "height": 3024, "duration": 0.0, "storyId": story_id}],
        "relationsStoryCategories": [{"storyId": story_id, "categoryId": child_id}],
    }
    return doc, media


def _summary(doc, media, data):
    length = struct.unpack_from(LENGTH_FORMAT, data, len(MAGIC))[0]
    return {"bytes": len(data), "jsonLength": length, "mediaStart": HEADER_LENGTH + length,
            "backupId": doc["backupId"], "createdAt": doc["createdAt"], "schemaVersion": doc["schemaVersion"],
            "members": list(doc), "counts": {k: len(doc[k]) for k in ("categories", "stories", "media",
                                                                    "relationsStoryCategories")},
            "masterKeyBase64": "masterKeyBase64" in doc,
            "media": [{"relativePath": n, "size": len(b), "sha256": hashlib.sha256(b).hexdigest()} for n, b in media]}


def _selftest():
    for legacy in (False, True):
        doc, media = sample(legacy)
        data = build(doc, media)
        back, got = parse(data)
        assert got == media and back["backupId"] == doc["backupId"]
        assert ("masterKeyBase64" in back) == legacy and ("isDeleted" in back["stories"][0]) == legacy
        assert data[:17] == b"MYSTBACK1" + struct.pack("<Q", data.index(b"}" + media[0][1][:4]) + 1 - 17)
        assert b'"relativePath":"Images\\/2026\\/02\\/' in data and b'"masterKeyBase64":null' not in data
    doc, media = sample()
    data = build(doc, media)
    refusals = {
        "magic": b"MYSTBACK2" + data[9:],
        "length past end": data[:9] + struct.pack("<Q", len(data)) + data[17:],
        "big-endian length": data[:9] + struct.pack(">Q", len(data) - 17) + data[17:],
        "truncated media": data[:-1],
        "trailing bytes": data + b"\x00",
        "fractional date": build(dict(doc, createdAt="2026-02-24T10:00:00.5Z"), media, check=False),
        "numeric date": build(dict(doc, createdAt=1771927200), media, check=False),
        "missing member": build({k: v for k, v in doc.items() if k != "relationsStoryCategories"}, media,
                                check=False),
        "escaping path": build(doc, [("../../Library/x", media[0][1])] + media[1:], check=False),
        "count mismatch": build(dict(doc, entityStats={"categoryCount": 3, "storyCount": 1, "mediaCount": 1}),
                                media, check=False),
    }
    for name, bad in refusals.items():
        try:
            parse(bad)
        except MystoryError:
            continue
        raise AssertionError(f"accepted: {name}")
    print(f"selftest: 2 round trips, {len(refusals)} refusals")


def main(argv):
    if len(argv) >= 2 and argv[0] == "sample":
        doc, media = sample(legacy="--legacy" in argv[2:])
        data = write(argv[1], doc, media)
        print(json.dumps(_summary(*parse(data), data), ensure_ascii=False, indent=2))
        return 0
    if len(argv) == 2 and argv[0] == "read":
        with open(argv[1], "rb") as f:
            data = f.read()
        try:
            doc, media = parse(data)
        except MystoryError as e:
            print(f"not a valid MYSTBACK1 container: {e}", file=sys.stderr)
            return 1
        print(json.dumps(_summary(doc, media, data), ensure_ascii=False, indent=2))
        return 0
    if argv == ["selftest"]:
        _selftest()
        return 0
    print(__doc__.rsplit("\n\n", 1)[-1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
