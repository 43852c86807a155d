"""Writes the fuzzers' seed corpora from the golden vectors: OUT/<target>/<n>. Document targets
get `kind\\n` + the document's bytes (the fuzz target reads the kind from the first line)."""
import base64
import glob
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors")
OUT = sys.argv[1]
corpora = {t: [] for t in ("json", "pairing", "records", "migration", "backup-chunk", "envelope", "zip", "swift-model", "session-log")}

for path in sorted(glob.glob(os.path.join(ROOT, "*", "*.json"))):
    family = os.path.basename(os.path.dirname(path))
    with open(path, encoding="utf-8") as fh:
        vectors = json.load(fh)
    kind = vectors.get("kind")
    for case in vectors.get("cases", []):
        if "input" in case:
            data = json.dumps(case["input"], ensure_ascii=False).encode()
        elif "inputText" in case:
            data = case["inputText"].encode()
        elif "inputBase64" in case:
            data = base64.b64decode(case["inputBase64"])
        elif "inputFile" in case:
            with open(os.path.join(os.path.dirname(path), case["inputFile"]), "rb") as fh:
                data = fh.read()
        else:
            continue
        if kind == "backup-chunk":
            corpora["backup-chunk"].append(data)
        elif kind == "envelope":
            corpora["envelope"].append(data)
        elif kind == "package":
            corpora["zip"].append(data)
        elif family in ("pairing", "records", "migration") and kind:
            corpora[family].append(kind.encode() + b"\n" + data)
        if kind not in ("backup-chunk", "envelope", "package"):
            corpora["json"].append(data)

# SwiftData sources: the seed's IdeaBox model in the forms the reader follows (macros, inverses,
# strings of every kind, comments, generics).
corpora["swift-model"] += [s.encode() for s in (
    """import SwiftData

@Model
final class Idea {
    @Attribute(.unique) var id: UUID = UUID()
    var title: String = ""
    var tags: Dictionary<String, [Int]> = [:]
    @Relationship(deleteRule: .cascade, inverse: \\SyncState.idea) var syncState: SyncState?
    init() {}
}
""",
    """@Model final class SyncState {
    #Unique<SyncState>([\\.ideaId, \\.deviceId])
    var ideaId: UUID?
    var deviceId: String? = "a \\(1 + (2 * 3)) b"
    var raw: String = #"raw \\#(1)"#
    var multi: String = \"\"\"
        lines \\(["a": [1]].count)
        \"\"\"
    /* a /* nested */ comment " */
    var idea: Idea?
    @Transient var cache: Int = 0
    var isLate: Bool { (ideaId == nil) && 1 < 2 }
}
""",
)]

# Session logs: a pairing (register, a pair-ack to an alias, the confirmation) and a migration's
# first frames, as the watch writes them.
def log(family, events):
    lines = [json.dumps({"sessionLog": 1, "family": family, "startedAt": 1000, "binaryCap": 4096,
                         "names": {"desktop-0c48f0b1": "desk"}, "judge": {"judgeRelay": True}})]
    lines += [json.dumps(e) for e in events]
    return ("\n".join(lines) + "\n").encode()

def text(t, conn, frm, value):
    return {"t": t, "conn": conn, "from": frm, "text": json.dumps(value)}

did = "did:key:z6MkH8xvsiwBxaNXcicKJ2knLjSorMf2Ddu2UwPt4XLg2myw"
corpora["session-log"].append(log("pairing", [
    {"t": 1001, "conn": 1, "open": {"peer": "127.0.0.1:1", "path": "/"}},
    text(1002, 1, "client", {"type": "register", "peerId": "desktop-0c48f0b1"}),
    text(1003, 1, "client", {"type": "register", "peerId": "pairing-code:052900"}),
    {"t": 1004, "conn": 2, "open": {"peer": "127.0.0.1:2", "path": "/"}},
    text(1005, 2, "client", {"type": "register", "peerId": did}),
    text(1006, 2, "client", {"type": "message", "to": "pairing-code:052900", "payload": {
        "type": "pair-ack", "pairingCode": "052900", "mobileDid": did, "timestamp": 1006,
        "deviceInfo": {"name": "phone", "platform": "android"}}}),
    text(1007, 1, "client", {"type": "message", "to": did, "payload": {"type": "pairing:confirmation", "pairingCode": "052900"}}),
    {"t": 1008, "conn": 2, "ping": True, "from": "client"},
    {"t": 1009, "conn": 2, "close": {"by": "server"}},
    {"t": 2000, "end": True},
]))
corpora["session-log"].append(log("migration", [
    {"t": 1001, "conn": 1, "open": {"peer": "127.0.0.1:1", "path": "/"}},
    text(1002, 1, "client", {"type": "Handshake", "payload": {"protocolVersion": 1, "maxWindow": 4}}),
    {"t": 1003, "conn": 1, "binary": {"length": 8, "head": "AAAAAAAAAAA=", "restSHA256": "0" * 64}, "from": "server"},
    {"t": 1004, "conn": 1, "close": {"by": "client", "code": 1000}},
]))

for target, seeds in corpora.items():
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    for i, data in enumerate(seeds):
        with open(os.path.join(folder, f"seed-{i:04d}"), "wb") as fh:
            fh.write(data)
    print(f"{target}: {len(seeds)} seeds")
