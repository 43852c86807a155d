"""Writes Conformance/examples/: one sample document per JSON document kind, each an accepting
vector's input, named <kind>.json (a colon written -, as in Vectors/) so that `conformance check` knows its kind from the file name.
They are what a newcomer runs first:

    swift run conformance check --now 1747300000000 --active-did did:cc:phone-1 Conformance/examples/*.json

so a case is taken only when its context is at most that clock and that active DID. Binary kinds
(envelope, package, backup-chunk) and kinds that need a model (mirrored-record, xcdatamodel) are
left out: their vectors show them."""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Conformance", "examples")
ALLOWED = {"now": 1747300000000, "activeDid": "did:cc:phone-1", "localPeerId": None}

written = 0
os.makedirs(OUT, exist_ok=True)
for path in sorted(glob.glob(os.path.join(ROOT, "Vectors", "*", "*.json"))):
    with open(path, encoding="utf-8") as f:
        vectors = json.load(f)
    kind = vectors.get("kind")
    if kind is None or kind == "auto":
        continue
    for case in vectors["cases"]:
        context = dict(vectors.get("context") or {}, **(case.get("context") or {}))
        if case.get("expected", {}).get("outcome") != "accept" or "input" not in case:
            continue
        if any(k not in ALLOWED or (v is not None and v != ALLOWED[k]) for k, v in context.items()):
            continue
        with open(os.path.join(OUT, kind.replace(":", "-") + ".json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(case["input"], ensure_ascii=False, indent=2) + "\n")
        written += 1
        break
print(written, "examples")
