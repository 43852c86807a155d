"""The transfer's documents (Spec/migration.md 5.1 control messages, 5.2 BackupChunk), written from
the Spec alone; no code shared with the Swift reference. Checks run in the order the Spec lists
them and raise Violation(rule, path) at the first failure; accepted documents give their
canonical form (declared members that are given, values as received)."""
import base64
import binascii
import hashlib
import re
import struct
import uuid as uuidlib

import msbk_json
from msbk_package import HEX64, UUID, Obj, Violation, blank

TYPES = ["Handshake", "AuthPIN", "StartBackup", "BackupMeta", "StartTransfer", "PauseTransfer",
         "ResumeTransfer", "CancelTransfer", "ChunkAck", "Complete"]
CANCEL_REASONS = ["user-cancelled", "user-declined", "schema-incompatible", "insufficient-space", "pin-locked",
                  "digest-mismatch", "too-many-retransmits", "timeout", "protocol-error", "wrong-password",
                  "store-changed"]
MIN_CHUNK, MAX_CHUNK = 4096, 16 << 20
ENVELOPE_HEADER = 97
HEX32 = re.compile(r"^[0-9a-f]{32}$")
PIN = re.compile(r"^[0-9]{6}$")


class Payload(Obj):
    """Obj plus optional members and the canonical form being collected."""

    def __init__(self, value, path):
        super().__init__(value, path)
        self.out = {}

    def given(self, key):
        return self.v.get(key) is not None

    def keep(self, key, v):
        self.out[key] = v
        return v

    def int_in(self, key, rule, lo, hi=None):
        v = self.integer(key)
        if v < lo or (hi is not None and v > hi):
            raise Violation(rule, self.at(key))
        return self.keep(key, v)

    def str_match(self, key, rule, pattern):
        v = self.string(key)
        if not pattern.fullmatch(v):
            raise Violation(rule, self.at(key))
        return self.keep(key, v)

    def one_of(self, key, rule, allowed):
        v = self.string(key)
        if v not in allowed:
            raise Violation(rule, self.at(key))
        return self.keep(key, v)

    def nonblank(self, key, rule):
        v = self.string(key)
        if blank(v):
            raise Violation(rule, self.at(key))
        return self.keep(key, v)

    def backup_id(self):
        # MIG-ID-001 names `backupId` among the ids that MUST be UUIDs.
        return self.str_match("backupId", "MIG-ID-001", UUID)


def handshake(p):
    if p.integer("protocolVersion") != 1:
        raise Violation("MIG-MSG-002", p.at("protocolVersion"))
    p.keep("protocolVersion", 1)
    p.one_of("role", "MIG-MSG-002", ("sender", "receiver"))
    p.str_match("sessionId", "MIG-MSG-002", UUID)
    p.nonblank("appVersion", "MIG-MSG-002")
    p.int_in("schemaVersion", "MIG-MSG-002", 1)
    device = Payload(p.req("device"), p.at("device"))
    device.nonblank("name", "MIG-MSG-002")
    p.keep("device", device.out)
    p.int_in("maxWindow", "MIG-MSG-002", 1, 64)
    p.int_in("maxChunkSize", "MIG-MSG-002", MIN_CHUNK, MAX_CHUNK)


def auth_pin(p):
    if p.given("pin") == p.given("result"):
        raise Violation("MIG-MSG-003", p.path)
    if p.given("pin"):
        pin = p.string("pin")
        if not PIN.fullmatch(pin):
            raise Violation("MIG-MSG-003", p.at("pin"))
        p.keep("pin", pin)
        return
    result = p.one_of("result", "MIG-MSG-003", ("accepted", "rejected", "locked"))
    if result == "accepted":
        p.str_match("resumeToken", "MIG-MSG-003", HEX32)
    elif result == "rejected":
        p.int_in("attemptsLeft", "MIG-MSG-003", 1, 4)


def start_backup(p):
    pass


def backup_meta(p):
    p.backup_id()
    size = p.int_in("fileSize", "MIG-MSG-004", ENVELOPE_HEADER)
    chunk = p.int_in("chunkSize", "MIG-MSG-004", MIN_CHUNK, MAX_CHUNK)
    if p.integer("chunkCount") != -(-size // chunk):
        raise Violation("MIG-MSG-004", p.at("chunkCount"))
    p.keep("chunkCount", p.v["chunkCount"])
    p.str_match("envelopeSHA256", "MIG-MSG-004", HEX64)
    p.int_in("zipSize", "MIG-MSG-004", 0)
    p.int_in("schemaVersion", "MIG-MSG-004", 1)
    p.keep("appVersion", p.string("appVersion"))
    if p.given("envelopeHeader"):
        envelope_header(p)


def envelope_header(p):
    """MIG-MSG-004: padded base64 (RFC 4648) of exactly the envelope's 97-byte header. Kept as received;
    only the receiver's password check (MIG-META-002) reads the bytes."""
    text = p.string("envelopeHeader")
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error):
        raise Violation("MIG-MSG-004", p.at("envelopeHeader"))
    if len(raw) != ENVELOPE_HEADER:
        raise Violation("MIG-MSG-004", p.at("envelopeHeader"))
    p.keep("envelopeHeader", text)


def start_transfer(p):
    p.backup_id()
    p.int_in("window", "MIG-MSG-005", 1, 64)


def pause_transfer(p):
    p.backup_id()


def ranges(p, key, rule):
    """`have`: sorted, non-touching half-open ranges [from, to) of chunk indexes."""
    value = p.req(key)
    if not isinstance(value, list):
        raise Violation("CORE-TYPE-003", p.at(key))
    out, previous_end = [], None
    for i, r in enumerate(value):
        at = p.at(key) + f"/{i}"
        if not isinstance(r, list):
            raise Violation("CORE-TYPE-003", at)
        if len(r) != 2:
            raise Violation(rule, at)
        for j, bound in enumerate(r):
            if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                raise Violation("CORE-TYPE-003", f"{at}/{j}")
            if isinstance(bound, float) or abs(bound) > 2**53 - 1:
                raise Violation("CORE-TYPE-004", f"{at}/{j}")
        start, end = r
        if start < 0 or end <= start or (previous_end is not None and start <= previous_end):
            raise Violation(rule, at)
        previous_end = end
        out.append([start, end])
    return p.keep(key, out)


def resume_transfer(p):
    p.backup_id()
    if p.given("resumeToken") or p.given("have"):
        if not p.given("resumeToken"):
            raise Violation("MIG-MSG-005", p.at("resumeToken"))
        p.str_match("resumeToken", "MIG-MSG-005", HEX32)
        if not p.given("have"):
            raise Violation("MIG-MSG-005", p.at("have"))
        ranges(p, "have", "MIG-MSG-005")
        if p.given("window"):
            p.int_in("window", "MIG-MSG-005", 1, 64)


def chunk_ack(p):
    p.backup_id()
    p.int_in("index", "MIG-MSG-006", 0)
    p.one_of("status", "MIG-MSG-006", ("ok", "retransmit"))


def cancel_transfer(p):
    if p.given("backupId"):
        p.backup_id()
    p.one_of("reason", "MIG-MSG-007", CANCEL_REASONS)


def complete(p):
    sender = p.given("chunkCount") or p.given("envelopeSHA256")
    receiver = p.given("result")
    if sender == receiver:
        raise Violation("MIG-MSG-008", p.path)
    p.backup_id()
    if sender:
        p.int_in("chunkCount", "MIG-MSG-008", 1)
        p.str_match("envelopeSHA256", "MIG-MSG-008", HEX64)
    else:
        p.one_of("result", "MIG-MSG-008", ("verified", "digest-mismatch"))


CHECKS = {"Handshake": handshake, "AuthPIN": auth_pin, "StartBackup": start_backup, "BackupMeta": backup_meta,
          "StartTransfer": start_transfer, "PauseTransfer": pause_transfer, "ResumeTransfer": resume_transfer,
          "ChunkAck": chunk_ack, "CancelTransfer": cancel_transfer, "Complete": complete}


def control_message(value):
    """Checks a decoded control message; returns its canonical form."""
    o = Obj(value, "")
    kind = o.string("type")
    if kind not in TYPES:
        raise Violation("MIG-MSG-001", o.at("type"))
    payload = Payload(o.req("payload"), o.at("payload"))
    CHECKS[kind](payload)
    return {"type": kind, "payload": payload.out}


# core.md's default limit is 1 MiB; 5.4 (MIG-WS-001) caps a control message at 64 KiB.
CONTROL_MESSAGE_MAX = 64 << 10


def control_message_document(data):
    return control_message(msbk_json.parse(data, CONTROL_MESSAGE_MAX))


# --- BackupChunk (5.2) ---

CHUNK_MAGIC = b"MSBC"
CHUNK_HEADER = 72


def chunk_header(frame):
    """MIG-CHUNK-001 and -002: the frame alone. Returns the decoded header and data."""
    if frame[:4] != CHUNK_MAGIC:
        raise Violation("MIG-CHUNK-001", "/magic")
    if len(frame) > 4 and frame[4] != 1:
        raise Violation("MIG-CHUNK-001", "/version")
    if len(frame) > 5 and any(frame[5:8]):
        raise Violation("MIG-CHUNK-001", "/reserved")
    if len(frame) < CHUNK_HEADER:
        raise Violation("MIG-CHUNK-002", "")
    index, offset, length = struct.unpack(">IQI", frame[24:40])
    if not 1 <= length <= MAX_CHUNK or len(frame) != CHUNK_HEADER + length:
        raise Violation("MIG-CHUNK-002", "/length")
    return {"backupId": str(uuidlib.UUID(bytes=frame[8:24])), "index": index, "offset": offset, "length": length,
            "chunkSHA256": frame[40:72].hex()}, frame[CHUNK_HEADER:]


def chunk_place(header, meta):
    """MIG-CHUNK-003: the frame against the session's BackupMeta."""
    if header["backupId"] != meta["backupId"].lower():
        raise Violation("MIG-CHUNK-003", "/backupId")
    index, size, count = header["index"], meta["chunkSize"], meta["chunkCount"]
    if index >= count:
        raise Violation("MIG-CHUNK-003", "/index")
    if header["offset"] != index * size:
        raise Violation("MIG-CHUNK-003", "/offset")
    want = size if index < count - 1 else meta["fileSize"] - (count - 1) * size
    if header["length"] != want:
        raise Violation("MIG-CHUNK-003", "/length")


def chunk_digest(header, data):
    """MIG-CHUNK-004."""
    if hashlib.sha256(data).hexdigest() != header["chunkSHA256"]:
        raise Violation("MIG-CHUNK-004", "/chunkSHA256")


def backup_chunk(frame, meta):
    """A whole document check of one frame; returns the decoded header as canonical form."""
    header, data = chunk_header(frame)
    chunk_place(header, meta)
    chunk_digest(header, data)
    return header
