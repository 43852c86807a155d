"""Writes the fuzzers' seed corpora from the golden vectors: OUT/<target>/<n>. Document targets
get `kind\\n` + the document's bytes (the fuzz target reads the kind from the first line)."""
import base64
import glob
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Vectors")
OUT = sys.argv[1]
corpora = {t: [] for t in ("json", "pairing", "records", "migration", "backup-chunk", "envelope", "zip")}

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

for target, seeds in corpora.items():
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    for i, data in enumerate(seeds):
        with open(os.path.join(folder, f"seed-{i:04d}"), "wb") as fh:
            fh.write(data)
    print(f"{target}: {len(seeds)} seeds")
