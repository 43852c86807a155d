"""Writes the migration document and package vectors (Spec/migration.md section 3):
Vectors/migration/{manifest,categories,stories,media,settings,relations_story_categories,package}.json
and the zip files under Vectors/migration/package/.

A small, complete package is built here by hand (Python zipfile, entries stored, sorted, one
date); each rejecting case makes one edit, and its expected first violation is the one the
Spec's check order gives. Nothing is computed by the implementations under test: the golden
pack is opened and summarized by the generators' own forge (Conformance/tools/msbk_forge.py)."""
import copy
import hashlib
import io
import json
import os
import struct
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import msbk_forge as forge  # noqa: E402
from vector_file import write_file  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "Vectors", "migration")
BID = "3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f"
T = 1736240000
CAT = ["a1b2c3d4-0001-4000-8000-000000000001", "a1b2c3d4-0002-4000-8000-000000000002", "a1b2c3d4-0003-4000-8000-000000000003"]
STO = ["b1b2c3d4-0001-4000-8000-000000000001", "b1b2c3d4-0002-4000-8000-000000000002", "b1b2c3d4-0003-4000-8000-000000000003"]
MED = ["c1b2c3d4-0001-4000-8000-000000000001", "c1b2c3d4-0002-4000-8000-000000000002", "c1b2c3d4-0003-4000-8000-000000000003"]


def category(i, parent=None, level=1, **kw):
    c = {"id": CAT[i], "name": ["旅行", "Family 👨‍👩‍👧", "日記"][i], "nameEn": [None, "Family", "Diary"][i], "colorHex": "#007AFF",
         "level": level, "parentId": parent, "iconName": "airplane", "iconType": "system", "customIconData": None, "sortOrder": i, "createdAt": T}
    c.update(kw)
    return c


def story(i, **kw):
    s = {"id": STO[i], "title": ["第一天", None, "Été à Paris"][i], "content": "# Hello\n世界", "plainTextContent": "Hello 世界",
         "createdAt": T, "updatedAt": T + 1234, "timestamp": T, "isDeleted": False, "syncStatus": 0, "mood": "😊",
         "locationName": None, "locationAddress": None, "locationCity": "上海", "latitude": 31.2304, "longitude": 121.4737,
         "horizontalAccuracy": -1.0, "verticalAccuracy": -1.0}
    s.update(kw)
    return s


def media(i, **kw):
    video = i == 2
    m = {"id": MED[i], "type": "video" if video else "image", "fileName": [f"{MED[0]}.heic", "照片_😀.jpg", f"{MED[2]}.mov"][i],
         "thumbnailFileName": f"{MED[2]}_thumb.jpg" if video else None, "encryptionKeyId": "key-1", "fileSize": [3000, 1500, 5000][i],
         "width": 4032, "height": 3024, "duration": 12.5 if video else 0.0, "createdAt": T, "storyId": STO[i] if i < 2 else None}
    m.update(kw)
    return m


SETTINGS = [{"key": "theme", "type": "string", "value": "dark", "updatedAt": T},
            {"key": "fontSize", "type": "int", "value": "17", "updatedAt": T},
            {"key": "faceID", "type": "bool", "value": "true", "updatedAt": T},
            {"key": "widgets", "type": "json", "value": "{\"order\":[\"today\"]}", "updatedAt": T}]
CATEGORIES = [category(0), category(1, parent=CAT[0], level=2), category(2, parent=CAT[1], level=3)]
STORIES = [story(0), story(1), story(2)]
MEDIA = [media(0), media(1), media(2)]
RELATIONS = [{"storyId": STO[0], "categoryId": CAT[0]}, {"storyId": STO[0], "categoryId": CAT[2]}, {"storyId": STO[1], "categoryId": CAT[1]}]
FOLDER = "media/Images/2025/01/"  # 1736240000 is 2025-01-07 UTC
VFOLDER = "media/Videos/2025/01/"


def blob(n, seed):
    return bytes((i * 7 + seed) & 0xFF for i in range(n))


def dumps(v):
    return json.dumps(v, ensure_ascii=False, indent=2).encode()


def base_files():
    return {
        "coredata/categories.json": dumps(CATEGORIES), "coredata/stories.json": dumps(STORIES), "coredata/media.json": dumps(MEDIA),
        "coredata/settings.json": dumps(SETTINGS), "coredata/relations_story_categories.json": dumps(RELATIONS),
        FOLDER + MEDIA[0]["fileName"]: blob(3000, 1), FOLDER + MEDIA[1]["fileName"]: blob(1500, 2),
        VFOLDER + MEDIA[2]["fileName"]: blob(5000, 3), VFOLDER + MEDIA[2]["thumbnailFileName"]: blob(700, 4),
        "security/master_key.bin": blob(32, 9),
    }


def manifest_for(files, broken=(), **kw):
    mediafiles = {p: d for p, d in files.items() if p.startswith("media/")}
    counts = {"CategoryEntity": len(json.loads(files.get("coredata/categories.json", b"[]"))),
              "StoryEntity": len(json.loads(files.get("coredata/stories.json", b"[]"))),
              "MediaEntity": len(json.loads(files.get("coredata/media.json", b"[]"))),
              "SettingEntity": len(json.loads(files.get("coredata/settings.json", b"[]")))}
    m = {"backupId": BID, "appVersion": "1.2.0", "schemaVersion": 1, "createdAt": T,
         "entityStats": {k: {"count": v} for k, v in counts.items()},
         "mediaStats": {"totalFiles": len(mediafiles), "totalBytes": sum(len(d) for d in mediafiles.values())},
         "integrity": {"hashAlgorithm": "SHA256", "files": [{"path": p, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for p, d in sorted(files.items())]},
         "options": {"hasBrokenMedia": bool(broken), "brokenMediaCount": len(broken)},
         "brokenMedia": list(broken)}
    m.update(kw)
    return m


def make_zip(files, manifest, folder=None, extra_entries=(), symlink=None):
    folder = folder or f"Backup-{BID}"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        entries = sorted(files.items()) + [("manifest.json", dumps(manifest) if isinstance(manifest, dict) else manifest)]
        for path, data in entries:
            info = zipfile.ZipInfo(f"{folder}/{path}", date_time=(2025, 1, 7, 8, 53, 20))
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
        for name, data in extra_entries:
            info = zipfile.ZipInfo(name, date_time=(2025, 1, 7, 8, 53, 20))
            z.writestr(info, data)
        if symlink:
            info = zipfile.ZipInfo(symlink[0], date_time=(2025, 1, 7, 8, 53, 20))
            info.external_attr = (0o120777 << 16)
            info.create_system = 3
            z.writestr(info, symlink[1])
    return out.getvalue()


class DocFile:
    def __init__(self, kind, description, context=None):
        self.kind, self.description, self.context, self.cases = kind, description, context or {}, []

    def accept(self, slug, comment, doc, canonical, rules, flags=()):
        self.cases.append({"id": f"migration/{self.kind}/{slug}", "comment": comment, "flags": list(flags), "rules": rules,
                           "input": doc, "expected": {"outcome": "accept", "canonical": canonical}})

    def reject(self, slug, comment, doc, path, rule, flags=(), text=None, context=None):
        c = {"id": f"migration/{self.kind}/{slug}", "comment": comment, "flags": list(flags), "rules": [rule]}
        if context is not None:
            c["context"] = context
        if text is not None:
            c["inputText"] = text
        else:
            c["input"] = doc
        c["expected"] = {"outcome": "reject", "violations": [{"path": path, "rule": rule}]}
        self.cases.append(c)

    def reject_all(self, slug, comment, doc, violations, flags=()):
        """A document with several independent violations: all of them, in document order."""
        rules = sorted({rule for _, rule in violations})
        c = {"id": f"migration/{self.kind}/{slug}", "comment": comment, "flags": list(flags), "rules": rules, "input": doc}
        c["expected"] = {"outcome": "reject", "violations": [{"path": path, "rule": rule} for path, rule in violations]}
        self.cases.append(c)

    def write(self):
        return write_file(OUT, "migration", self.description, self.context, self.cases, kind=self.kind)


def dropnull(o):
    return {k: v for k, v in o.items() if v is not None}


def canon_list(items):
    return [dropnull(i) for i in items]


# ------------------------------------------------------------------ manifest
M = manifest_for(base_files())
man = DocFile("manifest", "manifest.json (seed 000 §5; Spec migration.md 3.2).")
man.accept("seed-shape", "A manifest with per-file digests.", M, M, ["MIG-ID-001", "MIG-MAN-002", "MIG-MAN-003", "MIG-TIME-001", "MIG-MAN-004",
           "MIG-MAN-005", "MIG-MAN-006", "MIG-MAN-007"], ["seed-example"])
man.accept("upper-case-backup-id", "An upper-case UUID (iOS) is a UUID.", dict(M, backupId=BID.upper()), dict(M, backupId=BID.upper()), ["MIG-ID-001"], ["interop-trap"])
nb = dict(M)
del nb["brokenMedia"]
man.accept("broken-media-absent", "brokenMedia may be absent when there is none.", nb, nb, ["MIG-MAN-007"])
man.reject("backup-id-not-uuid", "backupId must be a UUID.", dict(M, backupId="backup-2025-01-07"), "/backupId", "MIG-ID-001")
man.reject("app-version-blank", "A blank appVersion.", dict(M, appVersion=" "), "/appVersion", "MIG-MAN-002")
man.reject("schema-newer", "A schema newer than the receiver's is refused before anything is touched.", dict(M, schemaVersion=2), "/schemaVersion", "MIG-MAN-003")
man.reject("schema-zero", "schemaVersion 0 does not exist.", dict(M, schemaVersion=0), "/schemaVersion", "MIG-MAN-003")
man.reject("created-in-milliseconds", "createdAt in milliseconds where seconds are due (pairing uses ms).", dict(M, createdAt=T * 1000), "/createdAt", "MIG-TIME-001", ["interop-trap"])
man.reject("created-as-string", "createdAt as an ISO string (the records seeds' format).", dict(M, createdAt="2025-01-07T08:53:20.000Z"), "/createdAt", "CORE-TYPE-003", ["interop-trap"])
es = copy.deepcopy(M)
del es["entityStats"]["SettingEntity"]
man.reject("entity-missing", "Every entity has its count.", es, "/entityStats/SettingEntity", "CORE-TYPE-001")
es = copy.deepcopy(M)
es["entityStats"]["TagEntity"] = {"count": 0}
man.reject("entity-unknown", "entityStats names exactly the four entities.", es, "/entityStats/TagEntity", "MIG-MAN-004")
es = copy.deepcopy(M)
es["entityStats"]["StoryEntity"]["count"] = -1
man.reject("count-negative", "Counts are ≥ 0.", es, "/entityStats/StoryEntity/count", "MIG-MAN-004")
my = copy.deepcopy(M)
my["createdAt"] = "2025-01-07T08:53:20Z"
my["entityStats"] = {"categoryCount": 3, "storyCount": 3, "mediaCount": 3}
man.reject_all("mystory-shape", "MyStory's own backup writes createdAt as ISO 8601 and entityStats as {categoryCount, storyCount, mediaCount}: "
               "both are reported in one run, independent checks do not hide each other.",
               my, [("/createdAt", "CORE-TYPE-003"), ("/entityStats/CategoryEntity", "CORE-TYPE-001")], ["interop-trap", "real-implementation"])
ms = copy.deepcopy(M)
ms["mediaStats"]["totalBytes"] = -5
man.reject("total-bytes-negative", "mediaStats values are ≥ 0.", ms, "/mediaStats/totalBytes", "MIG-MAN-005")
zi = copy.deepcopy(M)
zi["integrity"]["zipSHA256"] = "00" * 32
man.reject("zip-digest-inside-zip", "The seed's zipSHA256 cannot be correct inside the zip it hashes.", zi, "/integrity/zipSHA256", "MIG-MAN-006", ["interop-trap"])
ha = copy.deepcopy(M)
ha["integrity"]["hashAlgorithm"] = "MD5"
man.reject("hash-md5", "Only SHA256.", ha, "/integrity/hashAlgorithm", "MIG-MAN-006")
tr = copy.deepcopy(M)
tr["integrity"]["files"][0]["path"] = "../../Library/Preferences/x.plist"
man.reject("file-path-escapes", "A listed path that would leave the package.", tr, "/integrity/files/0/path", "MIG-MAN-006", ["interop-trap"])
up = copy.deepcopy(M)
up["integrity"]["files"][1]["sha256"] = up["integrity"]["files"][1]["sha256"].upper()
man.reject("digest-upper-case", "Digests are lower-case hex.", up, "/integrity/files/1/sha256", "MIG-MAN-006")
du = copy.deepcopy(M)
du["integrity"]["files"].append(du["integrity"]["files"][0])
man.reject("file-listed-twice", "A path listed twice.", du, f"/integrity/files/{len(du['integrity']['files']) - 1}/path", "MIG-MAN-006")
tw = copy.deepcopy(M)
tw["integrity"]["files"][0]["path"] = "media/../\u0301evil.sh"
man.reject("path-climbs-behind-combining-mark", "A `..` segment followed by a combining mark: split into Characters, `/` and U+0301 are one, and no segment is `..`.",
           tw, "/integrity/files/0/path", "MIG-MAN-006", ["interop-trap"])
nf = copy.deepcopy(M)
nf["integrity"]["files"][0]["path"] = "media/cafe\u0301.txt"
man.reject("path-not-nfc", "A listed path in NFD (`e` and U+0301): canonically equivalent names must be byte-identical.",
           nf, "/integrity/files/0/path", "MIG-MAN-006", ["interop-trap"])
cc = copy.deepcopy(M)
cc["integrity"]["files"].append(dict(cc["integrity"]["files"][0], path=cc["integrity"]["files"][0]["path"].upper()))
man.reject("path-listed-twice-ignoring-case", "A path listed again in upper case: one file on a case-insensitive volume.",
           cc, f"/integrity/files/{len(cc['integrity']['files']) - 1}/path", "MIG-MAN-006", ["interop-trap"])
br = copy.deepcopy(M)
br["brokenMedia"] = [{"mediaId": MED[0], "fileName": "x.heic", "reason": "LOST"}]
man.reject("broken-reason-unknown", "Broken media reasons are FILE_NOT_FOUND or READ_ERROR.", br, "/brokenMedia/0/reason", "MIG-MAN-007")
man.reject("broken-flag-string", "hasBrokenMedia is a boolean.", dict(M, options={"hasBrokenMedia": "false", "brokenMediaCount": 0}), "/options/hasBrokenMedia", "CORE-TYPE-003", ["interop-trap"])
man.reject("duplicate-member", "Duplicate members are rejected by the wire profile.", None, "/schemaVersion", "CORE-JSON-003",
           text=json.dumps(M, ensure_ascii=False)[:-1] + ', "schemaVersion": 2}')

# ------------------------------------------------------------------ exports
cat = DocFile("categories", "coredata/categories.json (seed 000 §6.1).")
cat.accept("seed-shape", "Three nested categories with Unicode names.", CATEGORIES, canon_list(CATEGORIES), ["MIG-EXP-001", "MIG-ID-001", "MIG-ID-002", "MIG-TIME-001"], ["seed-example"])
cat.accept("custom-icon", "A custom icon with base64 data.", [category(0, iconType="custom", customIconData="iVBORw0KGgo=")],
           [dropnull(category(0, iconType="custom", customIconData="iVBORw0KGgo="))], ["MIG-EXP-001"])
cat.accept("empty", "An empty export is an empty array.", [], [], ["MIG-EXP-001"], ["boundary"])
cat.reject("not-an-array", "An export is an array.", {"categories": CATEGORIES}, "", "CORE-TYPE-003")
cat.reject("color-short", "colorHex is #RRGGBB.", [category(0, colorHex="#12345")], "/0/colorHex", "MIG-EXP-001")
cat.reject("color-named", "A color name is not hex.", [category(0, colorHex="blue")], "/0/colorHex", "MIG-EXP-001")
cat.reject("level-zero", "Levels start at 1.", [category(0, level=0)], "/0/level", "MIG-EXP-001")
cat.reject("icon-type-emoji", "iconType is system or custom.", [category(0, iconType="emoji")], "/0/iconType", "MIG-EXP-001")
cat.reject("icon-data-not-base64", "customIconData is base64.", [category(0, iconType="custom", customIconData="%%%")], "/0/customIconData", "MIG-EXP-001")
cat.reject("name-blank", "A blank name.", [category(0, name="  ")], "/0/name", "MIG-EXP-001")
cat.reject("id-not-uuid", "Ids are UUIDs.", [category(0, id="cat-1")], "/0/id", "MIG-ID-001")
cat.reject("parent-not-uuid", "parentId is a UUID or null.", [category(0, parentId="")], "/0/parentId", "MIG-ID-001")
cat.reject_all("every-element-reported", "Each element is checked on its own: two broken elements give two violations, and a duplicate among good ones a third.",
               [dict(category(0), colorHex="blue"), category(1, parent=CAT[0], level=2), dict(category(2, parent=CAT[1], level=3), level=0),
                category(1, id=CAT[1].upper())],
               [("/0/colorHex", "MIG-EXP-001"), ("/2/level", "MIG-EXP-001"), ("/3/id", "MIG-ID-002")])
cat.reject_all("non-object-element", "An element that is not an object is that element's violation; the elements after it are still checked.",
               [category(0), "not a category", dict(category(2, parent=CAT[1], level=3), level=0)],
               [("/1", "CORE-TYPE-003"), ("/2/level", "MIG-EXP-001")])
cat.reject("id-duplicate-other-case", "The same UUID in another case is the same id.", [category(0), category(1, id=CAT[0].upper())], "/1/id", "MIG-ID-002", ["interop-trap"])
cat.reject("created-ms", "createdAt in milliseconds.", [category(0, createdAt=T * 1000)], "/0/createdAt", "MIG-TIME-001", ["interop-trap"])

sto = DocFile("stories", "coredata/stories.json (seed 000 §6.2).")
sto.accept("seed-shape", "Stories with Unicode text and unmeasured accuracy (-1).", STORIES, canon_list(STORIES), ["MIG-EXP-002", "MIG-ID-001", "MIG-TIME-001"], ["seed-example"])
sto.accept("equator-and-antimeridian", "Coordinates at the bounds.", [story(0, latitude=-90, longitude=180.0)], [dropnull(story(0, latitude=-90, longitude=180.0))], ["MIG-EXP-002"], ["boundary"])
sto.reject("updated-before-created", "updatedAt before createdAt.", [story(0, updatedAt=T - 1)], "/0/updatedAt", "MIG-EXP-002")
sto.reject("latitude-91", "Latitude beyond 90.", [story(0, latitude=91.0)], "/0/latitude", "MIG-EXP-002")
sto.reject("accuracy-minus-two", "Accuracy is ≥ 0 or exactly -1.", [story(0, horizontalAccuracy=-2.0)], "/0/horizontalAccuracy", "MIG-EXP-002")
sto.reject("is-deleted-number", "isDeleted is a boolean, not 0/1.", [story(0, isDeleted=0)], "/0/isDeleted", "CORE-TYPE-003", ["interop-trap"])
sto.reject("latitude-string", "Coordinates are numbers.", [story(0, latitude="31.2304")], "/0/latitude", "CORE-TYPE-003", ["interop-trap"])

med = DocFile("media", "coredata/media.json (seed 000 §6.3).")
med.accept("seed-shape", "Images and a video with its thumbnail.", MEDIA, canon_list(MEDIA), ["MIG-EXP-003", "MIG-ID-001", "MIG-TIME-001"], ["seed-example"])
med.reject("type-audio", "type is image or video.", [media(0, type="audio")], "/0/type", "MIG-EXP-003")
med.reject("file-name-path", "fileName is a plain name, not a path.", [media(0, fileName="../../x.heic")], "/0/fileName", "MIG-EXP-003", ["interop-trap"])
med.reject("thumbnail-backslash", "No backslashes in names.", [media(2, thumbnailFileName="a\\b.jpg")], "/0/thumbnailFileName", "MIG-EXP-003", ["interop-trap"])
med.reject("file-name-not-nfc", "fileName in NFD (e and U+0301): the package's names are NFC, so a byte-wise lookup of this one finds no file.",
           [media(0, fileName="cafe\u0301.heic")], "/0/fileName", "MIG-EXP-003", ["interop-trap"])
med.reject("size-negative", "fileSize is ≥ 0.", [media(0, fileSize=-1)], "/0/fileSize", "MIG-EXP-003")
med.reject("duration-negative", "duration is ≥ 0.", [media(2, duration=-1.0)], "/0/duration", "MIG-EXP-003")
med.reject("key-id-blank", "encryptionKeyId names a key.", [media(0, encryptionKeyId="")], "/0/encryptionKeyId", "MIG-EXP-003")
med.reject("size-fraction", "fileSize is an integer.", None, "/0/fileSize", "CORE-TYPE-004", text=json.dumps([media(0)], ensure_ascii=False).replace('"fileSize": 3000', '"fileSize": 3000.0'))

st = DocFile("settings", "coredata/settings.json (seed 000 §6.4).")
st.accept("seed-shape", "Settings of each type.", SETTINGS, SETTINGS, ["MIG-EXP-004", "MIG-ID-002"], ["seed-example"])
st.accept("keys-canonically-equivalent", "Keys `é` (U+00E9) and `e` + U+0301 are two keys (MIG-ID-002 compares bytes), not a duplicate.",
          [dict(SETTINGS[0], key="caf\u00e9"), dict(SETTINGS[0], key="cafe\u0301")], [dict(SETTINGS[0], key="caf\u00e9"), dict(SETTINGS[0], key="cafe\u0301")],
          ["MIG-EXP-004", "MIG-ID-002"], ["interop-trap"])
st.reject("type-float", "float is not a setting type.", [dict(SETTINGS[0], type="float")], "/0/type", "MIG-EXP-004")
st.reject("bool-yes", "A bool is true or false.", [dict(SETTINGS[2], value="yes")], "/0/value", "MIG-EXP-004", ["interop-trap"])
st.reject("int-fraction", "An int setting holding 1.5.", [dict(SETTINGS[1], value="1.5")], "/0/value", "MIG-EXP-004")
st.reject("json-invalid", "A json setting must hold JSON.", [dict(SETTINGS[3], value="{bad")], "/0/value", "MIG-EXP-004")
st.reject("key-duplicate", "Setting keys are unique (the seed's unique constraint).", [SETTINGS[0], dict(SETTINGS[0], value="light")], "/1/key", "MIG-ID-002")

rel = DocFile("relations_story_categories", "coredata/relations_story_categories.json (seed 000 §6.5).")
rel.accept("seed-shape", "Story–category pairs.", RELATIONS, RELATIONS, ["MIG-ID-001", "MIG-ID-002"], ["seed-example"])
rel.reject("pair-duplicate", "A pair listed twice (case differs).", [RELATIONS[0], {"storyId": STO[0].upper(), "categoryId": CAT[0]}], "/1/categoryId", "MIG-ID-002", ["interop-trap"])
rel.reject("story-id-number", "Ids are strings.", [{"storyId": 1, "categoryId": CAT[0]}], "/0/storyId", "CORE-TYPE-003")

# ------------------------------------------------------------------ packages
pkg_cases = []
pkg_files = {}


def pkg(slug, comment, data, expected, rules, flags=()):
    pkg_files[f"{slug}.zip"] = data
    pkg_cases.append({"id": f"migration/package/{slug}", "comment": comment, "flags": list(flags), "rules": rules,
                      "inputFile": f"package/{slug}.zip", "inputSHA256": hashlib.sha256(data).hexdigest(), "expected": expected})


def ok(files, manifest, broken=0):
    return {"outcome": "accept", "canonical": {"backupId": manifest["backupId"], "entityCounts": {k: v["count"] for k, v in manifest["entityStats"].items()},
                                               "files": len(manifest["integrity"]["files"]), "brokenMedia": broken}}


def bad(path, rule):
    return {"outcome": "reject", "violations": [{"path": path, "rule": rule}]}


def variant(mutate_files=None, mutate_manifest=None, broken=()):
    files = base_files()
    if mutate_files:
        mutate_files(files)
    m = manifest_for(files, broken=broken)
    if mutate_manifest:
        mutate_manifest(m)
    return files, m


files, m = variant()
pkg("complete", "A complete package: nested categories, Unicode file names, a video with thumbnail.", make_zip(files, m), ok(files, m),
    ["MIG-PKG-001", "MIG-PKG-002", "MIG-PKG-003", "MIG-PKG-004", "MIG-PKG-005", "MIG-PKG-006", "MIG-PKG-007", "MIG-MAN-001"], ["seed-example"])


def drop_media0(f):
    del f[FOLDER + MEDIA[0]["fileName"]]


files, m = variant(drop_media0, broken=[{"mediaId": MED[0], "fileName": MEDIA[0]["fileName"], "reason": "FILE_NOT_FOUND"}])
pkg("broken-media-listed", "A missing media file listed as broken is accepted.", make_zip(files, m), ok(files, m, 1), ["MIG-PKG-002", "MIG-PKG-005"])


def upper_refs(f):
    rels = [{"storyId": r["storyId"].upper(), "categoryId": r["categoryId"]} for r in RELATIONS]
    f["coredata/relations_story_categories.json"] = dumps(rels)


files, m = variant(upper_refs)
pkg("references-other-case", "References match ids case-insensitively (iOS writes upper-case UUIDs).", make_zip(files, m), ok(files, m), ["MIG-PKG-003", "MIG-ID-001"], ["interop-trap"])

# rejections
files, m = variant(mutate_manifest=lambda m: m["entityStats"]["StoryEntity"].update(count=4))
pkg("story-count-off", "entityStats says 4 stories, the export has 3.", make_zip(files, m), bad("/manifest.json/entityStats/StoryEntity/count", "MIG-PKG-001"), ["MIG-PKG-001"])
files, m = variant(mutate_manifest=lambda m: m["mediaStats"].update(totalFiles=3))
pkg("media-files-off", "mediaStats.totalFiles disagrees with media/.", make_zip(files, m), bad("/manifest.json/mediaStats/totalFiles", "MIG-PKG-001"), ["MIG-PKG-001"])
files, m = variant(mutate_manifest=lambda m: m["options"].update(hasBrokenMedia=True))
pkg("broken-flag-without-count", "hasBrokenMedia true with brokenMediaCount 0.", make_zip(files, m), bad("/manifest.json/options/hasBrokenMedia", "MIG-PKG-002"), ["MIG-PKG-002"])
files, m = variant(drop_media0, broken=[{"mediaId": MED[0], "fileName": MEDIA[0]["fileName"], "reason": "FILE_NOT_FOUND"}])
m["options"]["brokenMediaCount"] = 2
pkg("broken-count-vs-list", "brokenMediaCount 2 with one entry.", make_zip(files, m), bad("/manifest.json/options/brokenMediaCount", "MIG-PKG-002"), ["MIG-PKG-002"])
files, m = variant(broken=[{"mediaId": MED[0], "fileName": MEDIA[0]["fileName"], "reason": "READ_ERROR"}])
pkg("broken-but-present", "A media file listed as broken is in the package.", make_zip(files, m), bad("/coredata/media.json/0/fileName", "MIG-PKG-002"), ["MIG-PKG-002"])
files, m = variant(drop_media0, broken=[{"mediaId": "c1b2c3d4-0009-4000-8000-000000000009", "fileName": "x.heic", "reason": "FILE_NOT_FOUND"}])
pkg("broken-unknown-id", "A broken entry names no media element.", make_zip(files, m), bad("/manifest.json/brokenMedia/0/mediaId", "MIG-PKG-002"), ["MIG-PKG-002"])


def bad_parent(f):
    f["coredata/categories.json"] = dumps([category(0), category(1, parent="a1b2c3d4-0009-4000-8000-000000000009", level=2), CATEGORIES[2]])


files, m = variant(bad_parent)
pkg("parent-missing", "A parentId naming no category.", make_zip(files, m), bad("/coredata/categories.json/1/parentId", "MIG-PKG-003"), ["MIG-PKG-003"])


def bad_story_ref(f):
    f["coredata/media.json"] = dumps([media(0, storyId="b1b2c3d4-0009-4000-8000-000000000009"), MEDIA[1], MEDIA[2]])


files, m = variant(bad_story_ref)
pkg("media-story-missing", "A media storyId naming no story.", make_zip(files, m), bad("/coredata/media.json/0/storyId", "MIG-PKG-003"), ["MIG-PKG-003"])


def bad_relation(f):
    f["coredata/relations_story_categories.json"] = dumps(RELATIONS + [{"storyId": STO[2], "categoryId": "a1b2c3d4-0009-4000-8000-000000000009"}])


files, m = variant(bad_relation)
pkg("relation-category-missing", "A relation to no category.", make_zip(files, m), bad("/coredata/relations_story_categories.json/3/categoryId", "MIG-PKG-003"), ["MIG-PKG-003"])


def cycle(f):
    f["coredata/categories.json"] = dumps([category(0), category(1, parent=CAT[2], level=2), category(2, parent=CAT[1], level=3)])


files, m = variant(cycle)
pkg("category-cycle", "Two categories each other's parent.", make_zip(files, m), bad("/coredata/categories.json/1/parentId", "MIG-PKG-004"), ["MIG-PKG-004"])


def wrong_level(f):
    f["coredata/categories.json"] = dumps([category(0), category(1, parent=CAT[0], level=3), category(2, parent=CAT[1], level=4)])


files, m = variant(wrong_level)
pkg("category-level-skips", "A child two levels below its parent.", make_zip(files, m), bad("/coredata/categories.json/1/level", "MIG-PKG-004"), ["MIG-PKG-004"])


def root_level_two(f):
    f["coredata/categories.json"] = dumps([category(0, level=2), category(1, parent=CAT[0], level=3), category(2, parent=CAT[1], level=4)])


files, m = variant(root_level_two)
pkg("root-not-level-one", "A category without parent at level 2.", make_zip(files, m), bad("/coredata/categories.json/0/level", "MIG-PKG-004"), ["MIG-PKG-004"])
files, m = variant()
f2 = dict(files)
f2["media/Images/2025/01/extra.heic"] = blob(10, 5)
pkg("unlisted-file", "A file the manifest does not list.", make_zip(f2, m), bad("/files/media~1Images~12025~101~1extra.heic", "MIG-PKG-005"), ["MIG-PKG-005"])
files, m = variant()
m["integrity"]["files"][0]["sha256"] = hashlib.sha256(b"other").hexdigest()
pkg("digest-mismatch", "A file whose SHA-256 differs from the manifest's (a corrupted media file).", make_zip(files, m), bad("/manifest.json/integrity/files/0/sha256", "MIG-PKG-005"), ["MIG-PKG-005"])
files, m = variant()
m["integrity"]["files"][0]["size"] += 1
pkg("size-mismatch", "A listed size that is not the file's.", make_zip(files, m), bad("/manifest.json/integrity/files/0/size", "MIG-PKG-005"), ["MIG-PKG-005"])
files, m = variant(drop_media0)
pkg("media-missing-not-broken", "A media element whose file is absent and not listed as broken.", make_zip(files, m), bad("/coredata/media.json/0/fileName", "MIG-PKG-005"), ["MIG-PKG-005"])


def wrong_size(f):
    f["coredata/media.json"] = dumps([media(0, fileSize=2999), MEDIA[1], MEDIA[2]])


files, m = variant(wrong_size)
pkg("media-size-off", "media.json fileSize differs from the file.", make_zip(files, m), bad("/coredata/media.json/0/fileSize", "MIG-PKG-005"), ["MIG-PKG-005"])


def no_thumb(f):
    del f[VFOLDER + MEDIA[2]["thumbnailFileName"]]


files, m = variant(no_thumb)
pkg("thumbnail-missing", "A video's thumbnail is absent.", make_zip(files, m), bad("/coredata/media.json/2/thumbnailFileName", "MIG-PKG-005"), ["MIG-PKG-005"])


def no_key(f):
    del f["security/master_key.bin"]


files, m = variant(no_key)
pkg("master-key-missing", "Without the master key the media cannot be read.", make_zip(files, m), bad("/security/master_key.bin", "MIG-PKG-007"), ["MIG-PKG-007"])


def no_settings(f):
    del f["coredata/settings.json"]


files, m = variant(no_settings)
pkg("export-missing", "No coredata/settings.json, nor in the listing: an export is missing (its path the file's, two tokens).", make_zip(files, m),
    bad("/coredata/settings.json", "MIG-PKG-005"), ["MIG-PKG-005"])


def empty_key(f):
    f["security/master_key.bin"] = b""


files, m = variant(empty_key)
pkg("master-key-empty", "An empty master key.", make_zip(files, m), bad("/security/master_key.bin", "MIG-PKG-007"), ["MIG-PKG-007"])
files, m = variant()
pkg("folder-other-id", "The folder names another backup id than the manifest.", make_zip(files, m, folder="Backup-00000000-0000-4000-8000-000000000000"),
    bad("/manifest.json/backupId", "MIG-MAN-001"), ["MIG-MAN-001"])
files, m = variant()
pkg("zip-slip", "An entry that climbs out of the package folder (zip-slip).", make_zip(files, m, extra_entries=[(f"Backup-{BID}/../../evil.sh", b"#!/bin/sh\n")]),
    bad(f"/entries/Backup-{BID}~1..~1..~1evil.sh", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("absolute-path", "An absolute entry path.", make_zip(files, m, extra_entries=[("/etc/passwd", b"x")]), bad("/entries/~1etc~1passwd", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("backslash-path", "A Windows separator that some unzip tools honour.", make_zip(files, m, extra_entries=[(f"Backup-{BID}\\..\\evil", b"x")]),
    bad(f"/entries/Backup-{BID}\\..\\evil", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("symlink-entry", "A symbolic link entry, which could redirect later writes.", make_zip(files, m, symlink=(f"Backup-{BID}/media/link", "/etc")),
    bad(f"/entries/Backup-{BID}~1media~1link", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("slip-behind-combining-mark", "`..` then `/` and a combining mark (U+0301): one Swift Character, but the file system splits on the byte `/`.",
    make_zip(files, m, extra_entries=[(f"Backup-{BID}/../\u0301evil.sh", b"#!/bin/sh\n")]),
    bad(f"/entries/Backup-{BID}~1..~1\u0301evil.sh", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("dots-and-space-segment", "A segment `.. ` that Windows trims to `..`.", make_zip(files, m, extra_entries=[(f"Backup-{BID}/.. /evil.sh", b"x")]),
    bad(f"/entries/Backup-{BID}~1.. ~1evil.sh", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("name-not-nfc", "An entry named in NFD (`e` and U+0301): APFS would find it under its NFC name, a byte-wise reader would not.",
    make_zip(files, m, extra_entries=[(f"Backup-{BID}/media/cafe\u0301.txt", b"x")]),
    bad(f"/entries/Backup-{BID}~1media~1cafe\u0301.txt", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("names-equal-ignoring-case", "A second entry whose name differs only in case: one file on a case-insensitive volume.",
    make_zip(files, m, extra_entries=[(f"Backup-{BID}/" + FOLDER.upper() + MEDIA[0]["fileName"], b"x")]),
    bad(f"/entries/Backup-{BID}~1" + (FOLDER.upper() + MEDIA[0]["fileName"]).replace("/", "~1"), "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("two-folders", "Entries outside the one Backup-{id} folder.", make_zip(files, m, extra_entries=[("Other/readme.txt", b"x")]),
    bad("/entries/Other~1readme.txt", "MIG-PKG-006"), ["MIG-PKG-006"])
pkg("not-a-zip", "Random bytes are not an archive.", bytes(range(256)) * 4, bad("", "MIG-PKG-006"), ["MIG-PKG-006"])

# How other archivers write the same package: a receiver reads the central directory, not one
# archiver's layout (MIG-PKG-006 allows stored and deflated entries).
class Unseekable(io.RawIOBase):
    """A sink zipfile cannot seek back in: it writes sizes in data descriptors (flag bit 3)."""

    def __init__(self):
        self.out = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.out += b
        return len(b)


def archiver_zip(files, manifest, method=zipfile.ZIP_STORED, seekable=True, force_zip64=False, comment=b"", methods=None, extra_entries=()):
    sink = io.BytesIO() if seekable else Unseekable()
    with zipfile.ZipFile(sink, "w") as z:
        z.comment = comment
        for path, data in sorted(files.items()) + [("manifest.json", dumps(manifest))] + list(extra_entries):
            info = zipfile.ZipInfo(f"Backup-{BID}/{path}", date_time=(2025, 1, 7, 8, 53, 20))
            info.external_attr = 0o644 << 16
            info.compress_type = (methods or {}).get(path, method)
            with z.open(info, "w", force_zip64=force_zip64) as w:
                w.write(data)
    return sink.getvalue() if seekable else bytes(sink.out)


def central_records(data):
    """(offset, name) of each central directory record."""
    eocd = data.rindex(b"PK\x05\x06")
    count, at = struct.unpack_from("<H", data, eocd + 10)[0], struct.unpack_from("<I", data, eocd + 16)[0]
    for _ in range(count):
        n, e, c = struct.unpack_from("<HHH", data, at + 28)
        yield at, data[at + 46:at + 46 + n].decode()
        at += 46 + n + e + c


def patch_entry(data, path, flags_or=0, size=None, offset_of=None):
    """Edits one entry's central record (and for flags its local header too)."""
    data = bytearray(data)
    records = dict((name, at) for at, name in central_records(bytes(data)))
    at = records[f"Backup-{BID}/{path}"]
    local = struct.unpack_from("<I", data, at + 42)[0]
    if flags_or:
        for o in (at + 8, local + 6):
            struct.pack_into("<H", data, o, struct.unpack_from("<H", data, o)[0] | flags_or)
    if size is not None:
        struct.pack_into("<I", data, at + 24, size)
    if offset_of is not None:
        struct.pack_into("<I", data, at + 42, struct.unpack_from("<I", data, records[f"Backup-{BID}/{offset_of}"] + 42)[0])
    return bytes(data)


def patch_local(data, path, name=None, size_delta=0, method=None):
    """Edits one entry's local header only (the central directory is left as written)."""
    data = bytearray(data)
    records = dict((n, at) for at, n in central_records(bytes(data)))
    local = struct.unpack_from("<I", data, records[f"Backup-{BID}/{path}"] + 42)[0]
    if name is not None:
        n = struct.unpack_from("<H", data, local + 26)[0]
        assert len(name) == n
        data[local + 30:local + 30 + n] = name
    if size_delta:
        for o in (local + 18, local + 22):
            struct.pack_into("<I", data, o, struct.unpack_from("<I", data, o)[0] + size_delta)
    if method is not None:
        struct.pack_into("<H", data, local + 8, method)
    return bytes(data)


def climbing(name):
    """A name of `name`'s length that climbs out of the package folder: Backup-<id>/../../tmp/xxx."""
    prefix = f"Backup-{BID}/" + "../" * 8 + "tmp/"
    return (prefix + "x" * (len(name.encode()) - len(prefix))).encode()


HEIC = FOLDER + MEDIA[0]["fileName"]
HEIC_ENTRY = f"/entries/Backup-{BID}~1" + HEIC.replace("/", "~1")
files, m = variant()
pkg("deflated", "Every entry deflated (method 8): allowed, though senders store.", archiver_zip(files, m, method=zipfile.ZIP_DEFLATED), ok(files, m), ["MIG-PKG-006"], ["interop-trap"])
pkg("data-descriptors", "Deflated, written by an archiver that could not seek back: sizes in data descriptors (flag bit 3), local headers with zeros.",
    archiver_zip(files, m, method=zipfile.ZIP_DEFLATED, seekable=False), ok(files, m), ["MIG-PKG-006"], ["interop-trap"])
pkg("stored-data-descriptor", "Stored, written by an archiver that could not seek back: stored data followed by a data descriptor has no end a front-to-back reader can find.",
    archiver_zip(files, m, seekable=False), bad(f"/entries/Backup-{BID}~1coredata~1categories.json", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("zip64-local-headers", "Every local header with a ZIP64 extra field, though no size needs one.", archiver_zip(files, m, force_zip64=True), ok(files, m), ["MIG-PKG-006"], ["interop-trap"])
# (A comment that holds the end record's signature is legal too, but Python's zipfile then reads
# the comment as the record: not a case to hold other readers to.)
pkg("archive-comment", "An archive comment after the end record.", archiver_zip(files, m, comment="备份 2025-01-07, 10 files".encode()), ok(files, m), ["MIG-PKG-006"], ["interop-trap"])
pkg("bytes-after-end-record", "Sixteen bytes appended after the end record: the end record is the one whose comment ends the file, and here none does.",
    archiver_zip(files, m) + bytes(16), bad("", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("encrypted-entry", "An entry flagged as encrypted (traditional PKWARE encryption): its bytes are not the file.",
    patch_entry(make_zip(files, m), HEIC, flags_or=1), bad(HEIC_ENTRY, "MIG-PKG-006"), ["MIG-PKG-006"])
pkg("unsupported-method", "An entry compressed with bzip2 (method 12): only stored and deflated are read.",
    archiver_zip(files, m, methods={HEIC: zipfile.ZIP_BZIP2}), bad(HEIC_ENTRY, "MIG-PKG-006"), ["MIG-PKG-006"])
pkg("declared-ratio-over-1000", "A deflated entry declaring 100 MiB from a few hundred bytes (a zip bomb's claim).",
    patch_entry(archiver_zip(files, m, method=zipfile.ZIP_DEFLATED), HEIC, size=100 << 20), bad(HEIC_ENTRY, "MIG-PKG-006"), ["MIG-PKG-006"])
pkg("local-name-climbs", "The central directory names a media file; its local header names a path that climbs out (a streaming reader would write there).",
    patch_local(make_zip(files, m), HEIC, name=climbing(f"Backup-{BID}/{HEIC}")), bad(HEIC_ENTRY, "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])
pkg("local-size-differs", "A local header that declares one byte more than the central directory.",
    patch_local(make_zip(files, m), HEIC, size_delta=1), bad(HEIC_ENTRY, "MIG-PKG-006"), ["MIG-PKG-006"])
pkg("local-method-differs", "A local header that says deflated (8) where the central directory says stored (0).",
    patch_local(make_zip(files, m), HEIC, method=8), bad(HEIC_ENTRY, "MIG-PKG-006"), ["MIG-PKG-006"])
pkg("overlapping-entries", "A second entry whose directory record points at another entry's bytes (an overlapping zip bomb).",
    patch_entry(make_zip(files, m, extra_entries=[(f"Backup-{BID}/{FOLDER}copy.heic", blob(3000, 1))]), FOLDER + "copy.heic", offset_of=HEIC),
    bad(f"/entries/Backup-{BID}~1{FOLDER.replace('/', '~1')}copy.heic", "MIG-PKG-006"), ["MIG-PKG-006"], ["interop-trap"])


# The zip inside the golden pack (Vectors/migration/envelope/golden-pack.enc), as the Swift
# reference wrote it with ZIPFoundation; its summary is what the forge finds.
with open(os.path.join(HERE, "..", "..", "Vectors", "migration", "envelope", "golden-pack.enc"), "rb") as f:
    golden_zip, _ = forge.open_envelope(f.read(), "correct horse 电池 staple", (1000, 10_000_000))
pkg("golden-pack", "The zip of a whole package written by the Swift reference (sample store seed 11, one broken media).", golden_zip,
    {"outcome": "accept", "canonical": forge.package_summary(golden_zip)}, ["MIG-PKG-001", "MIG-PKG-002", "MIG-PKG-005"], ["seed-example"])

os.makedirs(os.path.join(OUT, "package"), exist_ok=True)
for name, data in pkg_files.items():
    with open(os.path.join(OUT, "package", name), "wb") as f:
        f.write(data)
total = write_file(OUT, "migration", "Whole packages (the zip inside the envelope), checked file by file and across files (Spec migration.md 3.1, 3.4).",
                   {}, pkg_cases, kind="package")

# ------------------------------------------------------------------ restored-store (MIG-REST-001)
rs = DocFile("restored-store", "A receiver's store after a session: the package's files by content once verified, else as it was (Spec migration.md 4, MIG-REST-001).")


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def inv(*pairs):
    return [{"path": p, "sha256": d} for p, d in pairs]


CATS, STORIES, KEY, PHOTO, MANI = sha("categories"), sha("stories"), sha("master key"), sha("photo"), sha("manifest")
PACKAGE = inv(("manifest.json", MANI), ("coredata/categories.json", CATS), ("coredata/stories.json", STORIES),
              ("security/master_key.bin", KEY), ("media/Images/2025/01/a.heic", PHOTO), ("media/Images/2025/01/b.heic", PHOTO))
OLD = inv(("Data/categories.json", sha("old categories")), ("Keychain/MyStory.MasterKey", sha("old key")))
REFERENCE = inv(("Data/categories.json", CATS), ("Data/stories.json", STORIES), ("Documents/Media/Images/2025/01/a.heic", PHOTO),
                ("Documents/Media/Images/2025/01/b.heic", PHOTO), ("Keychain/MyStory.MasterKey", KEY))
AS_PACKAGED = [f for f in PACKAGE]


def store(outcome, after, before=OLD):
    return {"outcome": outcome, "package": PACKAGE, "before": before, "after": after}


rs.accept("verified-reference-layout", "The reference's layout (Data/, Documents/Media/, Keychain/): every listed file's content, the two equal photos twice.",
          store("verified", REFERENCE), store("verified", REFERENCE), ["MIG-REST-001"], ["real-implementation"])
rs.accept("verified-package-layout", "The package's own paths, the manifest kept: a layout is the app's, content decides.",
          store("verified", AS_PACKAGED), store("verified", AS_PACKAGED), ["MIG-REST-001"])
rs.accept("refused-unchanged", "A refused package: the old store exactly as it was.", store("refused", OLD), store("refused", OLD), ["MIG-REST-001"])
rs.accept("refused-empty-stays-empty", "A phone that never ran the app refuses a package: still nothing.",
          store("refused", [], before=[]), store("refused", [], before=[]), ["MIG-REST-001"])
rs.reject_all("verified-restores-nothing", "Complete verified, and the old store still in place: each old file is one the package does not hold, "
              "and none of the package's files is there (one finding at /package, not one per file).",
              store("verified", OLD), [("/after/0", "MIG-REST-001"), ("/after/1", "MIG-REST-001"), ("/package", "MIG-REST-001")])
rs.reject_all("verified-one-photo-once", "Two listed files with one content need two copies: one photo is missing.",
              store("verified", REFERENCE[:3] + REFERENCE[4:]), [("/package/5", "MIG-REST-001")])
rs.reject_all("verified-with-an-extra-file", "A file the package does not list (a symlink's target written out, a leftover of the old store).",
              store("verified", REFERENCE + inv(("Documents/notes.txt", sha("leftover")))), [("/after/5", "MIG-REST-001")])
rs.reject_all("verified-manifest-twice", "The manifest may be kept once, not twice.",
              store("verified", REFERENCE + inv(("manifest.json", MANI), ("Backup/manifest.json", MANI))), [("/after/6", "MIG-REST-001")])
rs.reject_all("refused-half-restored", "A refused package that left a file changed and one added: the store is neither the old one nor the new one.",
              store("refused", inv(("Data/categories.json", CATS), ("Keychain/MyStory.MasterKey", sha("old key")), ("Data/stories.json", STORIES))),
              [("/after/0", "MIG-REST-001"), ("/after/2", "MIG-REST-001")])
rs.reject_all("refused-store-removed", "A refused package that took the old store away.", store("refused", []),
              [("/before/0", "MIG-REST-001"), ("/before/1", "MIG-REST-001")])
rs.reject("outcome-unknown", "outcome is verified or refused.", dict(store("verified", REFERENCE), outcome="done"), "/outcome", "MIG-REST-001")
rs.reject("digest-upper-case", "A digest is 64 lowercase hexadecimal digits.",
          store("verified", [{"path": "Data/categories.json", "sha256": CATS.upper()}] + REFERENCE[1:]), "/after/0/sha256", "MIG-REST-001")
rs.reject("package-missing", "The package's inventory is required.", {"outcome": "verified", "before": OLD, "after": REFERENCE}, "/package", "CORE-TYPE-001")

for d in (man, cat, sto, med, st, rel, rs):
    total += d.write()
print(total, "cases")
