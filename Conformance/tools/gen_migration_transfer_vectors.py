"""Writes the migration transfer vectors (Spec/migration.md section 5): control messages,
BackupChunk frames, and the sender and receiver machines. Expectations are typed in by hand from
the Spec; frames and digests are computed here by the Spec's recipe (hashlib, struct)."""
import base64
import hashlib
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vector_file import VectorFile  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors", "migration")
T = 1747300000000
BID = "3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f"
FILE = bytes((i * 37 + 11) & 0xFF for i in range(5000))
SHA = hashlib.sha256(FILE).hexdigest()
META = {"backupId": BID, "fileSize": 5000, "chunkSize": 4096, "chunkCount": 2, "envelopeSHA256": SHA, "zipSize": 4000, "schemaVersion": 1, "appVersion": "1.2.0"}
TOKEN = "11" * 16
RSESSION = "22222222-2222-4222-a222-222222222222"
SSESSION = "33333333-3333-4333-b333-333333333333"
PIN = "048203"  # 0x0000bc4b = 48203


def msg(type_, payload):
    return {"type": type_, "payload": payload}


def frame(index, data, backup=BID, offset=None, digest=None, magic=b"MSBC", version=1):
    head = magic + bytes([version, 0, 0, 0]) + bytes.fromhex(backup.replace("-", ""))
    head += struct.pack(">IQI", index, index * 4096 if offset is None else offset, len(data))
    head += digest if digest is not None else hashlib.sha256(data).digest()
    return head + data


def b64(b):
    return base64.b64encode(b).decode()


CHUNK0, CHUNK1 = FILE[:4096], FILE[4096:]


class File(VectorFile):
    family = "migration"
    out = OUT

    def doc(self, slug, comment, expected, rules, flags=(), doc=None, b=None, context=None):
        if b is not None:
            self.case(slug, comment, rules, flags, context, inputBase64=b64(b), expected=expected)
        else:
            self.case(slug, comment, rules, flags, context, input=doc, expected=expected)


def ok(canonical):
    return {"outcome": "accept", "canonical": canonical}


def bad(path, rule):
    return {"outcome": "reject", "violations": [{"path": path, "rule": rule}]}


files = []
cm = File(kind="control-message", description="Control messages {type, payload} (seed 000 §3.3; Spec migration.md 5.1).")
files.append(cm)
HS = msg("Handshake", {"protocolVersion": 1, "role": "sender", "sessionId": SSESSION, "appVersion": "1.2.0", "schemaVersion": 1,
                       "device": {"name": "Li's old iPhone"}, "maxWindow": 8, "maxChunkSize": 1048576})
cm.doc("handshake", "A sender's Handshake.", ok(HS), ["MIG-MSG-001", "MIG-MSG-002"], ["seed-example"], HS)
cm.doc("handshake-unknown-member", "Unknown members are ignored and dropped.", ok(HS), ["MIG-MSG-002", "CORE-MEMBER-001"], ["interop-trap"],
       msg("Handshake", dict(HS["payload"], batteryLevel=0.8)))
cm.doc("type-lower-case", "Types are the seed's names, case-sensitive.", bad("/type", "MIG-MSG-001"), ["MIG-MSG-001"], ["interop-trap"], msg("handshake", HS["payload"]))
cm.doc("payload-missing", "Every message has a payload object.", bad("/payload", "CORE-TYPE-001"), ["CORE-TYPE-001"], (), {"type": "StartBackup"})
cm.doc("handshake-version-2", "protocolVersion 2 is not this protocol.", bad("/payload/protocolVersion", "MIG-MSG-002"), ["MIG-MSG-002"], (), msg("Handshake", dict(HS["payload"], protocolVersion=2)))
cm.doc("handshake-window-zero", "maxWindow is 1 to 64.", bad("/payload/maxWindow", "MIG-MSG-002"), ["MIG-MSG-002"], ("boundary",), msg("Handshake", dict(HS["payload"], maxWindow=0)))
for slug, p in (("pin-request", {"pin": "048203"}), ("pin-accepted", {"result": "accepted", "resumeToken": TOKEN}),
                ("pin-rejected", {"result": "rejected", "attemptsLeft": 4}), ("pin-locked", {"result": "locked"})):
    cm.doc(slug, "AuthPIN: " + slug.replace("-", " ") + ".", ok(msg("AuthPIN", p)), ["MIG-MSG-003"], (), msg("AuthPIN", p))
cm.doc("pin-number", "A PIN sent as a number loses its leading zero.", bad("/payload/pin", "CORE-TYPE-003"), ["CORE-TYPE-003"], ("interop-trap",), msg("AuthPIN", {"pin": 48203}))
cm.doc("pin-five-digits", "Five digits are not a PIN.", bad("/payload/pin", "MIG-MSG-003"), ["MIG-MSG-003"], (), msg("AuthPIN", {"pin": "48203"}))
cm.doc("pin-both-shapes", "A request and a result in one message.", bad("/payload", "MIG-MSG-003"), ["MIG-MSG-003"], (), msg("AuthPIN", {"pin": "048203", "result": "accepted"}))
cm.doc("pin-rejected-zero-left", "Zero attempts left is \"locked\", not \"rejected\".", bad("/payload/attemptsLeft", "MIG-MSG-003"), ["MIG-MSG-003"], ("boundary",),
       msg("AuthPIN", {"result": "rejected", "attemptsLeft": 0}))
cm.doc("pin-all-zeros", "000000 is a PIN: six digits, kept as a string (the runner's wrong PIN for a shown 999999, the shown one plus one modulo 10^6).",
       ok(msg("AuthPIN", {"pin": "000000"})), ["MIG-MSG-003", "MIG-PIN-001"], ("boundary",), msg("AuthPIN", {"pin": "000000"}))
cm.doc("pin-all-nines", "999999 is a PIN.", ok(msg("AuthPIN", {"pin": "999999"})), ["MIG-MSG-003", "MIG-PIN-001"], ("boundary",), msg("AuthPIN", {"pin": "999999"}))
cm.doc("pin-seven-digits", "999999 plus one is not 1000000: seven digits are not a PIN.", bad("/payload/pin", "MIG-MSG-003"), ["MIG-MSG-003"], ("boundary",),
       msg("AuthPIN", {"pin": "1000000"}))
cm.doc("pin-fullwidth-digits", "ASCII digits only: U+FF10..FF19 are digits to Unicode, not to a PIN.", bad("/payload/pin", "MIG-MSG-003"), ["MIG-MSG-003"], ("interop-trap",),
       msg("AuthPIN", {"pin": "\uff10\uff14\uff18\uff12\uff10\uff13"}))
cm.doc("start-backup", "StartBackup with an empty payload.", ok(msg("StartBackup", {})), ["MIG-MSG-001"], (), msg("StartBackup", {}))
cm.doc("start-backup-with-members", "StartBackup carries nothing: members in its payload are ignored and dropped, like any unknown member.",
       ok(msg("StartBackup", {})), ["MIG-MSG-001", "CORE-MEMBER-001"], ("interop-trap",), msg("StartBackup", {"includeMedia": True}))
cm.doc("start-backup-payload-null", "payload is an object even when empty: null is not {}.", bad("/payload", "CORE-TYPE-002"), ["CORE-TYPE-002"], ("interop-trap",),
       {"type": "StartBackup", "payload": None})
cm.doc("backup-meta", "BackupMeta: the envelope's size and digest, the chunking.", ok(msg("BackupMeta", META)), ["MIG-MSG-004"], ("seed-example",), msg("BackupMeta", META))
cm.doc("meta-chunk-count-wrong", "chunkCount must be ⌈fileSize / chunkSize⌉.", bad("/payload/chunkCount", "MIG-MSG-004"), ["MIG-MSG-004"], (), msg("BackupMeta", dict(META, chunkCount=3)))
cm.doc("meta-digest-upper", "Digests are lower-case.", bad("/payload/envelopeSHA256", "MIG-MSG-004"), ["MIG-MSG-004"], (), msg("BackupMeta", dict(META, envelopeSHA256=SHA.upper())))
cm.doc("meta-tiny-file", "A file smaller than an envelope header.", bad("/payload/fileSize", "MIG-MSG-004"), ["MIG-MSG-004"], ("boundary",), msg("BackupMeta", dict(META, fileSize=96, chunkCount=1)))
cm.doc("start-transfer", "StartTransfer with window 4.", ok(msg("StartTransfer", {"backupId": BID, "window": 4})), ["MIG-MSG-005"], (), msg("StartTransfer", {"backupId": BID, "window": 4}))
cm.doc("start-window-65", "Window 65 is over the bound.", bad("/payload/window", "MIG-MSG-005"), ["MIG-MSG-005"], ("boundary",), msg("StartTransfer", {"backupId": BID, "window": 65}))
R = {"backupId": BID, "resumeToken": TOKEN, "window": 4, "have": [[0, 10], [12, 20]]}
cm.doc("resume-after-reconnect", "ResumeTransfer with the token and the chunks held.", ok(msg("ResumeTransfer", R)), ["MIG-MSG-005"], (), msg("ResumeTransfer", R))
cm.doc("resume-after-pause", "ResumeTransfer after a pause names only the backup.", ok(msg("ResumeTransfer", {"backupId": BID})), ["MIG-MSG-005"], (), msg("ResumeTransfer", {"backupId": BID}))
cm.doc("resume-ranges-touching", "Ranges must not touch: [0,10) and [10,20) is [0,20).", bad("/payload/have/1", "MIG-MSG-005"), ["MIG-MSG-005"], ("interop-trap",),
       msg("ResumeTransfer", dict(R, have=[[0, 10], [10, 20]])))
cm.doc("resume-have-empty", "A receiver back with no chunk held sends have []: the token still comes with it.",
       ok(msg("ResumeTransfer", dict(R, have=[]))), ["MIG-MSG-005"], ("boundary",), msg("ResumeTransfer", dict(R, have=[])))
cm.doc("resume-have-objects", "A range is a two-element array [from, to], not an object.", bad("/payload/have/0", "CORE-TYPE-003"), ["MIG-MSG-005", "CORE-TYPE-003"], ("interop-trap",),
       msg("ResumeTransfer", dict(R, have=[{"from": 0, "to": 10}])))
cm.doc("resume-have-flat", "have is an array of ranges, not one flat [from, to].", bad("/payload/have/0", "CORE-TYPE-003"), ["MIG-MSG-005", "CORE-TYPE-003"], ("interop-trap",),
       msg("ResumeTransfer", dict(R, have=[0, 10])))
cm.doc("resume-have-indexes", "have lists ranges, not chunk indexes: [[0], [1]] is not [[0, 2]].", bad("/payload/have/0", "MIG-MSG-005"), ["MIG-MSG-005"], ("interop-trap",),
       msg("ResumeTransfer", dict(R, have=[[0], [1]])))
cm.doc("resume-have-empty-range", "[5, 5) holds nothing: from < to.", bad("/payload/have/0", "MIG-MSG-005"), ["MIG-MSG-005"], ("boundary",),
       msg("ResumeTransfer", dict(R, have=[[5, 5]])))
cm.doc("resume-have-closed-range", "to is one past the last chunk held: a receiver holding chunk 0 only sends [[0, 1]], and [[0, 0]] is refused.",
       bad("/payload/have/0", "MIG-MSG-005"), ["MIG-MSG-005"], ("interop-trap",), msg("ResumeTransfer", dict(R, have=[[0, 0]])))
cm.doc("resume-have-unsorted", "Ranges are sorted.", bad("/payload/have/1", "MIG-MSG-005"), ["MIG-MSG-005"], (),
       msg("ResumeTransfer", dict(R, have=[[12, 20], [0, 10]])))
cm.doc("resume-have-fractional", "Chunk numbers are integers.", bad("/payload/have/0/1", "CORE-TYPE-004"), ["MIG-MSG-005", "CORE-TYPE-004"], (),
       msg("ResumeTransfer", dict(R, have=[[0, 10.5]])))
cm.doc("resume-token-without-have", "The token and the ranges come together.", bad("/payload/have", "MIG-MSG-005"), ["MIG-MSG-005"], (),
       msg("ResumeTransfer", {"backupId": BID, "resumeToken": TOKEN}))
cm.doc("chunk-ack", "ChunkAck ok.", ok(msg("ChunkAck", {"backupId": BID, "index": 7, "status": "ok"})), ["MIG-MSG-006"], (), msg("ChunkAck", {"backupId": BID, "index": 7, "status": "ok"}))
cm.doc("chunk-ack-nack", "\"nack\" is not a status.", bad("/payload/status", "MIG-MSG-006"), ["MIG-MSG-006"], (), msg("ChunkAck", {"backupId": BID, "index": 7, "status": "nack"}))
cm.doc("chunk-ack-negative", "Indexes are ≥ 0.", bad("/payload/index", "MIG-MSG-006"), ["MIG-MSG-006"], (), msg("ChunkAck", {"backupId": BID, "index": -1, "status": "ok"}))
cm.doc("cancel", "CancelTransfer with a reason.", ok(msg("CancelTransfer", {"backupId": BID, "reason": "insufficient-space"})), ["MIG-MSG-007"], (),
       msg("CancelTransfer", {"backupId": BID, "reason": "insufficient-space"}))
HEADER = b64(bytes([0x89, 0x4D, 0x53, 0x42, 0x4B, 0x0D, 0x0A, 0x1A, 1, 1]) + bytes(range(87)))
cm.doc("meta-with-envelope-header", "BackupMeta may carry the envelope's first 97 bytes, so the receiver checks its password first.",
       ok(msg("BackupMeta", dict(META, envelopeHeader=HEADER))), ["MIG-MSG-004", "MIG-META-002"], (), msg("BackupMeta", dict(META, envelopeHeader=HEADER)))
cm.doc("meta-envelope-header-short", "envelopeHeader is base64 of exactly 97 bytes.", bad("/payload/envelopeHeader", "MIG-MSG-004"), ["MIG-MSG-004"], ("boundary",),
       msg("BackupMeta", dict(META, envelopeHeader=b64(bytes(96)))))
cm.doc("meta-envelope-header-not-base64", "envelopeHeader is base64.", bad("/payload/envelopeHeader", "MIG-MSG-004"), ["MIG-MSG-004"], (),
       msg("BackupMeta", dict(META, envelopeHeader="not base64!")))
cm.doc("cancel-wrong-password", "The receiver's password does not open the backup: it says so before any chunk.",
       ok(msg("CancelTransfer", {"backupId": BID, "reason": "wrong-password"})), ["MIG-MSG-007", "MIG-META-002"], (),
       msg("CancelTransfer", {"backupId": BID, "reason": "wrong-password"}))
cm.doc("cancel-store-changed", "The sender's store changed under a streaming transfer: it says so and sends nothing more.",
       ok(msg("CancelTransfer", {"backupId": BID, "reason": "store-changed"})), ["MIG-MSG-007", "MIG-XFER-008"], (),
       msg("CancelTransfer", {"backupId": BID, "reason": "store-changed"}))
cm.doc("cancel-reason-free-text", "Reasons are codes, not sentences.", bad("/payload/reason", "MIG-MSG-007"), ["MIG-MSG-007"], (), msg("CancelTransfer", {"reason": "Disk full"}))
cm.doc("complete-sender", "The sender's Complete.", ok(msg("Complete", {"backupId": BID, "chunkCount": 2, "envelopeSHA256": SHA})), ["MIG-MSG-008"], (),
       msg("Complete", {"backupId": BID, "chunkCount": 2, "envelopeSHA256": SHA}))
cm.doc("complete-receiver", "The receiver's Complete.", ok(msg("Complete", {"backupId": BID, "result": "verified"})), ["MIG-MSG-008"], (), msg("Complete", {"backupId": BID, "result": "verified"}))
cm.doc("complete-both", "Both shapes at once.", bad("/payload", "MIG-MSG-008"), ["MIG-MSG-008"], (), msg("Complete", {"backupId": BID, "chunkCount": 2, "envelopeSHA256": SHA, "result": "verified"}))

ch = File(kind="backup-chunk", description="BackupChunk frames checked against a BackupMeta (Spec migration.md 5.2).", context={"meta": META})
files.append(ch)
ch.doc("first-chunk", "Chunk 0: 4096 bytes at offset 0.", ok({"backupId": BID, "index": 0, "offset": 0, "length": 4096, "chunkSHA256": hashlib.sha256(CHUNK0).hexdigest()}),
       ["MIG-CHUNK-001", "MIG-CHUNK-002", "MIG-CHUNK-003", "MIG-CHUNK-004"], ("seed-example",), b=frame(0, CHUNK0))
ch.doc("last-chunk", "The last chunk holds the rest (904 bytes).", ok({"backupId": BID, "index": 1, "offset": 4096, "length": 904, "chunkSHA256": hashlib.sha256(CHUNK1).hexdigest()}),
       ["MIG-CHUNK-003"], ("boundary",), b=frame(1, CHUNK1))
ch.doc("magic-wrong", "Not a BackupChunk.", bad("/magic", "MIG-CHUNK-001"), ["MIG-CHUNK-001"], (), b=frame(0, CHUNK0, magic=b"MSBK"))
ch.doc("version-2", "Version 2.", bad("/version", "MIG-CHUNK-001"), ["MIG-CHUNK-001"], (), b=frame(0, CHUNK0, version=2))
ch.doc("short-header", "A frame shorter than its header.", bad("", "MIG-CHUNK-002"), ["MIG-CHUNK-002"], ("boundary",), b=frame(0, CHUNK0)[:50])
ch.doc("length-lies", "The header's length does not match the frame.", bad("/length", "MIG-CHUNK-002"), ["MIG-CHUNK-002"], (), b=frame(0, CHUNK0)[:-1])
ch.doc("other-backup", "A chunk of another backup.", bad("/backupId", "MIG-CHUNK-003"), ["MIG-CHUNK-003"], (), b=frame(0, CHUNK0, backup="00000000-0000-4000-8000-000000000000"))
ch.doc("offset-wrong", "Offset must be index × chunkSize.", bad("/offset", "MIG-CHUNK-003"), ["MIG-CHUNK-003"], (), b=frame(1, CHUNK1, offset=4095))
ch.doc("index-beyond", "Index 2 of a 2-chunk file.", bad("/index", "MIG-CHUNK-003"), ["MIG-CHUNK-003"], (), b=frame(2, CHUNK1))
ch.doc("short-middle-chunk", "Chunk 0 must be a full chunk.", bad("/length", "MIG-CHUNK-003"), ["MIG-CHUNK-003"], (), b=frame(0, CHUNK0[:4000]))
ch.doc("offset-beyond-2-63", "An offset of 2^63 is no chunk's place (once a crash: found by fuzzing).", bad("/offset", "MIG-CHUNK-003"), ["MIG-CHUNK-003"],
       ("boundary",), b=frame(0, CHUNK0, offset=1 << 63))
ch.doc("digest-wrong", "Data that does not match chunkSHA256.", bad("/chunkSHA256", "MIG-CHUNK-004"), ["MIG-CHUNK-004"], (), b=frame(0, CHUNK0, digest=hashlib.sha256(b"x").digest()))

# ------------------------------------------------------------------ receiver machine
RHS = msg("Handshake", {"protocolVersion": 1, "role": "receiver", "sessionId": RSESSION, "appVersion": "1.0.0", "schemaVersion": 1,
                        "device": {"name": "New iPhone"}, "maxWindow": 16, "maxChunkSize": 1048576})
SHS = msg("Handshake", dict(HS["payload"], maxWindow=4))
rc = File(machine="receiver", description="The new phone's side of the transfer (Spec migration.md 5.3).",
          context={"random": "0000bc4b" + "11" * 16 + "22" * 16, "configuration": {"freeSpace": 1000000}})
files.append(rc)


def s(name, **kw):
    d = {"name": name}
    d.update(kw)
    return d


def send(m):
    return {"action": "send", "message": m}


def reject(rule, path=""):
    return {"action": "reject", "rule": rule, "path": path}


ack = lambda i, st="ok": send(msg("ChunkAck", {"backupId": BID, "index": i, "status": st}))
to_meta = [({"event": "connected", "at": T}, s("awaitingHandshake"), [send(RHS)]),
           ({"event": "message", "at": T + 1, "document": SHS}, s("awaitingPIN", attemptsLeft=5), [{"action": "show-pin", "pin": PIN}]),
           ({"event": "message", "at": T + 2, "document": msg("AuthPIN", {"pin": PIN})}, s("awaitingMeta"), [send(msg("AuthPIN", {"result": "accepted", "resumeToken": TOKEN}))]),
           ({"event": "message", "at": T + 3, "document": msg("StartBackup", {})}, s("awaitingMeta"), [])]
to_transfer = to_meta + [
    ({"event": "message", "at": T + 4, "document": msg("BackupMeta", META)}, s("confirming", have=[]), [{"action": "confirm-wipe", "backupId": BID}]),
    ({"event": "user-confirmed", "at": T + 5, "yes": True}, s("transferring", have=[]),
     [{"action": "open-file", "backupId": BID, "fileSize": 5000}, send(msg("StartTransfer", {"backupId": BID, "window": 4}))])]
chunk0 = ({"event": "chunk", "at": T + 6, "frame": b64(frame(0, CHUNK0))}, s("transferring", have=[[0, 1]]),
          [{"action": "write-chunk", "index": 0, "offset": 0, "length": 4096}, {"action": "persist-journal", "have": [[0, 1]]}, ack(0)])
rc.steps("whole-session", "PIN, meta, consent, a corrupted chunk asked again, the final digest, the restore.",
         ["MIG-PIN-001", "MIG-META-001", "MIG-XFER-002", "MIG-XFER-003", "MIG-XFER-004", "MIG-CHUNK-004"], ["MIG-CHUNK-004"],
         to_transfer + [chunk0,
                        ({"event": "chunk", "at": T + 7, "frame": b64(frame(1, CHUNK1[:-1] + b"\x00", digest=hashlib.sha256(CHUNK1).digest()))},
                         s("transferring", have=[[0, 1]]), [ack(1, "retransmit"), reject("MIG-CHUNK-004", "/chunkSHA256")]),
                        ({"event": "chunk", "at": T + 8, "frame": b64(frame(1, CHUNK1))}, s("transferring", have=[[0, 2]]),
                         [{"action": "write-chunk", "index": 1, "offset": 4096, "length": 904}, {"action": "persist-journal", "have": [[0, 2]]}, ack(1)]),
                        ({"event": "chunk", "at": T + 9, "frame": b64(frame(0, CHUNK0))}, s("transferring", have=[[0, 2]]), [ack(0)]),
                        ({"event": "message", "at": T + 10, "document": msg("Complete", {"backupId": BID, "chunkCount": 2, "envelopeSHA256": SHA})},
                         s("verifying", have=[[0, 2]]), [{"action": "verify-file", "expectedSHA256": SHA}]),
                        ({"event": "file-verified", "at": T + 11, "ok": True}, s("done", have=[[0, 2]]),
                         [send(msg("Complete", {"backupId": BID, "result": "verified"})), {"action": "restore", "backupId": BID}])], flags=["seed-example"])
rc.steps("digest-mismatch", "A whole file whose digest differs is not restored.", ["MIG-XFER-004"], ["MIG-XFER-004"],
         to_transfer + [chunk0,
                        ({"event": "chunk", "at": T + 8, "frame": b64(frame(1, CHUNK1))}, s("transferring", have=[[0, 2]]),
                         [{"action": "write-chunk", "index": 1, "offset": 4096, "length": 904}, {"action": "persist-journal", "have": [[0, 2]]}, ack(1)]),
                        ({"event": "message", "at": T + 10, "document": msg("Complete", {"backupId": BID, "chunkCount": 2, "envelopeSHA256": SHA})},
                         s("verifying", have=[[0, 2]]), [{"action": "verify-file", "expectedSHA256": SHA}]),
                        ({"event": "file-verified", "at": T + 11, "ok": False}, s("failed", reason="digest-mismatch", have=[[0, 2]]),
                         [send(msg("Complete", {"backupId": BID, "result": "digest-mismatch"})), reject("MIG-XFER-004")])])
wrong = [({"event": "message", "at": T + 2 + i, "document": msg("AuthPIN", {"pin": "999999"})}, s("awaitingPIN", attemptsLeft=4 - i),
          [send(msg("AuthPIN", {"result": "rejected", "attemptsLeft": 4 - i}))]) for i in range(4)]
rc.steps("five-wrong-pins", "Five wrong PINs lock the session.", ["MIG-PIN-002"], ["MIG-PIN-002"],
         to_meta[:2] + wrong + [({"event": "message", "at": T + 7, "document": msg("AuthPIN", {"pin": "999999"})}, s("locked"),
                                 [send(msg("AuthPIN", {"result": "locked"})), {"action": "close"}, reject("MIG-PIN-002")])])
rc.steps("right-pin-after-four", "Four wrong PINs, then the right one.", ["MIG-PIN-002"], [],
         to_meta[:2] + wrong + [({"event": "message", "at": T + 7, "document": msg("AuthPIN", {"pin": PIN})}, s("awaitingMeta"),
                                 [send(msg("AuthPIN", {"result": "accepted", "resumeToken": TOKEN}))])])
rc.steps("schema-too-new", "A backup from a newer schema is refused before anything is written.", ["MIG-META-001"], ["MIG-META-001"],
         to_meta + [({"event": "message", "at": T + 4, "document": msg("BackupMeta", dict(META, schemaVersion=2))}, s("failed", reason="schema-incompatible", have=[]),
                     [send(msg("CancelTransfer", {"backupId": BID, "reason": "schema-incompatible"})), {"action": "close"}, reject("MIG-META-001")])])
rc.steps("no-space", "Not enough space for the package, its zip and the restore.", ["MIG-META-001"], ["MIG-META-001"],
         to_meta + [({"event": "message", "at": T + 4, "document": msg("BackupMeta", META)}, s("failed", reason="insufficient-space", have=[]),
                     [send(msg("CancelTransfer", {"backupId": BID, "reason": "insufficient-space"})), {"action": "close"}, reject("MIG-META-001")])],
         context={"configuration": {"freeSpace": 12999}})
rc.steps("no-space-streaming", "A receiver that unpacks as chunks arrive needs room for the unpacked store and a window of chunks (4000 + 16 x 4096), not for the package: one byte short of that.",
         ["MIG-META-001"], ["MIG-META-001"],
         to_meta + [({"event": "message", "at": T + 4, "document": msg("BackupMeta", META)}, s("failed", reason="insufficient-space", have=[]),
                     [send(msg("CancelTransfer", {"backupId": BID, "reason": "insufficient-space"})), {"action": "close"}, reject("MIG-META-001")])],
         context={"configuration": {"freeSpace": 4000 + 16 * 4096 - 1, "streaming": True}})
rc.steps("room-enough-streaming", "The same receiver with exactly that room goes on to ask its user.",
         ["MIG-META-001"], [],
         to_meta + [({"event": "message", "at": T + 4, "document": msg("BackupMeta", META)}, s("confirming", have=[]), [{"action": "confirm-wipe", "backupId": BID}])],
         context={"configuration": {"freeSpace": 4000 + 16 * 4096, "streaming": True}}, flags=["boundary"])
rc.steps("chunk-size-over-maximum", "Chunks larger than the receiver's Handshake allowed: the sender broke the negotiation, a protocol error.",
         ["MIG-META-001"], ["MIG-META-001"],
         to_meta + [({"event": "message", "at": T + 4, "document": msg("BackupMeta", dict(META, chunkSize=2 << 20, chunkCount=1))},
                     s("failed", reason="protocol-error", have=[]),
                     [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-META-001")])])
rc.steps("user-declines", "The user refuses to replace local data.", ["MIG-META-001"], [],
         to_meta + [to_transfer[4], ({"event": "user-confirmed", "at": T + 5, "yes": False}, s("failed", reason="user-declined", have=[]),
                                     [send(msg("CancelTransfer", {"backupId": BID, "reason": "user-declined"})), {"action": "close"}])])
rc.steps("chunk-before-start", "A chunk before StartTransfer breaks the session's order.", ["MIG-XFER-006"], ["MIG-XFER-006"],
         to_meta + [({"event": "chunk", "at": T + 4, "frame": b64(frame(0, CHUNK0))}, s("failed", reason="protocol-error"),
                     [send(msg("CancelTransfer", {"reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-006")])])
rc.steps("bad-frame-ends-session", "A frame that is not a BackupChunk ends the session.", ["MIG-CHUNK-001"], ["MIG-CHUNK-001"],
         to_transfer + [({"event": "chunk", "at": T + 6, "frame": b64(frame(0, CHUNK0, magic=b"XXXX"))}, s("failed", reason="protocol-error", have=[]),
                         [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-CHUNK-001", "/magic")])])
rc.steps("reconnect-resumes", "After a disconnect the receiver greets, waits for the same sender's Handshake, then comes back with its token and what it holds.",
         ["MIG-XFER-003"], [],
         to_transfer + [chunk0, ({"event": "disconnected", "at": T + 7}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "connected", "at": T + 8}, s("resuming", have=[[0, 1]]), [send(RHS)]),
                        ({"event": "message", "at": T + 9, "document": SHS}, s("transferring", have=[[0, 1]]),
                         [send(msg("ResumeTransfer", {"backupId": BID, "resumeToken": TOKEN, "window": 4, "have": [[0, 1]]}))])])
rc.steps("resent-after-resume", "A chunk the ResumeTransfer listed as held is sent again: acknowledged, not written, and reported.",
         ["MIG-XFER-003"], ["MIG-XFER-003"],
         to_transfer + [chunk0, ({"event": "disconnected", "at": T + 7}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "connected", "at": T + 8}, s("resuming", have=[[0, 1]]), [send(RHS)]),
                        ({"event": "message", "at": T + 9, "document": SHS}, s("transferring", have=[[0, 1]]),
                         [send(msg("ResumeTransfer", {"backupId": BID, "resumeToken": TOKEN, "window": 4, "have": [[0, 1]]}))]),
                        ({"event": "chunk", "at": T + 10, "frame": b64(frame(0, CHUNK0))}, s("transferring", have=[[0, 1]]),
                         [ack(0), reject("MIG-XFER-003", "/index")])])
rc.steps("held-chunk-damaged-copy", "A damaged copy of a chunk already held is acknowledged ok again: the held copy was verified, this one is not looked at.",
         ["MIG-XFER-002"], [],
         to_transfer + [chunk0,
                        ({"event": "chunk", "at": T + 7, "frame": b64(frame(0, CHUNK0[:-1] + b"\x00", digest=hashlib.sha256(CHUNK0).digest()))},
                         s("transferring", have=[[0, 1]]), [ack(0)])])
rc.steps("reconnect-other-sender", "Whoever listens after a disconnect is not trusted: a sender with another sessionId never sees the resume token.",
         ["MIG-XFER-003"], ["MIG-XFER-003"],
         to_transfer + [chunk0, ({"event": "disconnected", "at": T + 7}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "connected", "at": T + 8}, s("resuming", have=[[0, 1]]), [send(RHS)]),
                        ({"event": "message", "at": T + 9, "document": msg("Handshake", dict(SHS["payload"], sessionId="44444444-4444-4444-8444-444444444444"))},
                         s("failed", reason="protocol-error", have=[[0, 1]]),
                         [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-003")])],
         flags=["interop-trap"])
rc.steps("stall-timeout", "30 s without data: the connection is dropped, to be resumed.", ["MIG-XFER-005"], ["MIG-XFER-005"],
         to_transfer + [chunk0, ({"event": "tick", "at": T + 6 + 30000}, s("transferring", have=[[0, 1]]), []),
                        ({"event": "tick", "at": T + 6 + 30001}, s("disconnected", have=[[0, 1]]), [{"action": "close"}, reject("MIG-XFER-005")])], flags=["boundary"])
rc.steps("sender-never-greets", "A sender that accepts the connection and never sends its Handshake holds no receiver: 10 s, then the connection is closed and the session ends.",
         ["MIG-XFER-007"], ["MIG-XFER-007"],
         [({"event": "connected", "at": T}, s("awaitingHandshake"), [send(RHS)]),
          ({"event": "tick", "at": T + 10000}, s("awaitingHandshake"), []),
          ({"event": "tick", "at": T + 10001}, s("failed", reason="timeout"), [{"action": "close"}, reject("MIG-XFER-007")])], flags=["boundary"])
rc.steps("resumed-sender-never-greets", "After a reconnect the sender's Handshake is waited for 10 s too; the journal is kept for a receiver started again.",
         ["MIG-XFER-007", "MIG-XFER-003"], ["MIG-XFER-007"],
         to_transfer + [chunk0, ({"event": "disconnected", "at": T + 7}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "connected", "at": T + 8}, s("resuming", have=[[0, 1]]), [send(RHS)]),
                        ({"event": "tick", "at": T + 8 + 10000}, s("resuming", have=[[0, 1]]), []),
                        ({"event": "tick", "at": T + 8 + 10001}, s("failed", reason="timeout", have=[[0, 1]]), [{"action": "close"}, reject("MIG-XFER-007")])],
         flags=["boundary"])
rc.steps("pin-draw-discards-high-words", "A word at or above 4,294,000,000 is discarded, not reduced: 0xfffffff0 would give PIN 967280.",
         ["MIG-PIN-001"], [], to_meta[:2], context={"random": "fffffff0" + "0000bc4b" + "11" * 16 + "22" * 16}, flags=["boundary", "interop-trap"])
rc.steps("random-ran-out", "A random source that runs out gives no PIN; the receiver must not fall back to a fixed one.",
         ["MIG-PIN-001"], ["MIG-PIN-001"],
         [({"event": "connected", "at": T}, s("failed", reason="no-random"), [{"action": "close"}, reject("MIG-PIN-001")])],
         context={"random": "ffffffff" * 12})
FILE5 = bytes((i * 53 + 7) & 0xFF for i in range(5 * 4096 - 100))
META5 = dict(META, fileSize=len(FILE5), chunkCount=5, envelopeSHA256=hashlib.sha256(FILE5).hexdigest(), zipSize=20000)
to_transfer5 = to_meta + [
    ({"event": "message", "at": T + 4, "document": msg("BackupMeta", META5)}, s("confirming", have=[]), [{"action": "confirm-wipe", "backupId": BID}]),
    ({"event": "user-confirmed", "at": T + 5, "yes": True}, s("transferring", have=[]),
     [{"action": "open-file", "backupId": BID, "fileSize": len(FILE5)}, send(msg("StartTransfer", {"backupId": BID, "window": 4}))])]


def chunk5(i, at, have):
    data = FILE5[i * 4096:(i + 1) * 4096]
    return {"event": "chunk", "at": at, "frame": b64(frame(i, data))}, [{"action": "write-chunk", "index": i, "offset": i * 4096, "length": len(data)},
                                                                       {"action": "persist-journal", "have": have}, ack(i)]


e, a = chunk5(3, T + 6, [[3, 4]])
rc.steps("chunk-at-window-edge", "Window 4: chunk 3 arriving first means chunks 0 to 3 are outstanding, which the window allows.",
         ["MIG-XFER-001"], [], to_transfer5 + [(e, s("transferring", have=[[3, 4]]), a)], flags=["boundary"])
e, a = chunk5(4, T + 6, [[4, 5]])
rc.steps("chunk-beyond-window", "Window 4: chunk 4 while 0 to 3 were never acknowledged means five outstanding. "
         "The data is kept and acknowledged; the sender is reported.", ["MIG-XFER-001"], ["MIG-XFER-001"],
         to_transfer5 + [(e, s("transferring", have=[[4, 5]]), a + [reject("MIG-XFER-001")])])
# §5.5: a receiver that unpacks as chunks arrive acknowledges only in index order.
STREAMING = {"configuration": {"freeSpace": 1000000, "streaming": True}}
w0, a0 = chunk5(0, T + 6, [[0, 1]])
write5 = lambda i: {"action": "write-chunk", "index": i, "offset": i * 4096, "length": len(FILE5[i * 4096:(i + 1) * 4096])}
rc.steps("held-until-the-gap-fills-streaming", "Window 4, unpacking as chunks arrive: chunks 2 and 3 come before 1, so they are handed over to be kept aside "
         "but not acknowledged (the sender's window bounds what is held); a copy of one changes nothing; when 1 comes, 1 to 3 are journaled and acknowledged in order.",
         ["MIG-XFER-001", "MIG-XFER-009"], [],
         to_transfer5 + [(w0, s("transferring", have=[[0, 1]]), a0),
                         (chunk5(2, T + 7, None)[0], s("transferring", have=[[0, 1]], held=[2]), [write5(2)]),
                         (chunk5(3, T + 8, None)[0], s("transferring", have=[[0, 1]], held=[2, 3]), [write5(3)]),
                         (chunk5(2, T + 9, None)[0], s("transferring", have=[[0, 1]], held=[2, 3]), []),
                         (chunk5(1, T + 10, None)[0], s("transferring", have=[[0, 4]]),
                          [write5(1), {"action": "persist-journal", "have": [[0, 4]]}, ack(1), ack(2), ack(3)])],
         context=STREAMING)
rc.steps("held-comes-again-after-resume-streaming", "A chunk held unacknowledged when the connection dropped is not in the ResumeTransfer's list: it comes again and is held again.",
         ["MIG-XFER-003", "MIG-XFER-009"], [],
         to_transfer5 + [(w0, s("transferring", have=[[0, 1]]), a0),
                         (chunk5(2, T + 7, None)[0], s("transferring", have=[[0, 1]], held=[2]), [write5(2)]),
                         ({"event": "disconnected", "at": T + 8}, s("disconnected", have=[[0, 1]], held=[2]), []),
                         ({"event": "connected", "at": T + 9}, s("resuming", have=[[0, 1]], held=[2]), [send(RHS)]),
                         ({"event": "message", "at": T + 10, "document": SHS}, s("transferring", have=[[0, 1]]),
                          [send(msg("ResumeTransfer", {"backupId": BID, "resumeToken": TOKEN, "window": 4, "have": [[0, 1]]}))]),
                         (chunk5(2, T + 11, None)[0], s("transferring", have=[[0, 1]], held=[2]), [write5(2)])],
         context=STREAMING)
e, a = chunk5(4, T + 6, None)
rc.steps("chunk-beyond-window-streaming", "Window 4, unpacking as chunks arrive: chunk 4 while 0 to 3 are missing cannot be held within the window, "
         "so the session ends as the sender's protocol error (a file-first receiver writes it and reports the sender).",
         ["MIG-XFER-001", "MIG-XFER-009"], ["MIG-XFER-001"],
         to_transfer5 + [(e, s("failed", reason="protocol-error", have=[]),
                          [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-001")])],
         context=STREAMING)
rc.steps("text-frames", "Control messages arrive as text frames: the text is one JSON document.", ["MIG-WS-001"], [],
         [to_meta[0], ({"event": "text", "at": T + 1, "text": json.dumps(SHS)}, s("awaitingPIN", attemptsLeft=5), [{"action": "show-pin", "pin": PIN}])])
rc.steps("text-not-json", "A text frame that is not JSON ends the session; the violation names the JSON rule.", ["MIG-WS-001", "CORE-JSON-001"], ["CORE-JSON-001"],
         [to_meta[0], ({"event": "text", "at": T + 1, "text": '{"type": "Handshake", "payload": '}, s("failed", reason="protocol-error"),
                       [send(msg("CancelTransfer", {"reason": "protocol-error"})), {"action": "close"}, reject("CORE-JSON-001", "/payload")])])
rc.steps("text-over-64k", "Control messages are at most 64 KiB (CORE-JSON-004's limit for them).", ["MIG-WS-001", "CORE-JSON-004"], ["CORE-JSON-004"],
         [to_meta[0], ({"event": "text", "at": T + 1, "text": json.dumps(msg("Handshake", dict(SHS["payload"], pad="x" * 65536)))},
                       s("failed", reason="protocol-error"),
                       [send(msg("CancelTransfer", {"reason": "protocol-error"})), {"action": "close"}, reject("CORE-JSON-004")])], flags=["boundary"])

METAH = dict(META, envelopeHeader=HEADER)
to_consent = to_meta + [
    ({"event": "message", "at": T + 4, "document": msg("BackupMeta", METAH)}, s("confirming", have=[]), [{"action": "confirm-wipe", "backupId": BID}]),
    ({"event": "user-confirmed", "at": T + 5, "yes": True}, s("checkingPassword", have=[]), [{"action": "check-password", "rule": "MIG-META-002"}])]
rc.steps("password-checked-before-transfer", "With the envelope header in BackupMeta, the password is checked after consent and before StartTransfer.",
         ["MIG-META-002"], ["MIG-META-002"],
         to_consent + [({"event": "password-checked", "at": T + 6, "result": "opens"}, s("transferring", have=[]),
                        [{"action": "open-file", "backupId": BID, "fileSize": 5000}, send(msg("StartTransfer", {"backupId": BID, "window": 4}))])])
rc.steps("wrong-password-before-any-chunk", "A password that does not open the header ends the session before any chunk, with the same outcome on both sides.",
         ["MIG-META-002", "MIG-MSG-007"], ["MIG-META-002"],
         to_consent + [({"event": "password-checked", "at": T + 6, "result": "wrong-password"}, s("failed", reason="wrong-password", have=[]),
                        [send(msg("CancelTransfer", {"backupId": BID, "reason": "wrong-password"})), {"action": "close"}])])
rc.steps("envelope-header-invalid", "A header that is not an envelope this receiver opens is the sender's protocol error, on the envelope rule it breaks.",
         ["MIG-META-002", "MIG-ENV-001"], ["MIG-ENV-001"],
         to_consent + [({"event": "password-checked", "at": T + 6, "result": "invalid-header", "rule": "MIG-ENV-001"},
                        s("failed", reason="protocol-error", have=[]),
                        [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"},
                         reject("MIG-ENV-001", "/payload/envelopeHeader")])])
bad1 = lambda at: ({"event": "chunk", "at": at, "frame": b64(frame(1, CHUNK1[:-1] + b"\x00", digest=hashlib.sha256(CHUNK1).digest()))},)
rc.steps("too-many-damaged-copies", "A chunk that keeps arriving damaged is asked for a bounded number of times, then the transfer ends.",
         ["MIG-XFER-002", "MIG-CHUNK-004"], ["MIG-XFER-002"],
         to_transfer + [bad1(T + 6) + (s("transferring", have=[]), [ack(1, "retransmit"), reject("MIG-CHUNK-004", "/chunkSHA256")]),
                        bad1(T + 7) + (s("transferring", have=[]), [ack(1, "retransmit"), reject("MIG-CHUNK-004", "/chunkSHA256")]),
                        bad1(T + 8) + (s("failed", reason="too-many-retransmits", have=[]),
                                       [send(msg("CancelTransfer", {"backupId": BID, "reason": "too-many-retransmits"})), {"action": "close"},
                                        reject("MIG-XFER-002", "/chunkSHA256")])],
         context={"configuration": {"freeSpace": 1000000, "maxRetransmitsPerChunk": 2}})
both = [chunk0, ({"event": "chunk", "at": T + 8, "frame": b64(frame(1, CHUNK1))}, s("transferring", have=[[0, 2]]),
                 [{"action": "write-chunk", "index": 1, "offset": 4096, "length": 904}, {"action": "persist-journal", "have": [[0, 2]]}, ack(1)])]
for slug, member, changed in (("complete-digest-differs", "envelopeSHA256", "00" * 32), ("complete-count-differs", "chunkCount", 3)):
    rc.steps(slug, f"The sender's Complete repeats BackupMeta; another {member} is not this backup and nothing is verified.",
             ["MIG-XFER-004"], ["MIG-XFER-004"],
             to_transfer + both + [({"event": "message", "at": T + 10, "document": msg("Complete", dict({"backupId": BID, "chunkCount": 2, "envelopeSHA256": SHA}, **{member: changed}))},
                                    s("failed", reason="protocol-error", have=[[0, 2]]),
                                    [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"},
                                     reject("MIG-XFER-004", "/payload/" + member)])])

# Rows of the receiver's transition table (Spec migration.md 5.3) that the flows above do not take.
PAUSE = msg("PauseTransfer", {"backupId": BID})
RESUME = msg("ResumeTransfer", {"backupId": BID})
late_confirm = T + 60000
rc.steps("silence-counts-from-the-transfer",
         "The 30 s of silence count from when the transfer was asked for or resumed, not from the last frame: a user who confirms a minute after "
         "the meta, or resumes after a long pause, is not taken for a stalled sender.", ["MIG-XFER-005"], ["MIG-XFER-005"],
         to_transfer[:5] + [
             ({"event": "user-confirmed", "at": late_confirm, "yes": True}, s("transferring", have=[]), to_transfer[5][2]),
             ({"event": "tick", "at": late_confirm + 30000}, s("transferring", have=[]), []),
             ({"event": "chunk", "at": late_confirm + 30000, "frame": b64(frame(0, CHUNK0))}, s("transferring", have=[[0, 1]]), chunk0[2]),
             ({"event": "user-pause", "at": late_confirm + 30001}, s("paused", have=[[0, 1]]), [send(PAUSE)]),
             ({"event": "user-resume", "at": late_confirm + 200000}, s("transferring", have=[[0, 1]]), [send(RESUME)]),
             ({"event": "tick", "at": late_confirm + 230000}, s("transferring", have=[[0, 1]]), []),
             ({"event": "tick", "at": late_confirm + 230001}, s("disconnected", have=[[0, 1]]), [{"action": "close"}, reject("MIG-XFER-005")])],
         flags=["boundary"])
rc.steps("pause-and-resume", "Either side pauses and resumes; a disconnect while paused keeps the transfer for the resume, and a frame while disconnected is not read.",
         ["MIG-MSG-005", "MIG-XFER-003"], [],
         to_transfer + [chunk0,
                        ({"event": "user-pause", "at": T + 7}, s("paused", have=[[0, 1]]), [send(PAUSE)]),
                        ({"event": "user-resume", "at": T + 8}, s("transferring", have=[[0, 1]]), [send(RESUME)]),
                        ({"event": "message", "at": T + 9, "document": PAUSE}, s("paused", have=[[0, 1]]), []),
                        ({"event": "message", "at": T + 10, "document": RESUME}, s("transferring", have=[[0, 1]]), []),
                        ({"event": "user-pause", "at": T + 11}, s("paused", have=[[0, 1]]), [send(PAUSE)]),
                        ({"event": "disconnected", "at": T + 12}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "message", "at": T + 13, "document": RESUME}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "chunk", "at": T + 14, "frame": b64(frame(1, CHUNK1))}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "text", "at": T + 15, "text": "not json"}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "tick", "at": T + 40000}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "disconnected", "at": T + 40001}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "connected", "at": T + 40002}, s("resuming", have=[[0, 1]]), [send(RHS)]),
                        ({"event": "disconnected", "at": T + 40003}, s("disconnected", have=[[0, 1]]), [])])
rc.steps("disconnect-while-verifying", "A disconnect while the file is verified keeps everything for the resume.", ["MIG-XFER-003"], [],
         to_transfer + both + [({"event": "message", "at": T + 10, "document": msg("Complete", {"backupId": BID, "chunkCount": 2, "envelopeSHA256": SHA})},
                                s("verifying", have=[[0, 2]]), [{"action": "verify-file", "expectedSHA256": SHA}]),
                               ({"event": "disconnected", "at": T + 11}, s("disconnected", have=[[0, 2]]), [])])
rc.steps("password-not-checked", "An edge without the password cannot check it: the transfer goes on and the restore checks.", ["MIG-META-002"], [],
         to_consent + [({"event": "password-checked", "at": T + 6, "result": "not-checked"}, s("transferring", have=[]),
                        [{"action": "open-file", "backupId": BID, "fileSize": 5000}, send(msg("StartTransfer", {"backupId": BID, "window": 4}))])])
for slug, prefix, ended in (("idle", [], s("failed", reason="disconnected")), ("awaiting-handshake", to_meta[:1], s("failed", reason="disconnected")),
                            ("awaiting-pin", to_meta[:2], s("failed", reason="disconnected")), ("awaiting-meta", to_meta[:3], s("failed", reason="disconnected")),
                            ("confirming", to_transfer[:5], s("failed", reason="disconnected", have=[])),
                            ("checking-password", to_consent, s("failed", reason="disconnected", have=[]))):
    at = T + 20
    rc.steps("disconnected-" + slug, "Before the transfer nothing is kept: a disconnect ends the session (a new one shows a new PIN); later frames are not read.",
             ["MIG-XFER-006"], [],
             prefix + [({"event": "disconnected", "at": at}, ended, []),
                       ({"event": "message", "at": at + 1, "document": SHS}, ended, [])])
rc.steps("done-ignores-late-frames", "After the restore began, frames still in flight are not read.", ["MIG-XFER-006"], [],
         to_transfer + both + [({"event": "message", "at": T + 10, "document": msg("Complete", {"backupId": BID, "chunkCount": 2, "envelopeSHA256": SHA})},
                                s("verifying", have=[[0, 2]]), [{"action": "verify-file", "expectedSHA256": SHA}]),
                               ({"event": "file-verified", "at": T + 11, "ok": True}, s("done", have=[[0, 2]]),
                                [send(msg("Complete", {"backupId": BID, "result": "verified"})), {"action": "restore", "backupId": BID}]),
                               ({"event": "chunk", "at": T + 12, "frame": b64(frame(0, CHUNK0))}, s("done", have=[[0, 2]]), [])])
rc.steps("locked-ignores-more-pins", "A locked session reads nothing more.", ["MIG-PIN-002"], [],
         to_meta[:2] + wrong + [({"event": "message", "at": T + 7, "document": msg("AuthPIN", {"pin": "999999"})}, s("locked"),
                                 [send(msg("AuthPIN", {"result": "locked"})), {"action": "close"}, reject("MIG-PIN-002")]),
                                ({"event": "message", "at": T + 8, "document": msg("AuthPIN", {"pin": PIN})}, s("locked"), [])])
rc.steps("user-cancels", "The user cancels mid-transfer: the sender is told why.", ["MIG-MSG-007"], [],
         to_transfer + [({"event": "user-cancel", "at": T + 6}, s("failed", reason="user-cancelled", have=[]),
                         [send(msg("CancelTransfer", {"backupId": BID, "reason": "user-cancelled"})), {"action": "close"}])])
rc.steps("sender-cancels", "The sender cancels: the session ends with its reason.", ["MIG-MSG-007"], [],
         to_meta + [({"event": "message", "at": T + 4, "document": msg("CancelTransfer", {"reason": "user-cancelled"})}, s("failed", reason="user-cancelled"),
                     [{"action": "close"}])])
rc.steps("sender-store-changed", "The sender's store changed mid-transfer: the session ends with that reason, nothing is restored and nobody is blamed.",
         ["MIG-MSG-007", "MIG-XFER-008"], [],
         to_transfer + [chunk0, ({"event": "message", "at": T + 7, "document": msg("CancelTransfer", {"backupId": BID, "reason": "store-changed"})},
                                 s("failed", reason="store-changed", have=[[0, 1]]), [{"action": "close"}])])
rc.steps("package-refused-while-streaming", "A receiver that unpacks as chunks arrive finds an entry that climbs out of the package: the sender's package, a protocol error on its rule and path.",
         ["MIG-XFER-009", "MIG-PKG-006"], ["MIG-PKG-006"],
         to_transfer + [chunk0, ({"event": "package-refused", "at": T + 7, "rule": "MIG-PKG-006", "path": "/entries/Backup-" + BID + "~1..~1x"},
                                 s("failed", reason="protocol-error", have=[[0, 1]]),
                                 [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"},
                                  reject("MIG-PKG-006", "/entries/Backup-" + BID + "~1..~1x")]),
                        ({"event": "package-refused", "at": T + 8, "rule": "MIG-PKG-006", "path": ""}, s("failed", reason="protocol-error", have=[[0, 1]]), [])])
rc.steps("cancel-while-disconnected", "A user's cancel while disconnected ends the session and sends nothing.", ["MIG-MSG-007"], [],
         to_transfer + [chunk0, ({"event": "disconnected", "at": T + 7}, s("disconnected", have=[[0, 1]]), []),
                        ({"event": "user-cancel", "at": T + 8}, s("failed", reason="user-cancelled", have=[[0, 1]]), [])])
rc.steps("clock-and-second-connect-change-nothing", "Before the transfer the clock changes nothing, and a second connected event is not a new session.",
         ["MIG-XFER-005"], [],
         to_meta[:2] + [({"event": "tick", "at": T + 40000}, s("awaitingPIN", attemptsLeft=5), []),
                        ({"event": "connected", "at": T + 40001}, s("awaitingPIN", attemptsLeft=5), [])])

# ------------------------------------------------------------------ sender machine
sd = File(machine="sender", description="The old phone's side of the transfer (Spec migration.md 5.3).",
          context={"random": "33" * 16, "configuration": {"chunkSize": 4096, "maxWindow": 16}})
files.append(sd)
META3 = dict(META, fileSize=12000, chunkCount=3, zipSize=11000)
SH = msg("Handshake", {"protocolVersion": 1, "role": "sender", "sessionId": SSESSION, "appVersion": "1.0.0", "schemaVersion": 1,
                       "device": {"name": "Old iPhone"}, "maxWindow": 16, "maxChunkSize": 4096})
RH2 = msg("Handshake", dict(RHS["payload"], maxWindow=2))


def ss(name, window, acked=None, inflight=None, **kw):
    d = {"name": name, "window": window}
    if acked is not None:
        d["acked"] = acked
        d["inFlight"] = inflight
    d.update(kw)
    return d


sack = lambda i, st="ok": msg("ChunkAck", {"backupId": BID, "index": i, "status": st})
to_start = [({"event": "connected", "at": T}, ss("listening", 1), []),
            ({"event": "message", "at": T + 1, "document": RH2}, ss("awaitingPINEntry", 2), [send(SH), {"action": "ask-pin", "attemptsLeft": 5}]),
            ({"event": "user-entered-pin", "at": T + 2, "pin": PIN}, ss("awaitingPINResult", 2), [send(msg("AuthPIN", {"pin": PIN}))]),
            ({"event": "message", "at": T + 3, "document": msg("AuthPIN", {"result": "accepted", "resumeToken": TOKEN})}, ss("preparing", 2),
             [send(msg("StartBackup", {})), {"action": "prepare-backup"}]),
            ({"event": "backup-ready", "at": T + 4, "meta": META3}, ss("metaSent", 2, [], []), [send(msg("BackupMeta", META3))]),
            ({"event": "message", "at": T + 5, "document": msg("StartTransfer", {"backupId": BID, "window": 4})}, ss("transferring", 2, [], [0, 1]),
             [{"action": "send-chunk", "index": 0}, {"action": "send-chunk", "index": 1}])]
sd.steps("window-of-two", "At most two chunks unacknowledged; a retransmit request sends the chunk again; Complete after the last ack.",
         ["MIG-XFER-001", "MIG-XFER-002"], [],
         to_start + [({"event": "message", "at": T + 6, "document": sack(0)}, ss("transferring", 2, [[0, 1]], [1, 2]), [{"action": "send-chunk", "index": 2}]),
                     ({"event": "message", "at": T + 7, "document": sack(1, "retransmit")}, ss("transferring", 2, [[0, 1]], [1, 2]), [{"action": "send-chunk", "index": 1}]),
                     ({"event": "message", "at": T + 8, "document": sack(1)}, ss("transferring", 2, [[0, 2]], [2]), []),
                     ({"event": "message", "at": T + 9, "document": sack(0, "retransmit")}, ss("transferring", 2, [[0, 2]], [2]), []),
                     ({"event": "message", "at": T + 10, "document": sack(2)}, ss("completing", 2, [[0, 3]], []),
                      [send(msg("Complete", {"backupId": BID, "chunkCount": 3, "envelopeSHA256": SHA}))]),
                     ({"event": "message", "at": T + 11, "document": msg("Complete", {"backupId": BID, "result": "verified"})}, ss("done", 2, [[0, 3]], []), [{"action": "close"}])],
         flags=["seed-example"])
sd.steps("ack-past-the-end", "A ChunkAck for a chunk the backup does not have ends the session at its index.", ["MIG-XFER-006"], ["MIG-XFER-006"],
         to_start + [({"event": "message", "at": T + 6, "document": sack(1000000000)}, ss("failed", 2, [], [0, 1], reason="protocol-error"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-006", "/payload/index")])])
sd.steps("resume-skips-acknowledged", "After a reconnect only what the receiver lacks is sent.", ["MIG-XFER-003"], [],
         to_start + [({"event": "message", "at": T + 6, "document": sack(0)}, ss("transferring", 2, [[0, 1]], [1, 2]), [{"action": "send-chunk", "index": 2}]),
                     ({"event": "disconnected", "at": T + 7}, ss("waitingReconnect", 2, [[0, 1]], []), []),
                     ({"event": "message", "at": T + 8, "document": RH2}, ss("waitingReconnect", 2, [[0, 1]], []), [send(SH)]),
                     ({"event": "message", "at": T + 9, "document": msg("ResumeTransfer", {"backupId": BID, "resumeToken": TOKEN, "have": [[0, 2]]})},
                      ss("transferring", 2, [[0, 2]], [2]), [{"action": "send-chunk", "index": 2}])])
sd.steps("resume-forgets-acknowledged",
         "A resume whose have leaves out a chunk the receiver acknowledged is refused at have: an acknowledged chunk is on disk, and none crosses the wire twice.",
         ["MIG-XFER-003"], ["MIG-XFER-003"],
         to_start + [({"event": "message", "at": T + 6, "document": sack(0)}, ss("transferring", 2, [[0, 1]], [1, 2]), [{"action": "send-chunk", "index": 2}]),
                     ({"event": "disconnected", "at": T + 7}, ss("waitingReconnect", 2, [[0, 1]], []), []),
                     ({"event": "message", "at": T + 8, "document": RH2}, ss("waitingReconnect", 2, [[0, 1]], []), [send(SH)]),
                     ({"event": "message", "at": T + 9, "document": msg("ResumeTransfer", {"backupId": BID, "resumeToken": TOKEN, "have": []})},
                      ss("failed", 2, [[0, 1]], [], reason="protocol-error"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-003", "/payload/have")])])
sd.steps("resume-have-past-the-end",
         "A resume whose have lists chunks past the backup's last is refused at that range: a receiver cannot hold what does not exist (a sender that clamped it would take the lie).",
         ["MIG-XFER-003"], ["MIG-XFER-003"],
         to_start + [({"event": "message", "at": T + 6, "document": sack(0)}, ss("transferring", 2, [[0, 1]], [1, 2]), [{"action": "send-chunk", "index": 2}]),
                     ({"event": "disconnected", "at": T + 7}, ss("waitingReconnect", 2, [[0, 1]], []), []),
                     ({"event": "message", "at": T + 8, "document": RH2}, ss("waitingReconnect", 2, [[0, 1]], []), [send(SH)]),
                     ({"event": "message", "at": T + 9, "document": msg("ResumeTransfer", {"backupId": BID, "resumeToken": TOKEN, "have": [[0, 1], [5, 1000000]]})},
                      ss("failed", 2, [[0, 1]], [], reason="protocol-error"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-003", "/payload/have/1")])])
sd.steps("resume-wrong-token", "A resume without the session's token is refused.", ["MIG-XFER-003"], ["MIG-XFER-003"],
         to_start + [({"event": "disconnected", "at": T + 7}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "message", "at": T + 8, "document": RH2}, ss("waitingReconnect", 2, [], []), [send(SH)]),
                     ({"event": "message", "at": T + 9, "document": msg("ResumeTransfer", {"backupId": BID, "resumeToken": "22" * 16, "have": [[0, 3]]})},
                      ss("failed", 2, [], [], reason="protocol-error"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-003", "/payload/resumeToken")])])
sd.steps("resume-other-backup", "A resume naming another backup is refused, at its backupId.", ["MIG-XFER-003"], ["MIG-XFER-003"],
         to_start + [({"event": "disconnected", "at": T + 7}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "message", "at": T + 8, "document": RH2}, ss("waitingReconnect", 2, [], []), [send(SH)]),
                     ({"event": "message", "at": T + 9, "document": msg("ResumeTransfer", {"backupId": "00000000-0000-4000-8000-000000000000", "resumeToken": TOKEN, "have": []})},
                      ss("failed", 2, [], [], reason="protocol-error"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-003", "/payload/backupId")])])
sd.steps("resume-without-handshake", "A reconnected receiver greets first: ResumeTransfer before its Handshake is out of order.",
         ["MIG-XFER-006", "MIG-MSG-002"], ["MIG-XFER-006"],
         to_start + [({"event": "disconnected", "at": T + 7}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "message", "at": T + 9, "document": msg("ResumeTransfer", {"backupId": BID, "resumeToken": TOKEN, "have": []})},
                      ss("failed", 2, [], [], reason="protocol-error"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-006")])])
sd.steps("greeted-connection-lost-before-resume", "A receiver that greeted and dropped before ResumeTransfer greets again on its next connection: "
         "a resume without that Handshake is out of order.", ["MIG-XFER-006", "MIG-XFER-003"], ["MIG-XFER-006"],
         to_start + [({"event": "disconnected", "at": T + 7}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "connected", "at": T + 8}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "message", "at": T + 9, "document": RH2}, ss("waitingReconnect", 2, [], []), [send(SH)]),
                     ({"event": "disconnected", "at": T + 10}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "connected", "at": T + 11}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "message", "at": T + 12, "document": msg("ResumeTransfer", {"backupId": BID, "resumeToken": TOKEN, "have": []})},
                      ss("failed", 2, [], [], reason="protocol-error"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-006")])])
sd.steps("receiver-never-returns", "No receiver back for more than 120 s after a disconnect ends the session (reason timeout); "
         "the wait counts from the last connection's end.", ["MIG-XFER-005"], [],
         to_start + [({"event": "disconnected", "at": T + 7}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "connected", "at": T + 60000}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "disconnected", "at": T + 61000}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "tick", "at": T + 181000}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "tick", "at": T + 181001}, ss("failed", 2, [], [], reason="timeout"), [])],
         flags=["boundary"])
sd.steps("greeted-but-never-resumes", "A receiver that greets after a disconnect and sends no ResumeTransfer within 10 s began a new session (it lost its journal) "
         "and waits for a PIN: the sender closes it unreported, and its wait for the session's receiver counts again from there.",
         ["MIG-XFER-003", "MIG-XFER-005"], [],
         to_start + [({"event": "disconnected", "at": T + 7}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "connected", "at": T + 8}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "message", "at": T + 9, "document": RH2}, ss("waitingReconnect", 2, [], []), [send(SH)]),
                     ({"event": "tick", "at": T + 9 + 10000}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "tick", "at": T + 9 + 10001}, ss("waitingReconnect", 2, [], []), [{"action": "close"}]),
                     ({"event": "tick", "at": T + 9 + 10001 + 120000}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "tick", "at": T + 9 + 10001 + 120001}, ss("failed", 2, [], [], reason="timeout"), [])],
         flags=["boundary"])
sd.steps("binary-frame-ends-session", "The sender receives control messages only: a binary frame ends the session.", ["MIG-WS-001"], ["MIG-WS-001"],
         to_start[:2] + [({"event": "binary", "at": T + 2, "frame": b64(frame(0, CHUNK0))}, ss("failed", 2, reason="protocol-error"),
                          [send(msg("CancelTransfer", {"reason": "protocol-error"})), {"action": "close"}, reject("MIG-WS-001")])])
sd.steps("too-many-retransmits", "A chunk refused again and again ends the transfer.", ["MIG-XFER-002"], ["MIG-XFER-002"],
         to_start + [({"event": "message", "at": T + 6, "document": sack(0, "retransmit")}, ss("transferring", 2, [], [0, 1]), [{"action": "send-chunk", "index": 0}]),
                     ({"event": "message", "at": T + 7, "document": sack(0, "retransmit")}, ss("failed", 2, [], [0, 1], reason="too-many-retransmits"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "too-many-retransmits"})), {"action": "close"}, reject("MIG-XFER-002")])],
         context={"configuration": {"chunkSize": 4096, "maxWindow": 16, "maxSendsPerChunk": 2}})
sd.steps("ack-timeout-resends", "A chunk unacknowledged for more than 15 s is sent again.", ["MIG-XFER-005"], [],
         to_start + [({"event": "tick", "at": T + 5 + 15000}, ss("transferring", 2, [], [0, 1]), []),
                     ({"event": "tick", "at": T + 5 + 15001}, ss("transferring", 2, [], [0, 1]), [{"action": "send-chunk", "index": 0}, {"action": "send-chunk", "index": 1}])],
         flags=["boundary"])

def wrong_pins(lefts, at=T + 3):
    """The receiver rejects a PIN once per entry in lefts (its attemptsLeft); the user enters it again after each."""
    steps, t = [], at
    for left in lefts:
        steps.append(({"event": "message", "at": t, "document": msg("AuthPIN", {"result": "rejected", "attemptsLeft": left})}, ss("awaitingPINEntry", 2),
                      [{"action": "ask-pin", "attemptsLeft": left}]))
        steps.append(({"event": "user-entered-pin", "at": t + 1, "pin": PIN}, ss("awaitingPINResult", 2), [send(msg("AuthPIN", {"pin": PIN}))]))
        t += 2
    return steps, t


four_wrong, after_four = wrong_pins([4, 3, 2, 1])
sd.steps("locked-by-receiver", "The receiver counts four wrong PINs down (4, 3, 2, 1) and locks the session at the fifth.", ["MIG-PIN-002"], [],
         to_start[:3] + four_wrong + [({"event": "message", "at": after_four, "document": msg("AuthPIN", {"result": "locked"})}, ss("locked", 2), [{"action": "close"}])])
sd.steps("locked-at-the-first-wrong-pin", "A receiver that locks at the first wrong PIN breaks the five attempts (the session ends; the user never had the four others).",
         ["MIG-PIN-002"], ["MIG-PIN-002"],
         to_start[:3] + [({"event": "message", "at": T + 3, "document": msg("AuthPIN", {"result": "locked"})}, ss("locked", 2),
                          [{"action": "close"}, reject("MIG-PIN-002", "/payload/result")])])
three_wrong, after_three = wrong_pins([4, 3, 2])
sd.steps("locked-at-the-fourth-wrong-pin", "Locked one wrong PIN early, after 4, 3, 2.", ["MIG-PIN-002"], ["MIG-PIN-002"],
         to_start[:3] + three_wrong + [({"event": "message", "at": after_three, "document": msg("AuthPIN", {"result": "locked"})}, ss("locked", 2),
                                        [{"action": "close"}, reject("MIG-PIN-002", "/payload/result")])], flags=["boundary"])
sd.steps("rejected-at-the-fifth-wrong-pin", "A receiver that answers the fifth wrong PIN \"rejected\" gives the guesser more than five: reported; the user is still asked.",
         ["MIG-PIN-002"], ["MIG-PIN-002"],
         to_start[:3] + four_wrong + [({"event": "message", "at": after_four, "document": msg("AuthPIN", {"result": "rejected", "attemptsLeft": 1})}, ss("awaitingPINEntry", 2),
                                       [{"action": "ask-pin", "attemptsLeft": 1}, reject("MIG-PIN-002", "/payload/result")])], flags=["boundary"])
sd.steps("attempts-left-not-counted-down", "attemptsLeft stays 4 after the second wrong PIN: the count the user sees is wrong (reported at /payload/attemptsLeft).",
         ["MIG-PIN-002"], ["MIG-PIN-002"],
         to_start[:3] + wrong_pins([4])[0] + [({"event": "message", "at": T + 5, "document": msg("AuthPIN", {"result": "rejected", "attemptsLeft": 4})}, ss("awaitingPINEntry", 2),
                                               [{"action": "ask-pin", "attemptsLeft": 4}, reject("MIG-PIN-002", "/payload/attemptsLeft")])])
sd.steps("package-chunks-over-receiver-maximum", "A package cut into chunks larger than the receiver's Handshake allowed (here 8192 > 4096) is never announced: "
         "the sender cancels with protocol-error and closes, reporting nothing against the receiver (MIG-META-001 is the sender's own duty).",
         ["MIG-META-001"], [],
         [({"event": "connected", "at": T}, ss("listening", 1), []),
          ({"event": "message", "at": T + 1, "document": msg("Handshake", dict(RH2["payload"], maxChunkSize=4096))}, ss("awaitingPINEntry", 2),
           [send(SH), {"action": "ask-pin", "attemptsLeft": 5}])] + to_start[2:4] +
         [({"event": "backup-ready", "at": T + 4, "meta": dict(META, chunkSize=8192, chunkCount=1)}, ss("failed", 2, reason="protocol-error"),
           [send(msg("CancelTransfer", {"reason": "protocol-error"})), {"action": "close"}])], flags=["boundary"])
sd.steps("out-of-order", "StartTransfer before BackupMeta breaks the order.", ["MIG-XFER-006"], ["MIG-XFER-006"],
         to_start[:4] + [({"event": "message", "at": T + 4, "document": msg("StartTransfer", {"backupId": BID, "window": 2})}, ss("failed", 2, reason="protocol-error"),
                          [send(msg("CancelTransfer", {"reason": "protocol-error"})), {"action": "close"}, reject("MIG-XFER-006")])])

sd.steps("idle-connection-closed", "A connection that sends no Handshake within 10 s is closed; the sender keeps listening and the real receiver gets in.",
         ["MIG-XFER-007"], ["MIG-XFER-007"],
         [({"event": "connected", "at": T}, ss("listening", 1), []),
          ({"event": "tick", "at": T + 10000}, ss("listening", 1), []),
          ({"event": "tick", "at": T + 10001}, ss("listening", 1), [{"action": "close"}, reject("MIG-XFER-007")]),
          ({"event": "disconnected", "at": T + 10002}, ss("listening", 1), []),
          ({"event": "connected", "at": T + 20000}, ss("listening", 1), []),
          ({"event": "message", "at": T + 20001, "document": RH2}, ss("awaitingPINEntry", 2), [send(SH), {"action": "ask-pin", "attemptsLeft": 5}]),
          ({"event": "tick", "at": T + 40000}, ss("awaitingPINEntry", 2), [])], flags=["boundary"])
sd.steps("disconnect-before-handshake", "A connection that closes before its Handshake was not the session's receiver: the sender keeps listening.",
         ["MIG-XFER-007"], [],
         [({"event": "connected", "at": T}, ss("listening", 1), []),
          ({"event": "disconnected", "at": T + 1}, ss("listening", 1), []),
          ({"event": "connected", "at": T + 2}, ss("listening", 1), []),
          ({"event": "message", "at": T + 3, "document": RH2}, ss("awaitingPINEntry", 2), [send(SH), {"action": "ask-pin", "attemptsLeft": 5}])])
sd.steps("receiver-wrong-password", "The receiver's password does not open the header: the sender ends with the same outcome, no chunk sent.",
         ["MIG-META-002"], [],
         to_start[:5] + [({"event": "message", "at": T + 5, "document": msg("CancelTransfer", {"backupId": BID, "reason": "wrong-password"})},
                          ss("failed", 2, [], [], reason="wrong-password"), [{"action": "close"}])])

# Rows of the sender's transition table (Spec migration.md 5.3) that the flows above do not take.
to_complete = to_start + [({"event": "message", "at": T + 6, "document": sack(0)}, ss("transferring", 2, [[0, 1]], [1, 2]), [{"action": "send-chunk", "index": 2}]),
                          ({"event": "message", "at": T + 7, "document": sack(1)}, ss("transferring", 2, [[0, 2]], [2]), []),
                          ({"event": "message", "at": T + 8, "document": sack(2)}, ss("completing", 2, [[0, 3]], []),
                           [send(msg("Complete", {"backupId": BID, "chunkCount": 3, "envelopeSHA256": SHA}))])]
sd.steps("wrong-pin-then-right", "A rejected PIN asks the user again with the attempts left; a second connected event changes nothing.",
         ["MIG-PIN-002", "MIG-MSG-003"], [],
         to_start[:3] + [({"event": "message", "at": T + 3, "document": msg("AuthPIN", {"result": "rejected", "attemptsLeft": 4})}, ss("awaitingPINEntry", 2),
                          [{"action": "ask-pin", "attemptsLeft": 4}]),
                         ({"event": "connected", "at": T + 4}, ss("awaitingPINEntry", 2), [])])
sd.steps("pause-and-resume", "Either side pauses and resumes; acknowledgements still count while paused; a disconnect while paused keeps the transfer for the resume.",
         ["MIG-MSG-005", "MIG-XFER-001", "MIG-XFER-003"], [],
         to_start + [({"event": "user-pause", "at": T + 6}, ss("paused", 2, [], [0, 1]), [send(msg("PauseTransfer", {"backupId": BID}))]),
                     ({"event": "message", "at": T + 7, "document": sack(0)}, ss("paused", 2, [[0, 1]], [1]), []),
                     ({"event": "user-resume", "at": T + 8}, ss("transferring", 2, [[0, 1]], [1, 2]),
                      [send(msg("ResumeTransfer", {"backupId": BID})), {"action": "send-chunk", "index": 2}]),
                     ({"event": "message", "at": T + 9, "document": msg("PauseTransfer", {"backupId": BID})}, ss("paused", 2, [[0, 1]], [1, 2]), []),
                     ({"event": "message", "at": T + 10, "document": msg("ResumeTransfer", {"backupId": BID})}, ss("transferring", 2, [[0, 1]], [1, 2]), []),
                     ({"event": "user-pause", "at": T + 11}, ss("paused", 2, [[0, 1]], [1, 2]), [send(msg("PauseTransfer", {"backupId": BID}))]),
                     ({"event": "disconnected", "at": T + 12}, ss("waitingReconnect", 2, [[0, 1]], []), [])])
sd.steps("disconnect-while-completing", "Late acks while completing change nothing; a disconnect after the last chunk keeps the session for the resume.",
         ["MIG-XFER-002", "MIG-XFER-003"], [],
         to_complete + [({"event": "message", "at": T + 9, "document": sack(1)}, ss("completing", 2, [[0, 3]], []), []),
                        ({"event": "message", "at": T + 10, "document": sack(2, "retransmit")}, ss("completing", 2, [[0, 3]], []), []),
                        ({"event": "disconnected", "at": T + 11}, ss("waitingReconnect", 2, [[0, 3]], []), [])])
sd.steps("retransmit-while-paused", "A chunk asked again while paused is sent again: the pause stops new chunks, not repairs.", ["MIG-XFER-002"], [],
         to_start + [({"event": "user-pause", "at": T + 6}, ss("paused", 2, [], [0, 1]), [send(msg("PauseTransfer", {"backupId": BID}))]),
                     ({"event": "message", "at": T + 7, "document": sack(1, "retransmit")}, ss("paused", 2, [], [0, 1]), [{"action": "send-chunk", "index": 1}])])
sd.steps("cancel-while-waiting", "A user's cancel while no receiver is connected ends the session and sends nothing: there is nobody to tell.",
         ["MIG-MSG-007"], [],
         to_start + [({"event": "disconnected", "at": T + 6}, ss("waitingReconnect", 2, [], []), []),
                     ({"event": "user-cancel", "at": T + 7}, ss("failed", 2, [], [], reason="user-cancelled"), []),
                     ({"event": "user-cancel", "at": T + 8}, ss("failed", 2, [], [], reason="user-cancelled"), [])])
sd.steps("complete-digest-mismatch", "The receiver's digest differs: the session fails without blaming the receiver, and later frames are not read.",
         ["MIG-XFER-004"], [],
         to_complete + [({"event": "message", "at": T + 9, "document": msg("Complete", {"backupId": BID, "result": "digest-mismatch"})},
                         ss("failed", 2, [[0, 3]], [], reason="digest-mismatch"), [{"action": "close"}]),
                        ({"event": "message", "at": T + 10, "document": sack(0)}, ss("failed", 2, [[0, 3]], [], reason="digest-mismatch"), [])])
sd.steps("done-ignores-late-acks", "After Complete verified, late frames are not read.", ["MIG-XFER-006"], [],
         to_complete + [({"event": "message", "at": T + 9, "document": msg("Complete", {"backupId": BID, "result": "verified"})}, ss("done", 2, [[0, 3]], []),
                         [{"action": "close"}]),
                        ({"event": "message", "at": T + 10, "document": sack(2)}, ss("done", 2, [[0, 3]], []), [])])
sd.steps("locked-reads-nothing-more", "A locked session reads nothing more.", ["MIG-PIN-002"], [],
         to_start[:3] + four_wrong + [({"event": "message", "at": after_four, "document": msg("AuthPIN", {"result": "locked"})}, ss("locked", 2), [{"action": "close"}]),
                                      ({"event": "message", "at": after_four + 1, "document": RH2}, ss("locked", 2), [])])
for slug, prefix, ended in (("awaiting-pin-entry", to_start[:2], ss("failed", 2, reason="disconnected")),
                            ("awaiting-pin-result", to_start[:3], ss("failed", 2, reason="disconnected")),
                            ("preparing", to_start[:4], ss("failed", 2, reason="disconnected")),
                            ("meta-sent", to_start[:5], ss("failed", 2, [], [], reason="disconnected"))):
    sd.steps("disconnected-" + slug, "Before the transfer a disconnect ends the session.", ["MIG-XFER-006"], [],
             prefix + [({"event": "disconnected", "at": T + 20}, ended, [])])
sd.steps("user-cancels", "The user cancels mid-transfer: the receiver is told why.", ["MIG-MSG-007"], [],
         to_start + [({"event": "user-cancel", "at": T + 6}, ss("failed", 2, [], [0, 1], reason="user-cancelled"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "user-cancelled"})), {"action": "close"}])])
sd.steps("store-changed", "A store file changed since the package was planned: the chunk is not sent, the receiver is told why, and the session ends.",
         ["MIG-MSG-007", "MIG-XFER-008"], [],
         to_start + [({"event": "store-changed", "at": T + 6}, ss("failed", 2, [], [0, 1], reason="store-changed"),
                      [send(msg("CancelTransfer", {"backupId": BID, "reason": "store-changed"})), {"action": "close"}]),
                     ({"event": "message", "at": T + 7, "document": sack(0)}, ss("failed", 2, [], [0, 1], reason="store-changed"), [])])
sd.steps("store-changed-while-preparing", "A store file changed during the pass before BackupMeta: nothing was announced, so the cancel names no backup.",
         ["MIG-MSG-007", "MIG-XFER-008"], [],
         to_start[:4] + [({"event": "store-changed", "at": T + 20}, ss("failed", 2, reason="store-changed"),
                          [send(msg("CancelTransfer", {"reason": "store-changed"})), {"action": "close"}])])
sd.steps("text-not-json", "A text frame that is not JSON ends the session; the violation names the JSON rule.", ["MIG-WS-001", "CORE-JSON-001"], ["CORE-JSON-001"],
         [({"event": "text", "at": T, "text": '{"type": "Handshake", "payload": '}, ss("failed", 1, reason="protocol-error"),
           [send(msg("CancelTransfer", {"reason": "protocol-error"})), {"action": "close"}, reject("CORE-JSON-001", "/payload")])])

# ------------------------------------------------------------------ PIN lockout across sessions
pl = File(machine="pin-lockout", description="How long a receiver waits before it shows a new PIN after locked sessions (Spec migration.md MIG-PIN-003).")
files.append(pl)
ended = lambda at, outcome: {"event": "session-ended", "at": at, "outcome": outcome}
wanted = lambda at: {"event": "session-wanted", "at": at}
lk = lambda n, nb: {"lockedInARow": n, "notBefore": nb}
wait = lambda until: {"action": "wait", "until": until, "rule": "MIG-PIN-003"}
START = {"action": "start-session"}
pl.steps("waits-double", "30 s after the first locked session, 60 s after the second; the right PIN resets the count.", ["MIG-PIN-003"], ["MIG-PIN-003"],
         [(wanted(T), lk(0, 0), [START]),
          (ended(T + 1000, "locked"), lk(1, T + 31000), []),
          (wanted(T + 30999), lk(1, T + 31000), [wait(T + 31000)]),
          (wanted(T + 31000), lk(1, T + 31000), [START]),
          (ended(T + 40000, "locked"), lk(2, T + 100000), []),
          (wanted(T + 40001), lk(2, T + 100000), [wait(T + 100000)]),
          (ended(T + 100000, "other"), lk(2, T + 100000), []),
          (wanted(T + 100000), lk(2, T + 100000), [START]),
          (ended(T + 200000, "pin-accepted"), lk(0, 0), []),
          (wanted(T + 200001), lk(0, 0), [START])], flags=["boundary"])
seq = []
at = T
for n in range(1, 10):
    waited = min(30000 * 2 ** (n - 1), 3600000)
    seq.append((ended(at, "locked"), lk(n, at + waited), []))
    seq.append((wanted(at + 1), lk(n, at + waited), [wait(at + waited)]))
    at += waited
pl.steps("wait-capped-at-an-hour", "The wait doubles up to one hour and stays there.", ["MIG-PIN-003"], ["MIG-PIN-003"], seq)
pl.steps("clear-stays-clear", "With no locked session behind it, a session that ended with the right PIN or before the PIN was settled changes nothing.",
         ["MIG-PIN-003"], [],
         [(ended(T, "pin-accepted"), lk(0, 0), []), (ended(T + 1, "other"), lk(0, 0), []), (wanted(T + 2), lk(0, 0), [START])])

# The sender and receiver keep time (Spec pairing.md 4 "Time", migration.md 5.3): every step
# states its deadline. These are the one member not typed here: they are what the docs-only
# Python machines (Conformance/testees/python, written from the Spec and holding to every other
# member of these vectors) compute, and DeadlineTests holds them to the reference's, step by step.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testees", "python"))
import msbk_transfer_machines  # noqa: E402

for fl in (rc, sd):
    for c in fl.cases:
        context = dict(fl.context)
        context.update(c.get("context", {}))
        trace = msbk_transfer_machines.run(fl.machine, context, [step["event"] for step in c["steps"]])
        for step, found in zip(c["steps"], trace):
            step["expect"]["deadline"] = found["deadline"]

total = 0
for fl in files:
    total += fl.write()
print(total, "cases")
