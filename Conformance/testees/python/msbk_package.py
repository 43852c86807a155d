"""An independent implementation of the migration package rules (Spec/migration.md section 3),
written from the Spec with the Python standard library. It shares no code with the Swift
reference. Every check raises Violation(rule, path). A manifest or an export reports every
independent violation (Spec/core.md "Order of checks") as one Rejected; a package, like every
other document, the first one raised."""
import base64
import binascii
import hashlib
import io
import json
import re
import stat
import struct
import unicodedata
import zipfile
from datetime import datetime, timezone


class Violation(Exception):
    def __init__(self, rule, path):
        super().__init__(f"{rule} at {path}")
        self.rule, self.path = rule, path


class Rejected(Violation):
    """Every independent violation of one document, in document order. It reads as its first, so
    a caller that keeps one violation (a package, Spec/migration.md) needs no change."""

    def __init__(self, violations):
        super().__init__(violations[0].rule, violations[0].path)
        self.violations = violations


def every(v):
    """The violations to answer with: all of a Rejected, else the one."""
    return v.violations if isinstance(v, Rejected) else [v]


class Independent:
    """Runs independent checks: each stops at its own first failure, the others still run
    (Spec/core.md "Order of checks": a user fixes them all in one round)."""

    def __init__(self):
        self.found = []

    def run(self, check, *args):
        """The check's result, or None when it failed (its violation is kept)."""
        try:
            return check(*args)
        except Violation as v:
            self.add(v)
            return None

    def add(self, violation):
        self.found.append(violation)

    def done(self):
        if self.found:
            raise Rejected(self.found)


def ptr(*tokens):
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


class Duplicate(Exception):
    pass


def parse(data):
    def pairs(items):
        seen = {}
        for k, v in items:
            if k in seen:
                raise Duplicate(k)
            seen[k] = v
        return seen
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=pairs)
    except Duplicate as d:
        raise Violation("CORE-JSON-003", ptr(str(d)))
    except (UnicodeDecodeError, ValueError):
        raise Violation("CORE-JSON-001", "")


UUID = re.compile(r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Obj:
    """Typed member access with the core rules' order: present, not null, type."""

    def __init__(self, value, path):
        if not isinstance(value, dict):
            raise Violation("CORE-TYPE-003", path)
        self.v, self.path = value, path

    def at(self, key):
        return self.path + ptr(key)

    def req(self, key):
        if key not in self.v:
            raise Violation("CORE-TYPE-001", self.at(key))
        if self.v[key] is None:
            raise Violation("CORE-TYPE-002", self.at(key))
        return self.v[key]

    def string(self, key):
        v = self.req(key)
        if not isinstance(v, str):
            raise Violation("CORE-TYPE-003", self.at(key))
        return v

    def opt_string(self, key):
        v = self.v.get(key)
        if v is None:
            return None
        if not isinstance(v, str):
            raise Violation("CORE-TYPE-003", self.at(key))
        return v

    def integer(self, key):
        v = self.req(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise Violation("CORE-TYPE-003", self.at(key))
        if isinstance(v, float) or abs(v) > 2**53 - 1:
            raise Violation("CORE-TYPE-004", self.at(key))
        return v

    def number(self, key):
        v = self.req(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise Violation("CORE-TYPE-003", self.at(key))
        return float(v)

    def boolean(self, key):
        v = self.req(key)
        if not isinstance(v, bool):
            raise Violation("CORE-TYPE-003", self.at(key))
        return v

    def obj(self, key):
        return Obj(self.req(key), self.at(key))

    def array(self, key, optional=False):
        if optional and self.v.get(key) is None:
            return []
        v = self.req(key)
        if not isinstance(v, list):
            raise Violation("CORE-TYPE-003", self.at(key))
        return v


def seconds(o, key):
    v = o.integer(key)
    if not 10**9 <= v < 10**11:
        raise Violation("MIG-TIME-001", o.at(key))
    return v


def uuid(o, key, optional=False):
    v = o.opt_string(key) if optional else o.string(key)
    if v is not None and not UUID.match(v):
        raise Violation("MIG-ID-001", o.at(key))
    return v


def blank(s):
    return s.strip(" \t\n\r\x0b\x0c\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000") == ""


def nonblank(o, key, rule):
    v = o.string(key)
    if blank(v):
        raise Violation(rule, o.at(key))
    return v


def nonneg(o, key, rule):
    v = o.integer(key)
    if v < 0:
        raise Violation(rule, o.at(key))
    return v


def safe_path(p):
    if not p or len(p.encode()) > 1024 or p.startswith("/"):
        return False
    if any(c == "\\" or c == ":" or ord(c) < 0x20 or ord(c) == 0x7F for c in p):
        return False
    # Empty, ".", "..", and segments of dots and spaces that Windows trims to one of them.
    return all(seg.strip(". ") != "" for seg in p.split("/"))


def nfc(p):
    return unicodedata.normalize("NFC", p) == p


def fold(p):
    """The name a case-insensitive volume sees (MIG-PKG-006, MIG-MAN-006)."""
    return unicodedata.normalize("NFC", p.casefold())


def safe_name(n):
    return bool(n) and n not in (".", "..") and len(n.encode()) <= 255 and not any(c in "/\\" or ord(c) < 0x20 or ord(c) == 0x7F for c in n) and nfc(n)


ENTITIES = ["CategoryEntity", "StoryEntity", "MediaEntity", "SettingEntity"]


def schema_version(o, supported):
    sv = o.integer("schemaVersion")
    if not 1 <= sv <= supported:
        raise Violation("MIG-MAN-003", o.at("schemaVersion"))
    return sv


def entity_stats(o):
    stats = o.obj("entityStats")
    counts = {}
    for name in ENTITIES:
        counts[name] = nonneg(stats.obj(name), "count", "MIG-MAN-004")
    for k in stats.v:
        if k not in ENTITIES:
            raise Violation("MIG-MAN-004", stats.at(k))
    return counts


def media_stats(o):
    ms = o.obj("mediaStats")
    return nonneg(ms, "totalFiles", "MIG-MAN-005"), nonneg(ms, "totalBytes", "MIG-MAN-005")


def integrity(o):
    integ = o.obj("integrity")
    for k in ("zipSize", "zipSHA256"):
        if k in integ.v:
            raise Violation("MIG-MAN-006", integ.at(k))
    if integ.string("hashAlgorithm") != "SHA256":
        raise Violation("MIG-MAN-006", integ.at("hashAlgorithm"))
    files, seen = [], set()
    for i, f in enumerate(integ.array("files")):
        fo = Obj(f, integ.at("files") + ptr(i))
        p = fo.string("path")
        if not safe_path(p) or fold(p) == "manifest.json" or not nfc(p) or fold(p) in seen:
            raise Violation("MIG-MAN-006", fo.at("path"))
        seen.add(fold(p))
        size = nonneg(fo, "size", "MIG-MAN-006")
        digest = fo.string("sha256")
        if not HEX64.match(digest):
            raise Violation("MIG-MAN-006", fo.at("sha256"))
        files.append((p, size, digest))
    return files


def options(o):
    opts = o.obj("options")
    return opts.boolean("hasBrokenMedia"), nonneg(opts, "brokenMediaCount", "MIG-MAN-007")


def broken_entry(b, path):
    bo = Obj(b, path)
    mid = uuid(bo, "mediaId")
    fname = bo.string("fileName")
    if bo.string("reason") not in ("FILE_NOT_FOUND", "READ_ERROR"):
        raise Violation("MIG-MAN-007", bo.at("reason"))
    return mid, fname


def manifest(value, supported=1):
    o = Obj(value, "")   # a root that is no object stops everything: nothing else can be read
    g = Independent()
    # The member groups of Spec/migration.md 3.2, in its table's order; none needs another's value.
    bid = g.run(uuid, o, "backupId")
    g.run(nonblank, o, "appVersion", "MIG-MAN-002")
    g.run(schema_version, o, supported)
    g.run(seconds, o, "createdAt")
    counts = g.run(entity_stats, o)
    totals = g.run(media_stats, o)
    files = g.run(integrity, o)
    opts = g.run(options, o)
    # The array's own type is one group; when it holds, each element is one more.
    entries = g.run(o.array, "brokenMedia", True) or []
    broken = [g.run(broken_entry, b, o.at("brokenMedia") + ptr(i)) for i, b in enumerate(entries)]
    g.done()
    (total_files, total_bytes), (has_broken, broken_count) = totals, opts
    return {"backupId": bid, "counts": counts, "totalFiles": total_files, "totalBytes": total_bytes, "files": files,
            "hasBroken": has_broken, "brokenCount": broken_count, "broken": broken}


def category(o):
    cid = uuid(o, "id")
    nonblank(o, "name", "MIG-EXP-001")
    o.opt_string("nameEn")
    if not re.match(r"^#[0-9A-Fa-f]{6}$", o.string("colorHex")):
        raise Violation("MIG-EXP-001", o.at("colorHex"))
    level = o.integer("level")
    if level < 1:
        raise Violation("MIG-EXP-001", o.at("level"))
    parent = uuid(o, "parentId", optional=True)
    o.string("iconName")
    if o.string("iconType") not in ("system", "custom"):
        raise Violation("MIG-EXP-001", o.at("iconType"))
    data = o.opt_string("customIconData")
    if data is not None:
        try:
            base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise Violation("MIG-EXP-001", o.at("customIconData"))
    o.integer("sortOrder")
    seconds(o, "createdAt")
    return {"id": cid, "level": level, "parent": parent}


def story(o):
    sid = uuid(o, "id")
    for k in ("title", "content", "plainTextContent"):
        o.opt_string(k)
    created = seconds(o, "createdAt")
    if seconds(o, "updatedAt") < created:
        raise Violation("MIG-EXP-002", o.at("updatedAt"))
    seconds(o, "timestamp")
    o.boolean("isDeleted")
    o.integer("syncStatus")
    for k in ("mood", "locationName", "locationAddress", "locationCity"):
        o.opt_string(k)
    for k, limit in (("latitude", 90), ("longitude", 180)):
        if abs(o.number(k)) > limit:
            raise Violation("MIG-EXP-002", o.at(k))
    for k in ("horizontalAccuracy", "verticalAccuracy"):
        v = o.number(k)
        if not (v >= 0 or v == -1):
            raise Violation("MIG-EXP-002", o.at(k))
    return {"id": sid}


def media(o):
    mid = uuid(o, "id")
    kind = o.string("type")
    if kind not in ("image", "video"):
        raise Violation("MIG-EXP-003", o.at("type"))
    name = o.string("fileName")
    if not safe_name(name):
        raise Violation("MIG-EXP-003", o.at("fileName"))
    thumb = o.opt_string("thumbnailFileName")
    if thumb is not None and not safe_name(thumb):
        raise Violation("MIG-EXP-003", o.at("thumbnailFileName"))
    nonblank(o, "encryptionKeyId", "MIG-EXP-003")
    size = nonneg(o, "fileSize", "MIG-EXP-003")
    nonneg(o, "width", "MIG-EXP-003")
    nonneg(o, "height", "MIG-EXP-003")
    if o.number("duration") < 0:
        raise Violation("MIG-EXP-003", o.at("duration"))
    created = seconds(o, "createdAt")
    story_id = uuid(o, "storyId", optional=True)
    when = datetime.fromtimestamp(created, tz=timezone.utc)
    folder = f"{'Videos' if kind == 'video' else 'Images'}/{when.year:04d}/{when.month:02d}"
    return {"id": mid, "name": name, "thumb": thumb, "size": size, "story": story_id, "folder": folder}


def setting(o):
    key = nonblank(o, "key", "MIG-EXP-004")
    kind = o.string("type")
    if kind not in ("bool", "int", "double", "string", "json"):
        raise Violation("MIG-EXP-004", o.at("type"))
    value = o.string("value")
    ok = True
    if kind == "bool":
        ok = value in ("true", "false")
    elif kind == "int":
        ok = re.fullmatch(r"-?[0-9]+", value) is not None and abs(int(value)) < 2**63
    elif kind == "double":
        try:
            ok = abs(float(value)) != float("inf") and value.strip() == value and value.lower() not in ("nan", "inf", "-inf", "infinity")
        except ValueError:
            ok = False
    elif kind == "json":
        try:
            parse(value.encode())
        except Violation:
            ok = False
    if not ok:
        raise Violation("MIG-EXP-004", o.at("value"))
    seconds(o, "updatedAt")
    return {"key": key}


def relation(o):
    return {"story": uuid(o, "storyId"), "category": uuid(o, "categoryId")}


EXPORTS = {"categories": category, "stories": story, "media": media, "settings": setting, "relations_story_categories": relation}


def identity(r, kind):
    """What MIG-ID-002 keeps unique, and the member its violation names."""
    if kind == "settings":
        return r["key"], "key"
    if kind == "relations_story_categories":
        return (r["story"].lower(), r["category"].lower()), "categoryId"
    return r["id"].lower(), "id"


def element(value, i, kind):
    return EXPORTS[kind](Obj(value, ptr(i)))


def export(value, kind):
    if not isinstance(value, list):
        raise Violation("CORE-TYPE-003", "")
    g = Independent()
    records, seen = [], {}
    for i, item in enumerate(value):
        r = g.run(element, item, i, kind)   # every element checker returns a dict: None is a failure
        if r is None:
            continue
        # Uniqueness among the elements that passed: a broken element's id cannot be trusted.
        ident, key = identity(r, kind)
        if ident in seen:
            g.add(Violation("MIG-ID-002", ptr(i, key)))
            continue
        seen[ident] = i
        records.append(r)
    g.done()
    return records


def nest(v, *prefix):
    return Violation(v.rule, ptr(*prefix) + v.path)


def local_header_agrees(data, info):
    """Name bytes, method, flags 0, 3 and 11, and (without a data descriptor) both sizes."""
    at = info.header_offset
    if data[at:at + 4] != b"PK\x03\x04":
        return False
    flags, method = struct.unpack_from("<HH", data, at + 6)
    csize, size, n, m = struct.unpack_from("<IIHH", data, at + 18)
    raw_name = info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
    if data[at + 30:at + 30 + n] != raw_name or method != info.compress_type:
        return False
    mask = 1 | 8 | 0x800
    if flags & mask != info.flag_bits & mask:
        return False
    if info.flag_bits & 8:
        return True
    extra = data[at + 30 + n:at + 30 + n + m]
    while len(extra) >= 4:
        tag, length = struct.unpack_from("<HH", extra)
        body = extra[4:4 + length]
        if tag == 1:
            values = [v for v in (size, csize) if v == 0xFFFFFFFF]
            wide = [struct.unpack_from("<Q", body, 8 * i)[0] for i in range(len(values)) if 8 * i + 8 <= len(body)]
            if len(wide) < len(values):
                return False
            if size == 0xFFFFFFFF:
                size, wide = wide[0], wide[1:]
            if csize == 0xFFFFFFFF:
                csize = wide[0]
        extra = extra[4 + length:]
    return size == info.file_size and csize == info.compress_size


def ends_with_end_record(data):
    """MIG-PKG-006: the end record is the one whose comment ends the file (zipfile takes the last
    one that fits, and so reads archives with bytes appended after them)."""
    tail = data[-(22 + 0xFFFF):]
    at = tail.rfind(b"PK\x05\x06")
    while at >= 0:
        if at + 22 <= len(tail) and at + 22 + int.from_bytes(tail[at + 20:at + 22], "little") == len(tail):
            return True
        at = tail.rfind(b"PK\x05\x06", 0, at)
    return False


def package(data, supported=1):
    """Checks a whole package zip; returns the summary the vectors' canonical form states."""
    if not ends_with_end_record(data):
        raise Violation("MIG-PKG-006", "")
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
        infos = z.infolist()
    except (zipfile.BadZipFile, ValueError):
        raise Violation("MIG-PKG-006", "")
    folder, seen = None, set()
    for info in infos:
        name = info.filename
        at = ptr("entries", name)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise Violation("MIG-PKG-006", at)
        trimmed = name[:-1] if name.endswith("/") else name
        if not safe_path(trimmed):
            raise Violation("MIG-PKG-006", at)
        top = trimmed.split("/")[0]
        if not top.startswith("Backup-") or (folder is not None and top != folder):
            raise Violation("MIG-PKG-006", at)
        folder = top
        if not nfc(trimmed) or fold(trimmed) in seen:
            raise Violation("MIG-PKG-006", at)
        seen.add(fold(trimmed))
        if name.endswith("/"):
            continue
        # A zip bomb's declared ratio, encryption, methods other than stored and deflated, and a
        # stored entry whose two sizes differ are refused before anything is read.
        if info.file_size > 1000 * info.compress_size + (1 << 20):
            raise Violation("MIG-PKG-006", at)
        if info.flag_bits & 1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise Violation("MIG-PKG-006", at)
        if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            raise Violation("MIG-PKG-006", at)
        # A stored entry with a data descriptor has no end a front-to-back reader can find.
        if info.compress_type == zipfile.ZIP_STORED and info.flag_bits & 8:
            raise Violation("MIG-PKG-006", at)
    if folder is None:
        raise Violation("MIG-PKG-006", "")
    # No entry's header and data may reach into the next entry or the central directory.
    by_offset = sorted(enumerate(infos), key=lambda p: (p[1].header_offset, p[0]))
    for k, (_, info) in enumerate(by_offset):
        raw_name = info.filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
        end = info.header_offset + 30 + len(raw_name) + info.compress_size
        if k + 1 < len(by_offset) and end > by_offset[k + 1][1].header_offset:
            raise Violation("MIG-PKG-006", ptr("entries", by_offset[k + 1][1].filename))
        if k + 1 == len(by_offset) and end > z.start_dir:
            raise Violation("MIG-PKG-006", ptr("entries", info.filename))
    # A streaming reader sees only local headers: they must say what the central directory says.
    for info in infos:
        if not local_header_agrees(data, info):
            raise Violation("MIG-PKG-006", ptr("entries", info.filename))
    files = {}
    for info in infos:
        if not info.filename.endswith("/"):
            files[info.filename[len(folder) + 1:]] = z.read(info)

    def doc(path):
        if path not in files:
            raise Violation("MIG-PKG-005", ptr(*path.split("/")))
        try:
            return parse(files[path])
        except Violation as v:
            raise nest(v, *path.split("/"))

    try:
        m = manifest(doc("manifest.json"), supported)
    except Violation as v:
        raise v if v.path.startswith("/manifest.json") else nest(v, "manifest.json")
    if folder != f"Backup-{m['backupId']}":
        raise Violation("MIG-MAN-001", ptr("manifest.json", "backupId"))
    records = {}
    for kind in ("settings", "categories", "stories", "media", "relations_story_categories"):
        value = doc(f"coredata/{kind}.json")
        try:
            records[kind] = export(value, kind)
        except Violation as v:
            raise nest(v, "coredata", f"{kind}.json")
    inventory = {p: (len(d), hashlib.sha256(d).hexdigest()) for p, d in files.items() if p != "manifest.json"}
    consistency(m, records, inventory)
    return {"backupId": m["backupId"], "entityCounts": m["counts"], "files": len(m["files"]), "brokenMedia": m["brokenCount"]}


def consistency(m, rec, inv):
    key = inv.get("security/master_key.bin")
    if key is None or not 1 <= key[0] <= 4096:
        raise Violation("MIG-PKG-007", ptr("security", "master_key.bin"))
    listed = {p: (i, size, digest) for i, (p, size, digest) in enumerate(m["files"])}
    for p in sorted(inv):
        if p not in listed:
            raise Violation("MIG-PKG-005", ptr("files", p))
        i, size, digest = listed[p]
        if size != inv[p][0]:
            raise Violation("MIG-PKG-005", ptr("manifest.json", "integrity", "files", i, "size"))
        if digest != inv[p][1]:
            raise Violation("MIG-PKG-005", ptr("manifest.json", "integrity", "files", i, "sha256"))
    for i, (p, _, _) in enumerate(m["files"]):
        if p not in inv:
            raise Violation("MIG-PKG-005", ptr("manifest.json", "integrity", "files", i, "path"))
    for kind in ("categories", "stories", "media", "settings", "relations_story_categories"):
        if f"coredata/{kind}.json" not in inv:
            raise Violation("MIG-PKG-005", ptr("coredata", f"{kind}.json"))
    for kind, name in (("categories", "CategoryEntity"), ("stories", "StoryEntity"), ("media", "MediaEntity"), ("settings", "SettingEntity")):
        if m["counts"][name] != len(rec[kind]):
            raise Violation("MIG-PKG-001", ptr("manifest.json", "entityStats", name, "count"))
    media_files = {p: v for p, v in inv.items() if p.startswith("media/")}
    if m["totalFiles"] != len(media_files):
        raise Violation("MIG-PKG-001", ptr("manifest.json", "mediaStats", "totalFiles"))
    if m["totalBytes"] != sum(v[0] for v in media_files.values()):
        raise Violation("MIG-PKG-001", ptr("manifest.json", "mediaStats", "totalBytes"))
    if m["hasBroken"] != (m["brokenCount"] > 0):
        raise Violation("MIG-PKG-002", ptr("manifest.json", "options", "hasBrokenMedia"))
    if m["brokenCount"] != len(m["broken"]):
        raise Violation("MIG-PKG-002", ptr("manifest.json", "options", "brokenMediaCount"))
    med = {r["id"].lower(): (i, r) for i, r in enumerate(rec["media"])}
    broken = set()
    for i, (mid, fname) in enumerate(m["broken"]):
        if mid.lower() not in med:
            raise Violation("MIG-PKG-002", ptr("manifest.json", "brokenMedia", i, "mediaId"))
        if med[mid.lower()][1]["name"] != fname:
            raise Violation("MIG-PKG-002", ptr("manifest.json", "brokenMedia", i, "fileName"))
        broken.add(mid.lower())
    cats = {r["id"].lower(): (i, r) for i, r in enumerate(rec["categories"])}
    stories = {r["id"].lower() for r in rec["stories"]}
    for i, c in enumerate(rec["categories"]):
        if c["parent"] is not None and c["parent"].lower() not in cats:
            raise Violation("MIG-PKG-003", ptr("coredata", "categories.json", i, "parentId"))
    for i, r in enumerate(rec["media"]):
        if r["story"] is not None and r["story"].lower() not in stories:
            raise Violation("MIG-PKG-003", ptr("coredata", "media.json", i, "storyId"))
    for i, r in enumerate(rec["relations_story_categories"]):
        if r["story"].lower() not in stories:
            raise Violation("MIG-PKG-003", ptr("coredata", "relations_story_categories.json", i, "storyId"))
        if r["category"].lower() not in cats:
            raise Violation("MIG-PKG-003", ptr("coredata", "relations_story_categories.json", i, "categoryId"))
    for i, c in enumerate(rec["categories"]):
        if c["parent"] is None:
            want = 1
        else:
            seen, cur = {i}, cats[c["parent"].lower()][0]
            while cur is not None:
                if cur in seen:
                    raise Violation("MIG-PKG-004", ptr("coredata", "categories.json", i, "parentId"))
                seen.add(cur)
                parent = rec["categories"][cur]["parent"]
                cur = cats[parent.lower()][0] if parent is not None and parent.lower() in cats else None
            want = cats[c["parent"].lower()][1]["level"] + 1
        if c["level"] != want:
            raise Violation("MIG-PKG-004", ptr("coredata", "categories.json", i, "level"))
    for i, r in enumerate(rec["media"]):
        if r["id"].lower() in broken:
            continue
        path = f"media/{r['folder']}/{r['name']}"
        if path not in inv:
            raise Violation("MIG-PKG-005", ptr("coredata", "media.json", i, "fileName"))
        if inv[path][0] != r["size"]:
            raise Violation("MIG-PKG-005", ptr("coredata", "media.json", i, "fileSize"))
        if r["thumb"] is not None and f"media/{r['folder']}/{r['thumb']}" not in inv:
            raise Violation("MIG-PKG-005", ptr("coredata", "media.json", i, "thumbnailFileName"))
    for mid in broken:
        i, r = med[mid]
        if f"media/{r['folder']}/{r['name']}" in inv:
            raise Violation("MIG-PKG-002", ptr("coredata", "media.json", i, "fileName"))


KEYS = {
    "manifest": ["backupId", "appVersion", "schemaVersion", "createdAt", "entityStats", "mediaStats", "integrity", "options", "brokenMedia"],
    "categories": ["id", "name", "nameEn", "colorHex", "level", "parentId", "iconName", "iconType", "customIconData", "sortOrder", "createdAt"],
    "stories": ["id", "title", "content", "plainTextContent", "createdAt", "updatedAt", "timestamp", "isDeleted", "syncStatus", "mood",
                "locationName", "locationAddress", "locationCity", "latitude", "longitude", "horizontalAccuracy", "verticalAccuracy"],
    "media": ["id", "type", "fileName", "thumbnailFileName", "encryptionKeyId", "fileSize", "width", "height", "duration", "createdAt", "storyId"],
    "settings": ["key", "type", "value", "updatedAt"],
    "relations_story_categories": ["storyId", "categoryId"],
}


def canonical(value, kind):
    """Spec migration.md 3: declared members that are given (not null), values as received."""
    def pick(o):
        return {k: o[k] for k in KEYS[kind] if o.get(k) is not None}
    return pick(value) if kind == "manifest" else [pick(e) for e in value]
