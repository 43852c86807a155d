"""Holds the JSON Schemas and the vectors against each other (run by `swift test`).

1. Every vector file matches Spec/schemas/vector-file.schema.json, case ids are unique, and every
   rule a vector names is in Spec/catalog.json.
2. Every accepting pairing document vector with embedded input: the input and the expected
   canonical form both validate against the kind's schema.
3. Every rejecting pairing vector with embedded input whose violation a schema can express
   (missing member, wrong JSON type, pattern, enum, type value) is rejected by the schema too.
Exits 1 with one line per problem.
"""
import glob
import json
import os
import sys

import jsonschema
from referencing import Registry, Resource

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHEMAS = os.path.join(ROOT, "Spec", "schemas")
EXPRESSIBLE = {"CORE-TYPE-001", "CORE-TYPE-003", "PAIR-CODE-001", "PAIR-INFO-002", "PAIR-TYPE-001", "PAIR-SIG-003"}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    problems = []
    file_schema = load(os.path.join(SCHEMAS, "vector-file.schema.json"))
    jsonschema.Draft202012Validator.check_schema(file_schema)
    catalog = {r["id"] for r in load(os.path.join(ROOT, "Spec", "catalog.json"))["rules"]}
    paths = glob.glob(os.path.join(SCHEMAS, "pairing", "*.schema.json"))
    loaded = {os.path.basename(p)[: -len(".schema.json")]: load(p) for p in paths}
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in loaded.values())
    kind_schemas = {}
    for name, s in loaded.items():
        jsonschema.Draft202012Validator.check_schema(s)
        kind_schemas[name] = jsonschema.Draft202012Validator(s, registry=registry)
    seen, files, checked = set(), 0, 0
    for path in sorted(glob.glob(os.path.join(ROOT, "Vectors", "**", "*.json"), recursive=True)):
        files += 1
        rel = os.path.relpath(path, ROOT)
        doc = load(path)
        for e in jsonschema.Draft202012Validator(file_schema).iter_errors(doc):
            problems.append(f"{rel}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
        for case in doc.get("cases", []):
            cid = case.get("id")
            if cid in seen:
                problems.append(f"{rel}: duplicate case id {cid}")
            seen.add(cid)
            named = set(case.get("rules", [])) | set(case.get("triggers", []))
            named |= {v["rule"] for v in case.get("expected", {}).get("violations", [])}
            for rule in sorted(named - catalog):
                problems.append(f"{cid}: rule {rule} is not in Spec/catalog.json")
            validator = kind_schemas.get(doc.get("kind", "").replace(":", "-")) if doc.get("family") == "pairing" else None
            if validator is None or "input" not in case:
                continue
            expected = case["expected"]
            checked += 1
            if expected["outcome"] == "accept":
                for what, value in (("input", case["input"]), ("canonical", expected["canonical"])):
                    errors = list(validator.iter_errors(value))
                    if errors:
                        problems.append(f"{cid}: schema rejects the accepted {what}: {errors[0].message[:160]}")
            elif len(expected["violations"]) == 1 and expected["violations"][0]["rule"] in EXPRESSIBLE:
                if validator.is_valid(case["input"]):
                    v = expected["violations"][0]
                    problems.append(f"{cid}: schema accepts a document rejected on {v['rule']} at {v['path']}")
    for p in problems:
        print(p)
    print(f"check_schemas: {files} vector files, {len(seen)} cases, {checked} checked against kind schemas, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
