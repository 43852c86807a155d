#!/usr/bin/env python3
"""A migration receiver (the new phone) written from README.md, Spec/migration.md, Spec/core.md,
Spec/security.md, Conformance/scenarios/ and the two pairing outsiders alone, with no code of the
reference: the outsider that `conformance run --role receiver` is tested against. Python standard
library plus `cryptography` (PBKDF2, HKDF-Expand, HMAC, AES-GCM); its RFC 6455 client is adapted
from outsider-desktop's. See README.md beside it.

    receiver.py --connect ws://HOST:PORT --out DIR --pin-out PIN [--password-file PW] [--sessions N]

One migration per session: connect, show a PIN (written to PIN), greet, check the PIN, check
BackupMeta and the password against the envelope header, receive and acknowledge every chunk into
DIR/backup-ID.enc.tmp with a journal beside it, resume after a dropped connection, verify the
envelope digest, answer Complete, then open the envelope and restore the package into DIR/store.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import queue
import re
import secrets
import shutil
import signal
import socket
import struct
import sys
import threading
import time
import unicodedata
import uuid
import zlib
from urllib.parse import urlparse

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

# Where the Spec lets a receiver choose (README.md lists them with the reference's values).
MAX_WINDOW = 6                 # Handshake maxWindow (1..64; reference 16)
START_WINDOW = 5               # StartTransfer window (1..64): the effective window is the smallest
RESUME_WINDOW = 4              # ResumeTransfer's optional window after a reconnect
MAX_CHUNK = 100_000            # Handshake maxChunkSize (4096..16 MiB; reference 1 MiB), not a power of two
MAX_RETRANSMITS = 3            # asks for one chunk at most 3 times (Spec: at most 4)
STALL_S = 25.0                 # drops a transferring connection silent for more than this (reference 30 s)
LOCKOUT_S = 45.0               # first wait after a locked session, doubling, at most 1 h (Spec: >= 30 s)
RECONNECT_GIVE_UP_S = 150.0    # the sender keeps a session 120 s after a drop
CONNECT_BACKOFF_S = [0.25, 0.5, 1.0, 2.0]
HANDSHAKE_WAIT_S = 10.0        # for the sender's Handshake after ours (MIG-XFER-007: at most handshakeTimeout)
PIN_WAIT_S = 180.0             # for the sender's user to type the PIN
META_WAIT_S = 300.0            # for the sender to pack its store
PAUSE_WAIT_S = 600.0           # a pause longer than this ends the session
APP_VERSION = "0.9.0-outsider"
DEVICE_NAME = "Outsider\u2019s Pixel \u00b7 \u65b0\u624b\u673a"
SCHEMA = 1
ITER_MIN, ITER_MAX = 600_000, 10_000_000

MAX_CONTROL = 65536            # MIG-WS-001 / CORE-JSON-004
MAX_DOC = 256 << 20            # package documents
GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
UUID_RE = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z")
HEX64 = re.compile(r"[0-9a-f]{64}\Z")
TYPES = ("Handshake", "AuthPIN", "StartBackup", "BackupMeta", "StartTransfer", "PauseTransfer",
         "ResumeTransfer", "CancelTransfer", "ChunkAck", "Complete")
WHITE_SPACE = set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                  "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
FAULTS = ("ack-corrupt", "skip-final-digest", "accept-any-pin", "wrong-attempts-left",
          "bad-resume-token", "no-lockout", "fixed-pin-999999", "early-lock", "no-restore", "restore-leftover",
          "restore-refused", "no-resume", "forget-have", "slow-restore", "hang-up-at-pin")


def log(*a):
    print("outsider-receiver:", *a, file=sys.stderr, flush=True)


def trace(*a):
    if os.environ.get("OUTSIDER_RECEIVER_TRACE"):
        log(*a)


# ---------------------------------------------------------------------------------------------
# The JSON wire profile (core.md) and typed members.

class Violation(Exception):
    def __init__(self, rule, path, why=""):
        super().__init__(f"{rule} at \"{path}\"" + (f": {why}" if why else ""))
        self.rule, self.path, self.why = rule, path, why


def _no_dupes(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise Violation("CORE-JSON-003", "/" + k, "repeated member")
        seen[k] = v
    return seen


def _bad_constant(name):
    raise Violation("CORE-JSON-001", "", f"{name} is not JSON")


def _walk(value, path, depth):
    stack = [(value, path, depth)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, (dict, list)) and depth > 64:
            raise Violation("CORE-JSON-005", path, "nested deeper than 64")
        if isinstance(value, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
                raise Violation("CORE-JSON-002", path, "lone surrogate")
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise Violation("CORE-JSON-006", path)
        elif isinstance(value, dict):
            for k, v in value.items():
                stack.append((v, path + "/" + k.replace("~", "~0").replace("/", "~1"), depth + 1))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                stack.append((v, f"{path}/{i}", depth + 1))


def parse(raw, limit=MAX_CONTROL):
    if len(raw) > limit:
        raise Violation("CORE-JSON-004", "", f"{len(raw)} bytes")
    try:
        text = bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise Violation("CORE-JSON-002", "")
    if text.startswith("\ufeff"):
        raise Violation("CORE-JSON-001", "", "byte order mark")
    if re.search(r"[^\x20\t\n\r]", text) is None:
        raise Violation("CORE-JSON-001", "", "empty document")
    try:
        value = json.loads(text, object_pairs_hook=_no_dupes, parse_constant=_bad_constant)
    except ValueError as e:
        raise Violation("CORE-JSON-001", "", str(e))
    except RecursionError:
        raise Violation("CORE-JSON-005", "")
    _walk(value, "", 1)
    return value


def member(doc, name, kind, path, required=True):
    p = f"{path}/{name}"
    if name not in doc or doc[name] is None:
        if required:
            raise Violation("CORE-TYPE-001" if name not in doc else "CORE-TYPE-002", p)
        return None
    v = doc[name]
    if kind == "string" and not isinstance(v, str):
        raise Violation("CORE-TYPE-003", p, "not a string")
    if kind == "object" and not isinstance(v, dict):
        raise Violation("CORE-TYPE-003", p, "not an object")
    if kind == "array" and not isinstance(v, list):
        raise Violation("CORE-TYPE-003", p, "not an array")
    if kind == "boolean" and not isinstance(v, bool):
        raise Violation("CORE-TYPE-003", p, "not a boolean")
    if kind == "integer":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise Violation("CORE-TYPE-003", p, "not a number")
        if isinstance(v, float) or abs(v) > 2 ** 53 - 1:
            raise Violation("CORE-TYPE-004", p, "not an integer literal")
    return v


def blank(s):
    return all(c in WHITE_SPACE for c in s)


def check_uuid(v, p, rule="MIG-ID-001"):
    if not UUID_RE.match(v):
        raise Violation(rule, p, f"{v[:64]!r} is not an 8-4-4-4-12 UUID")


def same_id(a, b):
    return a.lower() == b.lower()


def dumps(doc):
    return json.dumps(doc, ensure_ascii=True, separators=(",", ":"))


def control(mtype, payload):
    # `payload` before `type`: member order is not significant (core.md)
    return {"payload": payload, "type": mtype}


# ---------------------------------------------------------------------------------------------
# Control messages (migration.md 5.1). Each returns the payload, or raises the first Violation.

def check_message(doc):
    if not isinstance(doc, dict):
        raise Violation("CORE-TYPE-003", "", "not an object")
    t = member(doc, "type", "string", "")
    if t not in TYPES:
        raise Violation("MIG-MSG-001", "/type", f"unknown type {t[:64]!r}")
    return t, member(doc, "payload", "object", "")


def check_handshake(p):
    P = "/payload"
    if member(p, "protocolVersion", "integer", P) != 1:
        raise Violation("MIG-MSG-002", P + "/protocolVersion", "not 1")
    if member(p, "role", "string", P) != "sender":
        raise Violation("MIG-MSG-002", P + "/role", "a receiver expects role sender")
    check_uuid(member(p, "sessionId", "string", P), P + "/sessionId", "MIG-MSG-002")
    if blank(member(p, "appVersion", "string", P)):
        raise Violation("MIG-MSG-002", P + "/appVersion", "blank")
    if member(p, "schemaVersion", "integer", P) < 1:
        raise Violation("MIG-MSG-002", P + "/schemaVersion", "below 1")
    dev = member(p, "device", "object", P)
    if blank(member(dev, "name", "string", P + "/device")):
        raise Violation("MIG-MSG-002", P + "/device/name", "blank")
    if not 1 <= member(p, "maxWindow", "integer", P) <= 64:
        raise Violation("MIG-MSG-002", P + "/maxWindow", "not 1..64")
    if not 4096 <= member(p, "maxChunkSize", "integer", P) <= 16 << 20:
        raise Violation("MIG-MSG-002", P + "/maxChunkSize", "not 4096..16 MiB")
    return p


def check_pin_request(p):
    P = "/payload"
    if "result" in p and p["result"] is not None:
        raise Violation("MIG-MSG-003", P + "/result", "a sender sends the request shape {pin}")
    pin = member(p, "pin", "string", P)
    if not (len(pin) == 6 and all("0" <= c <= "9" for c in pin)):
        raise Violation("MIG-MSG-003", P + "/pin", "not six ASCII digits")
    return pin


def check_meta(p):
    P = "/payload"
    check_uuid(member(p, "backupId", "string", P), P + "/backupId")
    size = member(p, "fileSize", "integer", P)
    if size < 97:
        raise Violation("MIG-MSG-004", P + "/fileSize", "below 97")
    cs = member(p, "chunkSize", "integer", P)
    if not 4096 <= cs <= 16 << 20:
        raise Violation("MIG-MSG-004", P + "/chunkSize", "not 4096..16 MiB")
    if member(p, "chunkCount", "integer", P) != -(-size // cs):
        raise Violation("MIG-MSG-004", P + "/chunkCount", "not ceil(fileSize / chunkSize)")
    if not HEX64.match(member(p, "envelopeSHA256", "string", P)):
        raise Violation("MIG-MSG-004", P + "/envelopeSHA256", "not 64 lower-case hex digits")
    if member(p, "zipSize", "integer", P) < 0:
        raise Violation("MIG-MSG-004", P + "/zipSize", "negative")
    if member(p, "schemaVersion", "integer", P) < 1:
        raise Violation("MIG-MSG-004", P + "/schemaVersion", "below 1")
    member(p, "appVersion", "string", P)
    h = member(p, "envelopeHeader", "string", P, required=False)
    if h is not None:
        try:
            if not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", h) or len(h) % 4:
                raise ValueError
            raw = base64.b64decode(h, validate=True)
        except ValueError:
            raise Violation("MIG-MSG-004", P + "/envelopeHeader", "not padded base64")
        if len(raw) != 97:
            raise Violation("MIG-MSG-004", P + "/envelopeHeader", f"{len(raw)} bytes, not 97")
        p = dict(p, _header=raw)
    return p


def check_sender_complete(p, meta):
    P = "/payload"
    if "result" in p and p["result"] is not None:
        raise Violation("MIG-MSG-008", P + "/result", "the sender's Complete has no result")
    bid = member(p, "backupId", "string", P)
    check_uuid(bid, P + "/backupId")
    cc = member(p, "chunkCount", "integer", P)
    dg = member(p, "envelopeSHA256", "string", P)
    if not HEX64.match(dg):
        raise Violation("MIG-MSG-008", P + "/envelopeSHA256", "not 64 lower-case hex digits")
    if not same_id(bid, meta["backupId"]):
        raise Violation("MIG-XFER-004", P + "/backupId", "not BackupMeta's")
    if cc != meta["chunkCount"]:
        raise Violation("MIG-XFER-004", P + "/chunkCount", "not BackupMeta's")
    if dg != meta["envelopeSHA256"]:
        raise Violation("MIG-XFER-004", P + "/envelopeSHA256", "not BackupMeta's")


# ---------------------------------------------------------------------------------------------
# The envelope (migration.md 2).

MAGIC = bytes.fromhex("894D53424B0D0A1A")


class EnvelopeError(Exception):
    def __init__(self, rule, code, path, why=""):
        super().__init__(f"{code} ({rule} at \"{path}\")" + (f": {why}" if why else ""))
        self.rule, self.code, self.path = rule, code, path


_key_cache = {}


def envelope_keys(password, header):
    """Checks a 97-byte header as opening would (MIG-ENV-001..005); returns the header fields and
    the payload key. One PBKDF2 derivation, cached for the same header and password."""
    if len(header) < 97:
        if header[:8] != MAGIC[:len(header[:8])]:
            raise EnvelopeError("MIG-ENV-001", "not-an-envelope", "/header/magic")
        raise EnvelopeError("MIG-ENV-006", "truncated", "/header")
    if header[:8] != MAGIC:
        raise EnvelopeError("MIG-ENV-001", "not-an-envelope", "/header/magic")
    if header[8] != 1:
        raise EnvelopeError("MIG-ENV-002", "unsupported-version", "/header/version")
    if header[9] != 1:
        raise EnvelopeError("MIG-ENV-002", "unsupported-version", "/header/kdf")
    iterations, = struct.unpack(">I", header[10:14])
    salt = header[14:30]
    seg, = struct.unpack(">I", header[30:34])
    length, = struct.unpack(">Q", header[34:42])
    prefix, keycheck, mac = header[42:49], header[49:65], header[65:97]
    if not ITER_MIN <= iterations <= ITER_MAX:
        raise EnvelopeError("MIG-ENV-003", "header-invalid", "/header/iterations", str(iterations))
    if seg & (seg - 1) or not 1 << 12 <= seg <= 1 << 24:
        raise EnvelopeError("MIG-ENV-003", "header-invalid", "/header/segmentSize", str(seg))
    if length > 1 << 40:
        raise EnvelopeError("MIG-ENV-003", "header-invalid", "/header/plaintextLength", str(length))
    pw = unicodedata.normalize("NFC", password).encode("utf-8")
    cache_key = (pw, bytes(salt), iterations)
    master = _key_cache.get(cache_key)
    if master is None:
        master = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=bytes(salt),
                            iterations=iterations).derive(pw)
        _key_cache.clear()
        _key_cache[cache_key] = master

    def expand(info, n):
        return HKDFExpand(algorithm=hashes.SHA256(), length=n, info=info.encode("ascii")).derive(master)
    if not hmac.compare_digest(expand("MSBK v1 key check", 16), keycheck):
        raise EnvelopeError("MIG-ENV-004", "wrong-password", "/header/keyCheck")
    if not hmac.compare_digest(hmac.new(expand("MSBK v1 header", 32), header[:65], "sha256").digest(), mac):
        raise EnvelopeError("MIG-ENV-005", "header-tampered", "/header/mac")
    return {"segmentSize": seg, "plaintextLength": length, "prefix": bytes(prefix), "mac": bytes(mac),
            "key": expand("MSBK v1 payload", 32), "iterations": iterations}


def open_envelope(src, dst, password):
    """Decrypts src into dst one segment at a time (memory: one segment), releasing plaintext only
    after its tag verified; reports the first failure in file order (MIG-ENV-001..009)."""
    with open(src, "rb") as f, open(dst, "wb") as out:
        h = envelope_keys(password, f.read(97))
        S, L = h["segmentSize"], h["plaintextLength"]
        n = max(1, -(-L // S))
        aead = AESGCM(h["key"])

        def seal_len(i):
            return (S if i < n - 1 else L - S * (n - 1))

        def try_open(i, body):
            nonce = h["prefix"] + struct.pack(">I", i) + (b"\x01" if i == n - 1 else b"\x00")
            try:
                return aead.decrypt(nonce, bytes(body), h["mac"])
            except InvalidTag:
                return None
        for i in range(n):
            want = 4 + seal_len(i) + 16
            frame = f.read(want)
            if len(frame) < want:
                raise EnvelopeError("MIG-ENV-006", "truncated", "", f"segment {i} of {n} ends early")
            clear, = struct.unpack(">I", frame[:4])
            plain = try_open(i, frame[4:])
            if plain is None or clear != i:
                if plain is None and clear != i and clear < n and try_open(clear, frame[4:]) is not None:
                    raise EnvelopeError("MIG-ENV-008", "segments-reordered", f"/segments/{i}", f"frame {i} is segment {clear}")
                raise EnvelopeError("MIG-ENV-009", "segment-corrupt", f"/segments/{i}")
            out.write(plain)
        if f.read(1):
            raise EnvelopeError("MIG-ENV-007", "extended", "", "bytes after the last segment")
    return L


# ---------------------------------------------------------------------------------------------
# The package (migration.md 3, 4): archive checks, staging, switch.

class PackageError(Exception):
    def __init__(self, rule, path, why=""):
        super().__init__(f"{rule} at \"{path}\"" + (f": {why}" if why else ""))
        self.rule, self.path = rule, path


def read_central_directory(f, size):
    """The central directory of the zip in f (MIG-PKG-006's archive part). Returns entries
    {name, method, flags, csize, usize, offset, attr, made_by, crc}."""
    tail = min(size, 22 + 65535)
    f.seek(size - tail)
    buf = f.read(tail)
    eocd = None
    for i in range(len(buf) - 22, -1, -1):
        if buf[i:i + 4] == b"PK\x05\x06":
            clen, = struct.unpack("<H", buf[i + 20:i + 22])
            if i + 22 + clen == len(buf):
                eocd = i
                break
    if eocd is None:
        raise PackageError("MIG-PKG-006", "", "no end of central directory record ends the file")
    _, disk, cd_disk, n_here, n_total, cd_size, cd_off, _ = struct.unpack("<IHHHHIIH", buf[eocd:eocd + 22])
    eocd_pos = size - tail + eocd
    cd_end_limit = eocd_pos
    if 0xFFFF in (n_here, n_total) or 0xFFFFFFFF in (cd_size, cd_off):
        if eocd < 20 or buf[eocd - 20:eocd - 16] != b"PK\x06\x07":
            raise PackageError("MIG-PKG-006", "", "ZIP64 sizes without a ZIP64 locator")
        z64_off, = struct.unpack("<Q", buf[eocd - 12:eocd - 4])
        f.seek(z64_off)
        z = f.read(56)
        if len(z) < 56 or z[:4] != b"PK\x06\x06":
            raise PackageError("MIG-PKG-006", "", "no ZIP64 end record where the locator points")
        n_total, = struct.unpack("<Q", z[32:40])
        cd_size, cd_off = struct.unpack("<QQ", z[40:56])
        cd_end_limit = z64_off
    if n_total > 1_000_000:
        raise PackageError("MIG-PKG-006", "", f"{n_total} entries (at most 1,000,000)")
    if cd_off + cd_size > cd_end_limit:
        raise PackageError("MIG-PKG-006", "", "the central directory overlaps the end records")
    f.seek(cd_off)
    entries, pos = [], cd_off
    for _ in range(n_total):
        head = f.read(46)
        if len(head) < 46 or head[:4] != b"PK\x01\x02":
            raise PackageError("MIG-PKG-006", "", "central directory unreadable")
        (made_by, _need, flags, method, _t, _d, crc, csize, usize, nlen, xlen, clen, _disk, _ia, attr,
         off) = struct.unpack("<HHHHHHIIIHHHHHII", head[4:46])
        rest = f.read(nlen + xlen + clen)
        if len(rest) < nlen + xlen + clen:
            raise PackageError("MIG-PKG-006", "", "central directory unreadable")
        raw_name, extra = rest[:nlen], rest[nlen:nlen + xlen]
        try:
            name = raw_name.decode("utf-8") if flags & 0x800 else raw_name.decode("cp437")
        except UnicodeDecodeError:
            raise PackageError("MIG-PKG-006", "/entries/" + raw_name.decode("utf-8", "replace"), "name is not UTF-8")
        i = 0
        while i + 4 <= len(extra):
            eid, elen = struct.unpack("<HH", extra[i:i + 4])
            data = extra[i + 4:i + 4 + elen]
            if eid == 1:
                j = 0
                for field in ("usize", "csize", "off"):
                    cur = {"usize": usize, "csize": csize, "off": off}[field]
                    if cur == 0xFFFFFFFF and j + 8 <= len(data):
                        v, = struct.unpack("<Q", data[j:j + 8])
                        j += 8
                        if field == "usize":
                            usize = v
                        elif field == "csize":
                            csize = v
                        else:
                            off = v
            i += 4 + elen
        entries.append({"name": name, "raw_name": raw_name, "method": method, "flags": flags, "csize": csize, "usize": usize,
                        "offset": off, "attr": attr, "made_by": made_by, "crc": crc})
        pos += 46 + nlen + xlen + clen
    if pos - cd_off > cd_size:
        raise PackageError("MIG-PKG-006", "", "central directory longer than declared")
    return entries, (cd_off, cd_off + cd_size)


def check_path(name):
    p = "/entries/" + name
    if len(name.encode("utf-8")) > 1024:
        raise PackageError("MIG-PKG-006", p, "path over 1024 bytes")
    if name.startswith("/") or "\\" in name or ":" in name or any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        raise PackageError("MIG-PKG-006", p, "absolute path, backslash, colon or control character")
    segs = name.split("/")
    body = segs[:-1] if name.endswith("/") else segs      # a directory entry's trailing "/"
    if any(s in ("", ".", "..") for s in body):
        raise PackageError("MIG-PKG-006", p, "empty, . or .. segment")


def check_archive(f, size, backup_id):
    entries, cd = read_central_directory(f, size)
    folder = f"Backup-{backup_id}/"
    seen, total, spans = set(), 0, []
    for e in entries:
        name, p = e["name"], "/entries/" + e["name"]
        check_path(name)
        if not name.lower().startswith(folder.lower()) or not same_id(name[7:7 + 36], backup_id):
            raise PackageError("MIG-PKG-006", p, f"not in {folder}")
        if name in seen:
            raise PackageError("MIG-PKG-006", p, "path appears twice")
        seen.add(name)
        if (e["made_by"] >> 8) == 3 and (e["attr"] >> 16) & 0o170000 == 0o120000:
            raise PackageError("MIG-PKG-006", p, "symbolic link")
        if e["flags"] & 1:
            raise PackageError("MIG-PKG-006", p, "encrypted entry")
        if e["method"] == 0:
            if e["csize"] != e["usize"]:
                raise PackageError("MIG-PKG-006", p, "stored entry with different sizes")
        elif e["method"] != 8:
            raise PackageError("MIG-PKG-006", p, f"method {e['method']}")
        if e["usize"] > 1000 * max(e["csize"], 0) and e["usize"] > 0:
            raise PackageError("MIG-PKG-006", p, "expands more than 1000-fold")
        total += e["usize"]
        if total > 1 << 40:
            raise PackageError("MIG-PKG-006", p, "more than 2^40 bytes unpacked")
        f.seek(e["offset"])
        lh = f.read(30)
        if len(lh) < 30 or lh[:4] != b"PK\x03\x04":
            raise PackageError("MIG-PKG-006", p, "no local header at its offset")
        nlen, xlen = struct.unpack("<HH", lh[26:30])
        # migration.md MIG-PKG-006: the local header agrees with the central directory: name bytes,
        # method, flags 0, 3 and 11, and (without a data descriptor) the sizes, ZIP64 included.
        lflags, lmethod = struct.unpack("<HH", lh[6:10])
        lcsize, lusize = struct.unpack("<II", lh[18:26])
        local = f.read(nlen + xlen)
        if local[:nlen] != e["raw_name"] or lmethod != e["method"] or (lflags ^ e["flags"]) & 0x809:
            raise PackageError("MIG-PKG-006", p, "local header disagrees with the central directory")
        if not lflags & 0x8:
            lx, i = local[nlen:], 0
            while i + 4 <= len(lx):
                eid, elen = struct.unpack("<HH", lx[i:i + 4])
                if eid == 1 and lusize == 0xFFFFFFFF and elen >= 16:
                    lusize, lcsize = struct.unpack("<QQ", lx[i + 4:i + 20])
                i += 4 + elen
            if (lcsize, lusize) != (e["csize"], e["usize"]):
                raise PackageError("MIG-PKG-006", p, "local header sizes disagree with the central directory")
        e["data"] = e["offset"] + 30 + nlen + xlen
        end = e["data"] + e["csize"]
        if end > cd[0] or end > size:
            raise PackageError("MIG-PKG-006", p, "data overlaps the central directory")
        spans.append((e["offset"], end, name))
    spans.sort()
    for (a0, a1, an), (b0, b1, bn) in zip(spans, spans[1:]):
        if b0 < a1:
            raise PackageError("MIG-PKG-006", "/entries/" + bn, f"overlaps {an}")
    return entries


def entry_chunks(f, e):
    """The entry's bytes, at most 1 MiB at a time; never more than declared, never fewer."""
    f.seek(e["data"])
    p = "/entries/" + e["name"]
    left, produced = e["csize"], 0
    if e["method"] == 0:
        while left > 0:
            block = f.read(min(left, 1 << 20))
            if not block:
                raise PackageError("MIG-PKG-006", p, "entry data ends early")
            left -= len(block)
            yield block
        return
    inflater = zlib.decompressobj(-15)
    while True:
        if inflater.unconsumed_tail:
            block = inflater.unconsumed_tail
        elif left > 0:
            block = f.read(min(left, 1 << 16))
            if not block:
                raise PackageError("MIG-PKG-006", p, "entry data ends early")
            left -= len(block)
        else:
            break
        out = inflater.decompress(block, min(1 << 20, e["usize"] - produced + 1))
        produced += len(out)
        if produced > e["usize"]:
            raise PackageError("MIG-PKG-006", p, "more bytes than the entry declares")
        if out:
            yield out
        if inflater.eof:
            break
    if not inflater.eof:
        raise PackageError("MIG-PKG-006", p, "deflate stream ends early")
    if produced != e["usize"]:
        raise PackageError("MIG-PKG-006", p, "fewer bytes than the entry declares")


def naive_extract(zip_path, store):
    """The fault restore-refused: every entry below its folder, a symbolic link as a link."""
    import zipfile
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            rel = info.filename.split("/", 1)[1] if "/" in info.filename else info.filename
            if not rel or rel.endswith("/"):
                continue
            dest = os.path.join(store, *[p for p in rel.split("/") if p not in ("", ".", "..")])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                if os.path.lexists(dest):
                    os.remove(dest)
                os.symlink(z.read(info).decode("utf-8", "replace"), dest)
            else:
                with open(dest, "wb") as out:
                    out.write(z.read(info))


def cross_file(staging, manifest):
    """migration.md 3.4, MIG-PKG-002..004, on the unpacked exports."""
    def load(export):
        with open(os.path.join(staging, "coredata", export + ".json"), "rb") as fh:
            value = parse(fh.read(), MAX_DOC)
        return value if isinstance(value, list) else []
    cats, stories, media, relations = (load(e) for e in ("categories", "stories", "media", "relations_story_categories"))
    options = manifest.get("options") if isinstance(manifest.get("options"), dict) else {}
    broken = manifest.get("brokenMedia") if isinstance(manifest.get("brokenMedia"), list) else []
    count = options.get("brokenMediaCount", 0)
    if bool(options.get("hasBrokenMedia")) != (isinstance(count, int) and count > 0):
        raise PackageError("MIG-PKG-002", "/manifest.json/options/hasBrokenMedia", "disagrees with brokenMediaCount")
    if count != len(broken):
        raise PackageError("MIG-PKG-002", "/manifest.json/options/brokenMediaCount", f"{count}, the list has {len(broken)}")
    media_ids = {str(m.get("id", "")).lower() for m in media if isinstance(m, dict)}
    for i, b in enumerate(broken):
        if not isinstance(b, dict) or str(b.get("mediaId", "")).lower() not in media_ids:
            raise PackageError("MIG-PKG-002", f"/manifest.json/brokenMedia/{i}/mediaId", "names no media element")
    cat_ids = {str(c.get("id", "")).lower(): c for c in cats if isinstance(c, dict)}
    story_ids = {str(x.get("id", "")).lower() for x in stories if isinstance(x, dict)}
    for i, c in enumerate(cats):
        parent = c.get("parentId") if isinstance(c, dict) else None
        if parent is not None and str(parent).lower() not in cat_ids:
            raise PackageError("MIG-PKG-003", f"/coredata/categories.json/{i}/parentId", "names no category")
    for i, m in enumerate(media):
        if isinstance(m, dict) and m.get("storyId") is not None and str(m["storyId"]).lower() not in story_ids:
            raise PackageError("MIG-PKG-003", f"/coredata/media.json/{i}/storyId", "names no story")
    for i, r in enumerate(relations):
        if not isinstance(r, dict) or str(r.get("storyId", "")).lower() not in story_ids:
            raise PackageError("MIG-PKG-003", f"/coredata/relations_story_categories.json/{i}/storyId", "names no story")
        if str(r.get("categoryId", "")).lower() not in cat_ids:
            raise PackageError("MIG-PKG-003", f"/coredata/relations_story_categories.json/{i}/categoryId", "names no category")
    index = {str(c.get("id", "")).lower(): i for i, c in enumerate(cats) if isinstance(c, dict)}
    for i, c in enumerate(cats):
        if not isinstance(c, dict):
            continue
        seen, cur = set(), c
        while cur.get("parentId") is not None:   # a forest: no chain of parents comes back
            key = str(cur["parentId"]).lower()
            if key in seen:
                raise PackageError("MIG-PKG-004", f"/coredata/categories.json/{i}/parentId", "a cycle of parents")
            seen.add(key)
            cur = cat_ids[key]
        parent = c.get("parentId")
        want = 1 if parent is None else (cat_ids[str(parent).lower()].get("level", 0) + 1)
        if c.get("level") != want:
            raise PackageError("MIG-PKG-004", f"/coredata/categories.json/{i}/level", f"{c.get('level')}, expected {want}")


def restore(zip_path, backup_id, out_dir):
    """Checks and unpacks the package into a staging folder, then switches DIR/store to it.
    Returns a summary string."""
    staging = os.path.join(out_dir, f".staging-{backup_id}")
    shutil.rmtree(staging, ignore_errors=True)
    size = os.path.getsize(zip_path)
    with open(zip_path, "rb") as f:
        entries = check_archive(f, size, backup_id)
        folder = f"Backup-{backup_id}/"
        by_rel = {e["name"][len(folder):]: e for e in entries if not e["name"].endswith("/")}
        m = by_rel.get("manifest.json")
        if m is None:
            raise PackageError("MIG-PKG-005", "/manifest.json", "no manifest.json")
        if m["usize"] > MAX_DOC:
            raise PackageError("CORE-JSON-004", "/manifest.json", "manifest over 256 MiB")
        try:
            manifest = parse(b"".join(entry_chunks(f, m)), MAX_DOC)
        except Violation as v:
            raise PackageError(v.rule, "/manifest.json" + v.path, v.why)
        if not isinstance(manifest, dict):
            raise PackageError("CORE-TYPE-003", "/manifest.json", "not an object")
        try:
            mid = member(manifest, "backupId", "string", "/manifest.json")
            check_uuid(mid, "/manifest.json/backupId")
            integ = member(manifest, "integrity", "object", "/manifest.json")
            if member(integ, "hashAlgorithm", "string", "/manifest.json/integrity") != "SHA256":
                raise Violation("MIG-MAN-006", "/manifest.json/integrity/hashAlgorithm", "not SHA256")
            for k in ("zipSize", "zipSHA256"):
                if k in integ:
                    raise Violation("MIG-MAN-006", f"/manifest.json/integrity/{k}", "must not be present")
            listed = {}
            for i, item in enumerate(member(integ, "files", "array", "/manifest.json/integrity")):
                ip = f"/manifest.json/integrity/files/{i}"
                if not isinstance(item, dict):
                    raise Violation("CORE-TYPE-003", ip)
                path = member(item, "path", "string", ip)
                fsize = member(item, "size", "integer", ip)
                digest = member(item, "sha256", "string", ip)
                check_path(path)
                if fsize < 0 or not HEX64.match(digest) or path in listed or path == "manifest.json":
                    raise Violation("MIG-MAN-006", ip, "bad size, digest, repeated path or the manifest itself")
                listed[path] = (fsize, digest)
            stats = member(manifest, "entityStats", "object", "/manifest.json")
        except Violation as v:
            raise PackageError(v.rule, v.path, v.why)
        if not same_id(mid, backup_id):
            raise PackageError("MIG-XFER-004", "/manifest.json/backupId", f"{mid}, BackupMeta announced {backup_id}")
        os.makedirs(staging)
        for rel, e in sorted(by_rel.items()):
            if rel == "manifest.json":
                continue
            p = "/entries/" + e["name"]
            if rel not in listed:
                raise PackageError("MIG-PKG-005", p, "not listed in integrity.files")
            if listed[rel][0] != e["usize"]:
                raise PackageError("MIG-PKG-005", p, f"{e['usize']} bytes, listed {listed[rel][0]}")
            dest = os.path.join(staging, *rel.split("/"))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            digest = hashlib.sha256()
            with open(dest, "xb") as o:
                for block in entry_chunks(f, e):
                    digest.update(block)
                    o.write(block)
            if digest.hexdigest() != listed[rel][1]:
                raise PackageError("MIG-PKG-005", p, "SHA-256 is not the listed one")
        with open(os.path.join(staging, "manifest.json"), "xb") as o:
            for block in entry_chunks(f, m):
                o.write(block)
    missing = sorted(set(listed) - set(by_rel))
    if missing:
        raise PackageError("MIG-PKG-005", "/manifest.json/integrity/files", f"listed but absent: {missing[0]}")
    for export in ("categories", "stories", "media", "settings", "relations_story_categories"):
        if f"coredata/{export}.json" not in by_rel:
            raise PackageError("MIG-PKG-005", f"/coredata/{export}.json", "export missing")
    mk = by_rel.get("security/master_key.bin")
    if mk is None or not 1 <= mk["usize"] <= 4096:
        raise PackageError("MIG-PKG-007", "/security/master_key.bin", "absent or not 1..4096 bytes")
    entities = 0
    for ent, export in (("CategoryEntity", "categories"), ("StoryEntity", "stories"),
                        ("MediaEntity", "media"), ("SettingEntity", "settings")):
        path = os.path.join(staging, "coredata", export + ".json")
        if os.path.getsize(path) > MAX_DOC:
            raise PackageError("CORE-JSON-004", f"/coredata/{export}.json")
        with open(path, "rb") as fh:
            try:
                arr = parse(fh.read(), MAX_DOC)
            except Violation as v:
                raise PackageError(v.rule, f"/coredata/{export}.json" + v.path, v.why)
        count = (stats.get(ent) or {}).get("count") if isinstance(stats.get(ent), dict) else None
        if not isinstance(arr, list) or count != len(arr):
            raise PackageError("MIG-PKG-001", f"/manifest.json/entityStats/{ent}/count",
                               f"{count!r}, the export has {len(arr) if isinstance(arr, list) else '?'}")
        entities += len(arr)
    cross_file(staging, manifest)
    # the switch: the store is the old one or the new one, never a mix
    store = os.path.join(out_dir, "store")
    old = os.path.join(out_dir, f".store-previous-{os.getpid()}")
    had = os.path.exists(store)
    if had:
        os.replace(store, old)
    os.replace(staging, store)
    if had:
        shutil.rmtree(old, ignore_errors=True)
    return f"restored files={len(listed) + 1} entities={entities} into {store}"


# ---------------------------------------------------------------------------------------------
# RFC 6455, client side (adapted from outsider-desktop's client): text frames out, text and
# binary frames in; a frame over the limit closes with 1009 before its payload is read.

class Refused(Exception):
    pass


class WebSocket:
    def __init__(self, url, events, max_binary):
        u = urlparse(url)
        if u.scheme.lower() != "ws":
            raise Refused(f"{url}: this receiver speaks ws:// only")
        host, port = u.hostname, u.port or 80
        target = (u.path or "/") + (f"?{u.query}" if u.query else "")
        self.sock = socket.create_connection((host, port), timeout=5)
        try:
            key = base64.b64encode(os.urandom(16)).decode()
            hosthdr = f"[{host}]" if ":" in host else host
            self.sock.sendall((f"GET {target} HTTP/1.1\r\nHost: {hosthdr}:{port}\r\nUpgrade: websocket\r\n"
                               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                               f"User-Agent: outsider-receiver/1\r\n\r\n").encode())
            head = b""
            while b"\r\n\r\n" not in head:
                c = self.sock.recv(1)
                if not c:
                    raise Refused("closed during the handshake")
                head += c
                if len(head) > 16384:
                    raise Refused("handshake response too long")
            lines = head.decode("latin-1").split("\r\n")
            status = lines[0].split(" ")
            if len(status) < 2 or status[1] != "101":
                raise Refused(f"upgrade refused: {lines[0]}")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
            if headers.get("sec-websocket-accept") != accept:
                raise Refused("bad Sec-WebSocket-Accept")
        except BaseException:
            self.sock.close()
            raise
        self.sock.settimeout(None)
        self.lock = threading.Lock()
        self.open = True
        self.dead = False
        self.finished = threading.Event()
        self.events, self.max_binary = events, max_binary
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x80 | opcode])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        m = (mask * (n // 4 + 1))[:n]
        body = (int.from_bytes(payload, "big") ^ int.from_bytes(m, "big")).to_bytes(n, "big") if n else b""
        with self.lock:
            self.sock.sendall(header + mask + body)

    def send_json(self, doc):
        if not self.open:
            raise OSError("not open")
        text = dumps(doc)
        trace(f"-> {text[:300]}")
        self._send(1, text.encode("utf-8"))

    def close(self, code=1000):
        """Closing handshake: our close frame, then at most 1 s for the peer's close or EOF (so
        that what we sent last is read, not reset), then the socket."""
        if self.open:
            self.open = False
            try:
                self._send(8, struct.pack(">H", code))
                self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            self.finished.wait(1.0)
        self.dead = True
        try:
            self.sock.close()
        except OSError:
            pass

    def _put(self, item):
        if not self.open and item[0] != "closed":
            return                # after this side closed, frames still in flight are not read
        while not self.dead:
            try:
                self.events.put(item, timeout=0.5)   # a full queue holds the reader: TCP back-pressure
                return
            except queue.Full:
                continue

    def _exactly(self, n):
        buf = bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            r = self.sock.recv_into(view[got:], n - got)
            if r == 0:
                raise ConnectionError("closed")
            got += r
        return buf

    def _read(self):
        why = "closed by the sender"
        parts, first, total = [], None, 0
        try:
            while True:
                b0, b1 = self._exactly(2)
                n = b1 & 0x7F
                if n == 126:
                    n = struct.unpack(">H", self._exactly(2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", self._exactly(8))[0]
                opcode, fin = b0 & 0x0F, b0 & 0x80
                if b1 & 0x80 or b0 & 0x70:
                    why = "protocol error (masked frame or reserved bits from the server)"
                    self._send(8, struct.pack(">H", 1002))
                    break
                kind = first if opcode == 0 else opcode
                limit = self.max_binary if kind == 2 else MAX_CONTROL if kind == 1 else 125
                if total + n > limit:
                    why = f"frame of {total + n} bytes over this receiver's {limit} (MIG-WS-001): closed 1009"
                    self._send(8, struct.pack(">H", 1009))
                    break
                payload = self._exactly(n)
                if opcode in (1, 2):
                    if first is not None:
                        why = "a new message inside a fragmented one"
                        self._send(8, struct.pack(">H", 1002))
                        break
                    parts, first, total = [payload], opcode, n
                elif opcode == 0 and first is not None:
                    parts.append(payload)
                    total += n
                elif opcode == 9:
                    self._send(10, bytes(payload))
                    continue
                elif opcode == 10:
                    continue
                elif opcode == 8:
                    if self.open:
                        try:
                            self._send(8, bytes(payload[:2]))
                        except OSError:
                            pass
                    why = "closing handshake from the sender"
                    break
                else:
                    why = f"unexpected opcode {opcode}"
                    self._send(8, struct.pack(">H", 1002))
                    break
                if fin and first is not None:
                    data = parts[0] if len(parts) == 1 else b"".join(parts)
                    kind, parts, first, total = first, [], None, 0
                    self._put(("text" if kind == 1 else "binary", self, data))
        except (ConnectionError, OSError, ValueError) as e:
            if self.open:
                why = f"dropped ({e})"
        was_open, self.open = self.open, False
        self.finished.set()
        if was_open:
            try:
                self.sock.close()
            except OSError:
                pass
            self._put(("closed", self, why))


# ---------------------------------------------------------------------------------------------
# The receiver (migration.md 5.3), one migration per session.

class Ended(Exception):
    """Ends the session: `line` is printed after `outsider-receiver: `."""
    def __init__(self, line, locked=False, pin_settled=False):
        super().__init__(line)
        self.line, self.locked, self.pin_settled = line, locked, pin_settled


def draw_pin():
    while True:
        word = int.from_bytes(secrets.token_bytes(4), "big")
        if word < 4_294_000_000:
            return f"{word % 1_000_000:06d}"


def new_session_id():
    b = bytearray(secrets.token_bytes(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(b))).upper()      # upper case, as iOS writes UUIDs


class Receiver:
    def __init__(self, args):
        self.args = args
        self.fault = set(args.fault or [])
        self.password = None
        if args.password_file:
            with open(args.password_file, encoding="utf-8") as f:
                self.password = f.readline().rstrip("\r\n")
        os.makedirs(args.out, exist_ok=True)
        self.stop_requested = False
        self.locked_in_a_row = 0
        self.not_before = 0.0
        self.ws = None
        self.pin_text = None

    # -- connection -----------------------------------------------------------------------
    def connect(self, give_up_at=None):
        failures = 0
        while not self.stop_requested:
            events = queue.Queue(maxsize=2 * MAX_WINDOW + 8)
            try:
                ws = WebSocket(self.args.connect, events, MAX_CHUNK + 72)
                self.ws, self.events = ws, events
                return ws
            except (OSError, Refused) as e:
                failures += 1
                delay = CONNECT_BACKOFF_S[min(failures, len(CONNECT_BACKOFF_S)) - 1]
                if failures == 1 or failures % 20 == 0:
                    log(f"{self.args.connect}: {e}; retrying every {delay} s")
                if give_up_at is not None and time.monotonic() + delay > give_up_at:
                    raise Ended(f"failed: timeout: the sender did not come back within {RECONNECT_GIVE_UP_S:.0f} s (MIG-XFER-005)")
                time.sleep(delay)
        raise SystemExit(0)

    def send(self, mtype, payload):
        try:
            self.ws.send_json(control(mtype, payload))
        except OSError as e:
            log(f"could not send {mtype}: {e}")

    def next_event(self, deadline, what):
        """(kind, data) of the next frame of the current connection: text, binary, closed, or
        ('timeout', None) at the deadline."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout", None
            showing = self.pin_text is not None
            try:
                kind, ws, data = self.events.get(timeout=min(left, 0.1 if showing else 1.0))
            except queue.Empty:
                if showing:
                    self.keep_pin_shown()
                continue
            if ws is not self.ws:
                continue          # after a side closed, frames still in flight are not read
            if kind == "text":
                trace(f"<- {bytes(data[:300])!r}")
            elif kind == "binary":
                trace(f"<- chunk frame of {len(data)} bytes")
            return kind, data

    def reject(self, v, reason="protocol-error"):
        """The sender broke v: CancelTransfer and end the session."""
        payload = {"reason": reason}
        if self.meta:
            payload = {"reason": reason, "backupId": self.meta["backupId"]}
        self.send("CancelTransfer", payload)
        self.ws.close(1008 if reason == "protocol-error" else 1000)
        raise Ended(f"failed: {reason}: the sender broke {v}", pin_settled=self.pin_settled)

    def message(self, data, allowed):
        """A text frame as a control message of one of the allowed types."""
        try:
            t, p = check_message(parse(data))
        except Violation as v:
            self.reject(v)
        if t == "CancelTransfer":
            reason = p.get("reason")
            self.ws.close()
            raise Ended(f"failed: cancelled by the sender ({reason!r})", pin_settled=self.pin_settled)
        if t not in allowed:
            self.reject(Violation("MIG-XFER-006", "/type", f"{t} while {self.state}"))
        return t, p

    def write_pin(self, pin):
        path = self.args.pin_out
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(pin + "\n")
        os.replace(tmp, path)
        self.pin_text = pin + "\n"

    def keep_pin_shown(self):
        """The PIN stays on the screen until it is settled: when the file that mirrors the screen
        disappears before that (the runner takes it, or once discarded a PIN written before its
        scenario began as a leftover), it is written again and logged, which LiveRunTests checks
        never happens before the runner read it."""
        if not os.path.exists(self.args.pin_out):
            log(f"{self.args.pin_out} was removed before the PIN was settled; showing the PIN again")
            self.write_pin(self.pin_text.strip())

    def remove_pin(self):
        if self.pin_text is None:
            return
        try:
            with open(self.args.pin_out) as f:
                if f.read() == self.pin_text:
                    os.remove(self.args.pin_out)
        except OSError:
            pass
        self.pin_text = None

    def handshake(self):
        return {"protocolVersion": 1, "role": "receiver", "sessionId": self.session_id,
                "appVersion": APP_VERSION, "schemaVersion": SCHEMA,
                "device": {"name": DEVICE_NAME, "platform": "android"},
                "maxWindow": MAX_WINDOW, "maxChunkSize": MAX_CHUNK,
                "outsider": {"build": 1}}   # undeclared: the sender ignores it (CORE-MEMBER-001)

    # -- one migration ----------------------------------------------------------------------
    def session(self):
        self.meta = None
        self.pin_settled = False
        self.state = "idle"
        wait = self.not_before - time.monotonic()
        if wait > 0 and "no-lockout" not in self.fault:
            log(f"{self.locked_in_a_row} locked session(s) in a row: no new PIN for {wait:.0f} s (MIG-PIN-003)")
            end = time.monotonic() + wait
            while time.monotonic() < end and not self.stop_requested:
                time.sleep(min(0.5, end - time.monotonic()))
        self.connect()
        # MIG-PIN-001's order of random draws: the PIN, the resume token, the session id
        pin = draw_pin() if "fixed-pin-999999" not in self.fault else "999999"
        self.token = secrets.token_hex(16)
        self.session_id = new_session_id()
        self.write_pin(pin)
        log(f"connected to {self.args.connect}; PIN {pin} (written to {self.args.pin_out}); session {self.session_id}")
        try:
            self.state = "awaitingHandshake"
            self.send("Handshake", self.handshake())
            kind, data = self.next_event(time.monotonic() + HANDSHAKE_WAIT_S, "Handshake")
            self.expect_text(kind, data, "the sender's Handshake")
            _, p = self.message(data, ("Handshake",))
            try:
                hs = check_handshake(p)
            except Violation as v:
                self.reject(v)
            self.sender_session = hs["sessionId"]
            self.window = min(MAX_WINDOW, hs["maxWindow"])
            log(f"sender {hs['device']['name']!r} session {hs['sessionId']} maxWindow {hs['maxWindow']} maxChunkSize {hs['maxChunkSize']}")

            self.state = "awaitingPIN"
            wrong = 0
            while True:
                kind, data = self.next_event(time.monotonic() + PIN_WAIT_S, "AuthPIN")
                self.expect_text(kind, data, "a PIN")
                _, p = self.message(data, ("AuthPIN",))
                try:
                    typed = check_pin_request(p)
                except Violation as v:
                    self.reject(v)
                if hmac.compare_digest(typed, pin) or "accept-any-pin" in self.fault:
                    break
                wrong += 1
                if wrong >= 5 or (wrong >= 3 and "early-lock" in self.fault):
                    self.send("AuthPIN", {"result": "locked"})
                    self.send("CancelTransfer", {"reason": "pin-locked"})   # MAY (MIG-MSG-007)
                    self.ws.close()
                    raise Ended(f"failed: locked: {wrong} wrong PINs (MIG-PIN-002)", locked=True)
                left = 5 - wrong
                if "wrong-attempts-left" in self.fault:
                    left = min(4, left + 1)
                self.send("AuthPIN", {"attemptsLeft": left, "result": "rejected"})
                log(f"wrong PIN {typed}: {left} attempt(s) left")
            self.pin_settled = True
            self.remove_pin()
            token = self.token
            if "hang-up-at-pin" in self.fault:
                raise Ended("failed: hung up at the right PIN (fault hang-up-at-pin)", pin_settled=True)
            self.send("AuthPIN", {"resumeToken": token, "result": "accepted"})

            self.state = "awaitingMeta"
            while True:
                kind, data = self.next_event(time.monotonic() + META_WAIT_S, "BackupMeta")
                self.expect_text(kind, data, "BackupMeta")
                t, p = self.message(data, ("StartBackup", "BackupMeta"))
                if t == "BackupMeta":
                    break
            try:
                meta = check_meta(p)
            except Violation as v:
                self.reject(v)
            self.meta = meta
            self.prepare(meta)
            return self.transfer()
        finally:
            self.remove_pin()
            if self.ws:
                self.ws.close()

    def expect_text(self, kind, data, what):
        if kind == "timeout":
            self.ws.close()
            raise Ended(f"failed: timeout: no {what} in time (state {self.state})", pin_settled=self.pin_settled)
        if kind == "closed":
            raise Ended(f"failed: disconnected while {self.state} ({data})", pin_settled=self.pin_settled)
        if kind == "binary":
            self.reject(Violation("MIG-XFER-006", "", f"a chunk while {self.state}"))

    def prepare(self, meta):
        """MIG-META-001 and -002, then the files; sends StartTransfer."""
        bid = meta["backupId"]
        log(f"BackupMeta: backup {bid}, {meta['fileSize']} bytes in {meta['chunkCount']} chunks of {meta['chunkSize']}, "
            f"header {'sent' if '_header' in meta else 'not sent'}")
        if meta["schemaVersion"] > SCHEMA:
            self.reject(Violation("MIG-META-001", "/payload/schemaVersion", "newer than this receiver imports"),
                        "schema-incompatible")
        need = meta["fileSize"] + 2 * meta["zipSize"]
        if shutil.disk_usage(self.args.out).free < need:
            self.reject(Violation("MIG-META-001", "", f"{need} bytes needed"), "insufficient-space")
        if meta["chunkSize"] > MAX_CHUNK:
            self.reject(Violation("MIG-META-001", "/payload/chunkSize", f"{meta['chunkSize']} over the Handshake's {MAX_CHUNK}"))
        # the user consents to replacing local data (--yes: always; the fixture has no one to ask)
        if "_header" in meta and self.password is not None:
            try:
                h = envelope_keys(self.password, meta["_header"])
                log(f"password opens the header ({h['iterations']} iterations, segments of {h['segmentSize']})")
                expect = 97 + 20 * max(1, -(-h["plaintextLength"] // h["segmentSize"])) + h["plaintextLength"]
                if expect != meta["fileSize"]:
                    log(f"note: the header implies {expect} bytes, BackupMeta says {meta['fileSize']}")
            except EnvelopeError as e:
                if e.code == "wrong-password":
                    self.send("CancelTransfer", {"backupId": bid, "reason": "wrong-password"})
                    self.ws.close()
                    raise Ended("failed: wrong-password: the password does not open the envelope header (MIG-META-002)",
                                pin_settled=True)
                self.reject(Violation(e.rule, "/payload/envelopeHeader", str(e)))
        elif "_header" in meta:
            log("no password: the header is not checked (not-checked)")
        self.chunk_size, self.count, self.size = meta["chunkSize"], meta["chunkCount"], meta["fileSize"]
        self.bid_bytes = uuid.UUID(bid).bytes
        self.tmp = os.path.join(self.args.out, f"backup-{bid.lower()}.enc.tmp")
        self.journal = os.path.join(self.args.out, f"backup-{bid.lower()}.journal.json")
        for stale in (self.tmp, self.journal):
            if os.path.exists(stale):
                os.remove(stale)      # a migration not resumed from its journal starts over
        self.fd = os.open(self.tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        self.low, self.above = 0, set()     # every index below low is held; held ones above it
        self.retransmits = {}
        self.resumed_have = None
        self.resends, self.resumes, self.complaints = 0, 0, 0
        self.write_journal()
        self.window = min(self.window, START_WINDOW)
        self.send("StartTransfer", {"backupId": bid, "window": START_WINDOW})
        log(f"StartTransfer: window {self.window} (smallest of {MAX_WINDOW}, the sender's, {START_WINDOW})")

    def held(self, i):
        return i < self.low or i in self.above

    def hold(self, i):
        self.above.add(i)
        while self.low in self.above:
            self.above.remove(self.low)
            self.low += 1

    def ranges(self):
        out = [[0, self.low]] if self.low else []
        for i in sorted(self.above):
            if out and out[-1][1] == i:
                out[-1][1] = i + 1
            else:
                out.append([i, i + 1])
        return out

    def write_journal(self):
        doc = {"backupId": self.meta["backupId"], "senderSessionId": self.sender_session,
               "resumeToken": self.token, "chunkSize": self.chunk_size, "chunkCount": self.count,
               "fileSize": self.size, "envelopeSHA256": self.meta["envelopeSHA256"], "have": self.ranges()}
        tmp = self.journal + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, self.journal)

    def transfer(self):
        self.state = "transferring"
        try:
            while True:
                deadline = time.monotonic() + (STALL_S if self.state == "transferring" else PAUSE_WAIT_S)
                kind, data = self.next_event(deadline, "a chunk")
                if kind == "timeout":
                    if self.state == "paused":
                        self.send("CancelTransfer", {"backupId": self.meta["backupId"], "reason": "timeout"})
                        raise Ended(f"failed: timeout: paused for more than {PAUSE_WAIT_S:.0f} s", pin_settled=True)
                    log(f"nothing for more than {STALL_S:.0f} s: dropping the connection (MIG-XFER-005)")
                    self.ws.close()
                    self.resume()
                elif kind == "closed":
                    log(f"disconnected ({data})")
                    self.resume()
                elif kind == "binary":
                    if self.state != "transferring":
                        self.reject(Violation("MIG-XFER-006", "", f"a chunk while {self.state}"))
                    self.chunk(data)
                else:
                    t, p = self.message(data, ("PauseTransfer", "ResumeTransfer", "Complete"))
                    if t == "PauseTransfer" and self.state == "transferring":
                        self.state = "paused"
                        log("paused by the sender")
                    elif t == "ResumeTransfer" and self.state == "paused" and "resumeToken" not in p:
                        self.state = "transferring"
                        log("resumed by the sender")
                    elif t == "Complete" and self.state == "transferring":
                        return self.complete(p)
                    else:
                        self.reject(Violation("MIG-XFER-006", "/type", f"{t} while {self.state}"))
        finally:
            try:
                os.close(self.fd)
            except OSError:
                pass

    def chunk(self, frame):
        """One BackupChunk (5.2): layout and place (MIG-CHUNK-001..003) end the session; a chunk
        already held is acknowledged again unread; a damaged one is asked for again."""
        v = self.check_frame(frame)
        if v:
            self.reject(v)
        index, = struct.unpack(">I", frame[24:28])
        bid = self.meta["backupId"]
        if self.held(index):
            if self.resumed_have is not None and index in self.resumed_have:
                log(f"violation MIG-XFER-003 at \"/index\": chunk {index} was declared held in ResumeTransfer and came again")
            self.send("ChunkAck", {"backupId": bid, "index": index, "status": "ok"})
            return
        missing_below = index - (self.low + sum(1 for i in self.above if i < index))
        if missing_below + 1 > self.window:
            log(f"violation MIG-XFER-001 at \"/index\": chunk {index} arrived with {missing_below} missing below it, "
                f"window {self.window}")
        data = memoryview(frame)[72:]
        if hashlib.sha256(data).digest() != bytes(frame[40:72]) and "ack-corrupt" not in self.fault:
            n = self.retransmits.get(index, 0) + 1
            self.retransmits[index] = n
            if n > MAX_RETRANSMITS:
                self.reject(Violation("MIG-XFER-002", "/chunkSHA256",
                                      f"damaged copy {n} of chunk {index} (asked again {MAX_RETRANSMITS} times)"),
                            "too-many-retransmits")
            log(f"chunk {index}: SHA-256 does not match (MIG-CHUNK-004); asking again ({n}/{MAX_RETRANSMITS})")
            self.complaints += 1
            self.send("ChunkAck", {"backupId": bid, "index": index, "status": "retransmit"})
            return
        os.pwrite(self.fd, data, index * self.chunk_size)   # written, then journaled, then acknowledged
        self.hold(index)
        self.write_journal()
        self.send("ChunkAck", {"backupId": bid, "index": index, "status": "ok"})

    def check_frame(self, frame):
        if bytes(frame[:4]) != b"MSBC":
            return Violation("MIG-CHUNK-001", "/magic", "not MSBC")
        if len(frame) < 8 or frame[4] != 1:
            return Violation("MIG-CHUNK-001", "/version", "not 1")
        if bytes(frame[5:8]) != b"\0\0\0":
            return Violation("MIG-CHUNK-001", "/reserved", "not zero")
        if len(frame) < 72:
            return Violation("MIG-CHUNK-002", "", f"{len(frame)} bytes, shorter than the header")
        index, offset, length = struct.unpack(">IQI", frame[24:40])
        if not 1 <= length <= 16 << 20:
            return Violation("MIG-CHUNK-002", "/length", f"{length}")
        if len(frame) != 72 + length:
            return Violation("MIG-CHUNK-002", "", f"{len(frame)} bytes, header says 72 + {length}")
        if bytes(frame[8:24]) != self.bid_bytes:
            return Violation("MIG-CHUNK-003", "/backupId", "not the backup's")
        if index >= self.count:
            return Violation("MIG-CHUNK-003", "/index", f"{index} not below {self.count}")
        if offset != index * self.chunk_size:
            return Violation("MIG-CHUNK-003", "/offset", f"{offset}, not {index * self.chunk_size}")
        want = self.chunk_size if index < self.count - 1 else self.size - self.chunk_size * (self.count - 1)
        if length != want:
            return Violation("MIG-CHUNK-003", "/length", f"{length}, not {want}")
        return None

    def resume(self):
        """MIG-XFER-003: connect again, greet, wait for the authenticated sender's Handshake, then
        ResumeTransfer with the token and the chunks held."""
        self.resumes += 1
        self.state = "disconnected"
        if "no-resume" in self.fault:
            # the fault: the journal forgotten, the next connection begins a new session
            raise Ended("failed: dropped; starting a new session instead of resuming (fault no-resume)", pin_settled=True)
        give_up = time.monotonic() + RECONNECT_GIVE_UP_S
        while True:
            time.sleep(0.3)
            ws = self.connect(give_up_at=give_up)
            self.state = "resuming"
            log(f"reconnected (resume {self.resumes}); greeting again")
            self.send("Handshake", self.handshake())
            kind, data = self.next_event(time.monotonic() + HANDSHAKE_WAIT_S, "Handshake")
            if kind in ("closed", "timeout"):
                log(f"no Handshake on the new connection ({data or 'timeout'}); trying again")
                ws.close()
                self.state = "disconnected"
                if time.monotonic() > give_up:
                    raise Ended("failed: timeout: could not resume (MIG-XFER-005)", pin_settled=True)
                continue
            if kind == "binary":
                self.reject(Violation("MIG-XFER-006", "", "a chunk before the Handshake"))
            _, p = self.message(data, ("Handshake",))
            try:
                hs = check_handshake(p)
            except Violation as v:
                self.reject(v)
            if not same_id(hs["sessionId"], self.sender_session):
                # whoever listens there now is not the sender the PIN authenticated: no token for it
                log(f"violation MIG-XFER-003 at \"/payload/sessionId\": {hs['sessionId']}, authenticated {self.sender_session}")
                ws.close(1008)
                raise Ended("failed: protocol-error: another sender answered the reconnection (MIG-XFER-003)",
                            pin_settled=True)
            self.window = min(self.window, hs["maxWindow"], RESUME_WINDOW)
            have = self.ranges() if "forget-have" not in self.fault else []   # the fault: held chunks left out
            self.resumed_have = set()
            for a, b in have:
                if b - a <= 1_000_000:
                    self.resumed_have.update(range(a, b))
            token = self.token if "bad-resume-token" not in self.fault else secrets.token_hex(16)
            self.send("ResumeTransfer", {"backupId": self.meta["backupId"], "have": have,
                                         "resumeToken": token, "window": RESUME_WINDOW})
            log(f"ResumeTransfer: holding {have}, window {self.window}")
            self.state = "transferring"
            return

    def complete(self, p):
        """MIG-XFER-004: the sender's Complete repeats BackupMeta; then the whole file's SHA-256."""
        meta, bid = self.meta, self.meta["backupId"]
        try:
            check_sender_complete(p, meta)
        except Violation as v:
            self.reject(v)
        if self.low < self.count:
            self.reject(Violation("MIG-XFER-006", "", f"Complete with chunk {self.low} never received"))
        self.state = "verifying"
        os.fsync(self.fd)
        digest = hashlib.sha256()
        with open(self.tmp, "rb") as f:
            while True:
                block = f.read(1 << 20)
                if not block:
                    break
                digest.update(block)
        ok = digest.hexdigest() == meta["envelopeSHA256"] or "skip-final-digest" in self.fault
        self.send("Complete", {"backupId": bid, "result": "verified" if ok else "digest-mismatch"})
        self.ws.close()
        if not ok:
            log(f"violation MIG-XFER-004 at \"\": the file's SHA-256 is {digest.hexdigest()}, announced {meta['envelopeSHA256']}")
            os.remove(self.tmp)
            os.remove(self.journal)
            raise Ended("failed: digest-mismatch: the received file is not the announced one (MIG-XFER-004)",
                        pin_settled=True)
        final = os.path.join(self.args.out, f"backup-{bid.lower()}.enc")
        os.replace(self.tmp, final)
        os.remove(self.journal)
        summary = (f"backup={bid} bytes={self.size} chunks={self.count} chunkSize={self.chunk_size} "
                   f"window={self.window} retransmits-asked={self.complaints} resumes={self.resumes}")
        if self.password is None:
            return f"success {summary} verified; not opened (no --password-file)"
        if "no-restore" in self.fault:
            return f"success {summary} verified; not restored (fault no-restore)"
        zip_path = os.path.join(self.args.out, f".backup-{bid.lower()}.zip.tmp")
        if "slow-restore" in self.fault:
            time.sleep(3)  # a phone opening a large package: the store changes seconds after Complete
        try:
            open_envelope(final, zip_path, self.password)
            restored = restore(zip_path, bid, self.args.out)
            if "restore-leftover" in self.fault:
                with open(os.path.join(self.args.out, "store", "leftover.txt"), "w") as f:
                    f.write("a file the package does not hold\n")
        except PackageError as e:
            if "restore-refused" in self.fault:
                # the fault: what the checks refused is written out as it is, links included
                naive_extract(zip_path, os.path.join(self.args.out, "store"))
                return f"success {summary} restored a refused package ({e}) (fault restore-refused)"
            shutil.rmtree(os.path.join(self.args.out, f".staging-{bid}"), ignore_errors=True)
            raise Ended(f"failed: verified but not restored: {e}", pin_settled=True)
        except EnvelopeError as e:
            shutil.rmtree(os.path.join(self.args.out, f".staging-{bid}"), ignore_errors=True)
            raise Ended(f"failed: verified but not restored: {e}", pin_settled=True)
        finally:
            if os.path.exists(zip_path):
                os.remove(zip_path)
        return f"success {summary} {restored}"

    def run(self):
        n = 0
        while not self.stop_requested and (self.args.sessions == 0 or n < self.args.sessions):
            t0 = time.monotonic()
            try:
                line = self.session()
                self.locked_in_a_row, self.not_before = 0, 0.0
            except Ended as e:
                line = e.line
                if e.locked:
                    self.locked_in_a_row += 1
                    wait = min(3600.0, LOCKOUT_S * 2 ** (self.locked_in_a_row - 1))
                    self.not_before = time.monotonic() + wait
                    line += f"; next PIN in {wait:.0f} s (MIG-PIN-003)"
                elif e.pin_settled:
                    self.locked_in_a_row, self.not_before = 0, 0.0
            print(f"outsider-receiver: {line} ({time.monotonic() - t0:.2f} s)", flush=True)
            n += 1
            self.ws = None
            time.sleep(0.2)


def main():
    global MAX_CHUNK, MAX_WINDOW, START_WINDOW, RESUME_WINDOW
    ap = argparse.ArgumentParser(description="A migration receiver written from the docs alone.")
    ap.add_argument("--connect", required=True, help="the sender, ws://HOST:PORT")
    ap.add_argument("--out", required=True, help="a folder of its own: received envelopes, journal, staging, store/")
    ap.add_argument("--pin-out", required=True, help="write each session's PIN here (removed once settled)")
    ap.add_argument("--password-file", help="first line: the migration password (without it nothing is opened)")
    ap.add_argument("--sessions", type=int, default=0, help="migrations to receive (0: until stopped)")
    ap.add_argument("--max-chunk-size", type=int, default=MAX_CHUNK, help=f"Handshake maxChunkSize (default {MAX_CHUNK})")
    ap.add_argument("--max-window", type=int, default=MAX_WINDOW, help=f"Handshake maxWindow (default {MAX_WINDOW})")
    ap.add_argument("--window", type=int, default=START_WINDOW, help=f"StartTransfer window (default {START_WINDOW})")
    ap.add_argument("--fault", action="append", choices=FAULTS, help="misbehave on purpose (repeatable)")
    args = ap.parse_args()
    if not (4096 <= args.max_chunk_size <= 16 << 20 and 1 <= args.window <= 64 and 1 <= args.max_window <= 64):
        ap.error("--max-chunk-size 4096..16777216, --max-window and --window 1..64 (MIG-MSG-002, -005)")
    MAX_CHUNK, MAX_WINDOW, START_WINDOW = args.max_chunk_size, args.max_window, args.window
    RESUME_WINDOW = max(1, min(RESUME_WINDOW, START_WINDOW - 1))
    receiver = Receiver(args)

    def stop(*_):
        receiver.stop_requested = True
        raise SystemExit(0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()
    try:
        receiver.run()
    except SystemExit:
        pass
    finally:
        receiver.remove_pin()
        if receiver.ws:
            receiver.ws.close()
    log("stopped")


if __name__ == "__main__":
    main()
