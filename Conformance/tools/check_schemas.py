"""Holds the JSON Schemas of Spec/schemas/ and the vectors of Vectors/ against each other.
Run by `swift test` (PythonToolsTests); works from any checkout and any working directory.

Usage: check_schemas.py [--schemas DIR] [--vectors DIR] [--verbose]
  (defaults: Spec/schemas and Vectors beside this script's checkout)

0. Every schema is a valid 2020-12 schema. Each pairing kind schema has the $id of its file, and
   every property in it, however deep, carries `x-rules` naming rules of Spec/catalog.json.
a. Every Vectors/**/*.json matches vector-file.schema.json. Beyond the schema: case ids are unique
   and start with `<family>/<kind or machine>/` (`:` in a kind written `-`), every rule a case names
   is in Spec/catalog.json, and an `inputFile` exists and has the SHA-256 given in `inputSHA256`.
b. Every accepting document case of Vectors/pairing/ with an embedded `input`: the input and the
   expected canonical form both validate against the kind's schema.
c. Every rejecting document case of Vectors/pairing/ with an embedded `input` and a single expected
   violation whose rule the schema can state (CORE-TYPE-001, CORE-TYPE-003, PAIR-CODE-001,
   PAIR-INFO-002, PAIR-TYPE-001, and the rules in the schema's `x-rules-expressed`; for a violation
   inside a `message` payload, those of the payload's kind): the schema rejects the input.
d. For every vector case, the `validate` or `run-machine` request the runner sends and the answer
   a conforming testee gives match testee-protocol.schema.json (as do hello, bye, unsupported).

Patterns are evaluated as ECMA-262 says (JSON Schema 2020-12, section 6.4): `$` matches only at the
end of the string (Python's `re` also matches before a final line feed) and `\\d` is ASCII only.
Prints one line per problem and a summary; exits 1 when there are problems, 2 on bad usage.
"""
import argparse
import base64
import glob
import hashlib
import json
import os
import re
import sys
from functools import lru_cache

import jsonschema
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ALWAYS_EXPRESSIBLE = {"CORE-TYPE-001", "CORE-TYPE-003", "PAIR-CODE-001", "PAIR-INFO-002", "PAIR-TYPE-001"}
# The pairing family's registration (`conformance list families --json`) names its kinds with schemas.
with open(os.path.join(ROOT, "Conformance", "families.json"), encoding="utf-8") as _f:
    PAIRING_KINDS = next(f["schemaKinds"] for f in json.load(_f) if f["name"] == "pairing")
PAYLOAD_KINDS = {"desktop-pairing", "pair-ack", "device-pairing", "pairing:confirmation"}


# --- ECMA-262 patterns ------------------------------------------------------------------------

def ecma_to_python(pattern):
    """Rewrites the two places where Python's `re` and ECMA-262 differ for the schemas' patterns:
    `$` outside a class becomes `\\Z` (end of string only) and `\\d` becomes `[0-9]` (`0-9` in a class)."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(("0-9" if in_class else "[0-9]") if nxt == "d" else c + nxt)
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "$":
            c = r"\Z"
        out.append(c)
        i += 1
    return "".join(out)


@lru_cache(maxsize=None)
def compiled(pattern):
    return re.compile(ecma_to_python(pattern))


def ecma_pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not compiled(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": ecma_pattern})


# --- helpers ----------------------------------------------------------------------------------

def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def first_error(validator, value):
    e = best_match(validator.iter_errors(value))
    if e is None:
        return None
    while e.context:  # oneOf/anyOf: the deepest reason of the closest alternative
        e = best_match(e.context)
    return f"at /{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}"


def property_schemas(schema, pointer=""):
    """Every (pointer, schema) that describes a member: values of `properties`, recursively."""
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            if isinstance(sub, dict):
                yield f"{pointer}/properties/{name}", sub
        for key, sub in schema.items():
            if key in ("contentSchema",):
                continue
            if isinstance(sub, (dict, list)):
                yield from property_schemas(sub, f"{pointer}/{key}")
    elif isinstance(schema, list):
        for i, sub in enumerate(schema):
            yield from property_schemas(sub, f"{pointer}/{i}")


def document_bytes(case, folder):
    """The document as the runner sends it (segments shortened: only the request's shape matters here)."""
    if "input" in case:
        return json.dumps(case["input"], ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if "inputText" in case:
        return case["inputText"].encode("utf-8", "surrogatepass")
    if "inputBase64" in case:
        return base64.b64decode(case["inputBase64"])
    if "inputSegments" in case:
        return "".join(s["text"] * min(s.get("repeat", 1), 2) for s in case["inputSegments"]).encode("utf-8", "surrogatepass")
    path = os.path.join(folder, case["inputFile"])
    with open(path, "rb") as f:
        return f.read()


def testee_lines(doc, case, folder):
    """The request the runner sends for `case` and the answer a conforming testee returns."""
    context = dict(doc.get("context", {}), **case.get("context", {}))
    base = {"case": case["id"], "family": doc["family"]}
    if "machine" in doc:
        request = dict(base, op="run-machine", machine=doc["machine"], context=context,
                       events=[s["event"] for s in case["steps"]])
        answer = {"case": case["id"], "outcome": "trace", "steps": [s["expect"] for s in case["steps"]]}
        return request, answer
    request = dict(base, op="validate", kind=doc["kind"], context=context,
                   document=base64.b64encode(document_bytes(case, folder)).decode("ascii"))
    expected = case["expected"]
    if expected["outcome"] == "accept":
        answer = {"case": case["id"], "outcome": "accept", "canonical": expected["canonical"]}
    else:
        answer = {"case": case["id"], "outcome": "reject",
                  "violations": [dict(v, expected="as the Spec says", found="as the vector says") for v in expected["violations"]]}
    return request, answer


# --- the checks -------------------------------------------------------------------------------

def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--schemas", default=os.path.join(ROOT, "Spec", "schemas"))
    parser.add_argument("--vectors", default=os.path.join(ROOT, "Vectors"))
    parser.add_argument("--catalog", default=os.path.join(ROOT, "Spec", "catalog.json"))
    parser.add_argument("--verbose", action="store_true", help="also list what the schemas cannot see")
    args = parser.parse_args(argv)

    problems, notes = [], []
    catalog = {r["id"] for r in load(args.catalog)["rules"]}

    # 0. the schemas themselves
    file_schema = load(os.path.join(args.schemas, "vector-file.schema.json"))
    testee_schema = load(os.path.join(args.schemas, "testee-protocol.schema.json"))
    kind_docs = {}
    for path in sorted(glob.glob(os.path.join(args.schemas, "pairing", "*.schema.json"))):
        s = load(path)
        kind_docs[s.get("x-kind", os.path.basename(path)[: -len(".schema.json")])] = (os.path.basename(path), s)
    for name, s in [("vector-file.schema.json", file_schema), ("testee-protocol.schema.json", testee_schema)] + list(kind_docs.values()):
        try:
            Validator.check_schema(s)
        except jsonschema.SchemaError as e:
            problems.append(f"{name}: not a valid 2020-12 schema: {e.message[:200]}")
    for kind in PAIRING_KINDS:
        if kind not in kind_docs:
            problems.append(f"Spec/schemas/pairing: no schema for kind {kind}")
    for kind, (file, s) in kind_docs.items():
        if s.get("$id") != "https://devicedata.example/spec/schemas/pairing/" + file:
            problems.append(f"{file}: $id is {s.get('$id')}")
        for rule in s.get("x-rules", []) + s.get("x-rules-expressed", []):
            if rule not in catalog:
                problems.append(f"{file}: rule {rule} is not in Spec/catalog.json")
        for pointer, sub in property_schemas(s):
            if not sub.get("x-rules") and not re.search(r"/(if|then|else|not)/", pointer):
                problems.append(f"{file}#{pointer}: property without x-rules")
            for rule in sub.get("x-rules", []):
                if rule not in catalog:
                    problems.append(f"{file}#{pointer}: rule {rule} is not in Spec/catalog.json")
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for _, s in kind_docs.values())
    kinds = {k: Validator(s, registry=registry) for k, (_, s) in kind_docs.items()}
    expressed = {k: ALWAYS_EXPRESSIBLE | set(s.get("x-rules-expressed", [])) for k, (_, s) in kind_docs.items()}
    files_validator = Validator(file_schema)
    testee_validator = Validator(testee_schema)

    for line in ({"op": "hello", "protocol": 1}, {"op": "bye"},
                 {"protocol": 1, "implementation": "check_schemas", "families": ["pairing"]},
                 {"case": "pairing/register/x", "outcome": "unsupported", "reason": "kind not implemented"}):
        error = first_error(testee_validator, line)
        if error:
            problems.append(f"testee-protocol.schema.json rejects {json.dumps(line)}: {error}")

    # a-d. the vector files
    seen, files, accepted, rejected, lines = set(), 0, 0, 0, 4
    unseen = {}
    for path in sorted(glob.glob(os.path.join(args.vectors, "**", "*.json"), recursive=True)):
        files += 1
        rel = os.path.relpath(path, os.path.dirname(args.vectors))
        folder = os.path.dirname(path)
        try:
            doc = load(path)
        except (OSError, ValueError) as e:
            problems.append(f"{rel}: not JSON: {e}")
            continue
        error = first_error(files_validator, doc)
        if error:
            problems.append(f"{rel}: does not match vector-file.schema.json {error}")
            continue
        name = doc.get("kind", doc.get("machine", ""))
        prefix = f"{doc['family']}/{name.replace(':', '-')}/"
        kind = doc.get("kind") if doc["family"] == "pairing" else None
        if kind is not None and kind not in kinds:
            problems.append(f"{rel}: no schema for pairing kind {kind}")
        for case in doc["cases"]:
            cid = case["id"]
            if cid in seen:
                problems.append(f"{rel}: duplicate case id {cid}")
            seen.add(cid)
            if not cid.startswith(prefix):
                problems.append(f"{rel}: case id {cid} does not start with {prefix}")
            named = set(case.get("rules", [])) | set(case.get("triggers", []))
            named |= {v["rule"] for v in case.get("expected", {}).get("violations", [])}
            for rule in sorted(named - catalog):
                problems.append(f"{cid}: rule {rule} is not in Spec/catalog.json")
            if "inputFile" in case:
                try:
                    with open(os.path.join(folder, case["inputFile"]), "rb") as f:
                        digest = hashlib.sha256(f.read()).hexdigest()
                    if digest != case["inputSHA256"]:
                        problems.append(f"{cid}: {case['inputFile']} has SHA-256 {digest}, not {case['inputSHA256']}")
                except OSError as e:
                    problems.append(f"{cid}: inputFile: {e}")
                    continue
            # d. the testee protocol lines for this case
            for what, line in zip(("request", "answer"), testee_lines(doc, case, folder)):
                lines += 1
                error = first_error(testee_validator, line)
                if error:
                    problems.append(f"{cid}: the {what} line does not match testee-protocol.schema.json {error}")
            # b, c. the kind's schema
            if kind not in kinds or "input" not in case:
                continue
            validator, expected = kinds[kind], case["expected"]
            if expected["outcome"] == "accept":
                accepted += 1
                for what, value in (("input", case["input"]), ("canonical form", expected["canonical"])):
                    error = first_error(validator, value)
                    if error:
                        problems.append(f"{cid}: {kind_docs[kind][0]} rejects the accepted {what} {error}")
                continue
            if len(expected["violations"]) != 1:
                continue
            v = expected["violations"][0]
            stated = expressed[kind]
            payload = case["input"].get("payload") if isinstance(case["input"], dict) else None
            if kind == "message" and v["path"].startswith("/payload/") and isinstance(payload, dict) \
                    and payload.get("type") in PAYLOAD_KINDS and payload["type"] in expressed:
                stated = expressed[payload["type"]]
            if v["rule"] in stated:
                rejected += 1
                if validator.is_valid(case["input"]):
                    problems.append(f"{cid}: {kind_docs[kind][0]} accepts a document rejected on {v['rule']} at {v['path']}")
            elif validator.is_valid(case["input"]):
                unseen.setdefault(v["rule"], []).append(cid)

    if args.verbose:
        for rule, ids in sorted(unseen.items()):
            notes.append(f"note: the schemas accept {len(ids)} document(s) rejected on {rule} (not stated in a schema), e.g. {ids[0]}")
    for line in notes + problems:
        print(line)
    print(f"check_schemas: {files} vector files, {len(seen)} cases, {accepted + rejected} checked against kind schemas "
          f"({accepted} accepting, {rejected} rejecting), {lines} testee protocol lines, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
