"""Holds the JSON Schemas of Spec/schemas/ and the vectors of Vectors/ against each other.
Run by `swift test` (PythonToolsTests); works from any checkout and any working directory.

Usage: check_schemas.py [--schemas DIR] [--vectors DIR] [--verbose]
  (defaults: Spec/schemas and Vectors beside this script's checkout)

The families with kind schemas are pairing (Spec/schemas/pairing/) and migration
(Spec/schemas/migration/); a family's kinds with a schema are its `schemaKinds` in
Conformance/families.json.
A schema may also describe a part of a kind: pairing's payload kinds inside `message`, and one
schema per migration control message (`Handshake`, `AuthPIN`, ...) that `control-message` refers to.

0. Every schema is a valid 2020-12 schema. Each kind schema has the $id of its file, every property
   in it, however deep, carries `x-rules` naming rules of Spec/catalog.json that are among the
   kind's own `x-rules`, and each rule of `x-rules-expressed-at` is one the kind partly expresses.
a. Every Vectors/**/*.json matches vector-file.schema.json. Beyond the schema: case ids are unique
   and start with `<family>/<kind or machine>/` (`:` in a kind written `-`), every rule a case names
   is in Spec/catalog.json, and an `inputFile` exists and has the SHA-256 given in `inputSHA256`.
b. Every accepting document case of a kind with a schema, with an embedded `input`: the input and
   (unless the kind's canonical form is a summary) the expected canonical form both validate
   against the kind's schema.
c. Every rejecting document case of a kind with a schema, with an embedded `input`, whose expected
   violation the schema states is rejected by it. A violation is stated when its rule is
   CORE-TYPE-001, CORE-TYPE-003, PAIR-CODE-001, PAIR-INFO-002, PAIR-TYPE-001 or in the schema's
   `x-rules-expressed`, or when its rule is partly expressed and its path is one of that rule's
   `x-rules-expressed-at` pointers (`*` any one segment). The schema is the kind's, or the part's
   when the case's input names one: a pairing `message` violated inside its `payload` uses the
   payload kind's; a migration `control-message` uses its `type`'s. Cases with one violation are
   checked; in a family whose documents report every violation (`firstViolationOnly` false), so
   are cases with several, when at least one of them is stated.
d. For every vector case, the `validate` or `run-machine` request the runner sends and the answer
   a conforming testee gives match testee-protocol.schema.json (as do hello, bye, unsupported).
e. Every control message in the migration `sender` and `receiver` machine vectors validates against
   control-message.schema.json: the documents of `message` events (unless the step rejects the
   message on a rule its schema states, when the schema must reject it too) and the messages of
   `send` actions.

Patterns are evaluated as ECMA-262 says (JSON Schema 2020-12, section 6.4): `$` matches only at the
end of the string (Python's `re` also matches before a final line feed) and `\\d` is ASCII only.
Prints one line per problem and a summary; exits 1 when there are problems, 2 on bad usage.
With --verbose, also notes the rejecting cases the schemas cannot see.
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
SCHEMA_BASE = "https://devicedata.example/spec/schemas/"
# The families' registrations (`conformance list families --json`) name their kinds with schemas.
with open(os.path.join(ROOT, "Conformance", "families.json"), encoding="utf-8") as _f:
    FAMILIES = {f["name"]: f for f in json.load(_f)}
SCHEMA_KINDS = {name: FAMILIES[name]["schemaKinds"] for name in ("pairing", "migration")}
# Families where every document kind of the vectors must have a schema.
EVERY_KIND_HAS_A_SCHEMA = {"pairing"}
# The pairing kinds a `message` carries as its payload: those its schema refers to.
with open(os.path.join(ROOT, "Spec", "schemas", "pairing", "message.schema.json"), encoding="utf-8") as _f:
    PAYLOAD_KINDS = {part["if"]["properties"]["type"]["const"]
                     for part in json.load(_f)["properties"]["payload"]["allOf"] if "$ref" in part.get("then", {})}
# The migration control messages, each with its own schema that control-message refers to.
CONTROL_MESSAGE_TYPES = ["Handshake", "AuthPIN", "StartBackup", "BackupMeta", "StartTransfer", "PauseTransfer",
                         "ResumeTransfer", "CancelTransfer", "ChunkAck", "Complete"]
# Document rules a machine step may reject a control message on (anything else is the session's rule).
DOCUMENT_RULE = re.compile(r"^(CORE-|MIG-MSG-|MIG-ID-001$)")


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


def pointer_matches(pattern, path):
    """A JSON Pointer against an `x-rules-expressed-at` pointer, where `*` stands for any one segment."""
    want, got = pattern.split("/"), path.split("/")
    return len(want) == len(got) and all(w in ("*", g) for w, g in zip(want, got))


class KindSchema:
    """A kind's schema (or a part's: a pairing payload, a migration control message) and what it states."""

    def __init__(self, family, file, schema, registry):
        self.family, self.file, self.schema = family, file, schema
        self.validator = Validator(schema, registry=registry)
        self.expressed = ALWAYS_EXPRESSIBLE | set(schema.get("x-rules-expressed", []))
        self.partly = set(schema.get("x-rules-partly-expressed", {}))
        self.expressed_at = schema.get("x-rules-expressed-at", {})

    def states(self, violation):
        """The schema rejects every document broken on this rule at this path."""
        rule, path = violation["rule"], violation["path"]
        return rule in self.expressed or any(pointer_matches(p, path) for p in self.expressed_at.get(rule, []))


def part_for(family, kind, document, violations, schemas):
    """The schema that states a case's violations: a part's when the input names one (see c)."""
    if not isinstance(document, dict):
        return None
    if family == "pairing" and kind == "message":
        payload = document.get("payload")
        if isinstance(payload, dict) and payload.get("type") in PAYLOAD_KINDS \
                and all(v["path"].startswith("/payload/") for v in violations):
            return schemas.get(("pairing", payload["type"]))
    if family == "migration" and kind == "control-message" and document.get("type") in CONTROL_MESSAGE_TYPES:
        return schemas.get(("migration", document["type"]))
    return None


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
    kind_docs = {}  # (family, kind or part) -> (file, schema)
    for family in SCHEMA_KINDS:
        for path in sorted(glob.glob(os.path.join(args.schemas, family, "*.schema.json"))):
            s = load(path)
            kind_docs[(family, s.get("x-kind", os.path.basename(path)[: -len(".schema.json")]))] = (os.path.basename(path), s)
    for name, s in [("vector-file.schema.json", file_schema), ("testee-protocol.schema.json", testee_schema)] + list(kind_docs.values()):
        try:
            Validator.check_schema(s)
        except jsonschema.SchemaError as e:
            problems.append(f"{name}: not a valid 2020-12 schema: {e.message[:200]}")
    for family, names in SCHEMA_KINDS.items():
        for kind in names:
            if (family, kind) not in kind_docs:
                problems.append(f"Spec/schemas/{family}: no schema for kind {kind}")
    for kind in CONTROL_MESSAGE_TYPES:
        if ("migration", kind) not in kind_docs:
            problems.append(f"Spec/schemas/migration: no schema for the control message {kind}")
    for (family, kind), (file, s) in kind_docs.items():
        if s.get("$id") != f"{SCHEMA_BASE}{family}/{file}":
            problems.append(f"{family}/{file}: $id is {s.get('$id')}")
        own = set(s.get("x-rules", []))
        for rule in s.get("x-rules", []) + s.get("x-rules-expressed", []):
            if rule not in catalog:
                problems.append(f"{family}/{file}: rule {rule} is not in Spec/catalog.json")
        for rule in s.get("x-rules-expressed-at", {}):
            if rule not in s.get("x-rules-partly-expressed", {}):
                problems.append(f"{family}/{file}: x-rules-expressed-at names {rule}, which it does not partly express")
        for pointer, sub in property_schemas(s):
            if not sub.get("x-rules") and not re.search(r"/(if|then|else|not)/", pointer):
                problems.append(f"{family}/{file}#{pointer}: property without x-rules")
            for rule in sub.get("x-rules", []):
                if rule not in catalog:
                    problems.append(f"{family}/{file}#{pointer}: rule {rule} is not in Spec/catalog.json")
                elif rule not in own:
                    problems.append(f"{family}/{file}#{pointer}: rule {rule} is not among the kind's x-rules")
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for _, s in kind_docs.values())
    schemas = {key: KindSchema(key[0], file, s, registry) for key, (file, s) in kind_docs.items()}
    files_validator = Validator(file_schema)
    testee_validator = Validator(testee_schema)

    for line in ({"op": "hello", "protocol": 1}, {"op": "bye"},
                 {"protocol": 1, "implementation": "check_schemas", "families": ["pairing"]},
                 {"case": "pairing/register/x", "outcome": "unsupported", "reason": "kind not implemented"}):
        error = first_error(testee_validator, line)
        if error:
            problems.append(f"testee-protocol.schema.json rejects {json.dumps(line)}: {error}")

    # a-e. the vector files
    seen, files, lines = set(), 0, 4
    counts = {family: {"accepting": 0, "rejecting": 0, "several": 0} for family in SCHEMA_KINDS}
    machine_messages = 0
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
        family = doc["family"]
        name = doc.get("kind", doc.get("machine", ""))
        prefix = f"{family}/{name.replace(':', '-')}/"
        kind = doc.get("kind") if family in SCHEMA_KINDS else None
        if kind is not None and kind not in SCHEMA_KINDS[family]:
            if family in EVERY_KIND_HAS_A_SCHEMA:
                problems.append(f"{rel}: no schema for {family} kind {kind}")
            kind = None
        summary = kind in FAMILIES.get(family, {}).get("summaryKinds", [])
        first_only = FAMILIES.get(family, {}).get("firstViolationOnly", True)
        messages = ("control-message" if family == "migration" and doc.get("machine") in ("sender", "receiver")
                    and ("migration", "control-message") in schemas else None)
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
            # e. the control messages of a migration machine case
            if messages:
                kind_schema = schemas[("migration", messages)]
                for n, step in enumerate(case.get("steps", [])):
                    found = []
                    event = step.get("event", {})
                    if event.get("event") == "message" and "document" in event:
                        rejected_on = [a for a in step.get("expect", {}).get("actions", [])
                                       if a.get("action") == "reject" and DOCUMENT_RULE.match(a.get("rule", ""))]
                        found.append(("event document", event["document"], rejected_on))
                    for a in step.get("expect", {}).get("actions", []):
                        if a.get("action") == "send" and "message" in a:
                            found.append(("sent message", a["message"], []))
                    for what, value, rejected_on in found:
                        machine_messages += 1
                        part = part_for("migration", messages, value, rejected_on, schemas) or kind_schema
                        if any(part.states(v) for v in rejected_on):
                            if kind_schema.validator.is_valid(value):
                                problems.append(f"{cid} step {n}: {kind_schema.file} accepts the {what} the step rejects")
                        elif not rejected_on:
                            error = first_error(kind_schema.validator, value)
                            if error:
                                problems.append(f"{cid} step {n}: {kind_schema.file} rejects the {what} {error}")
            # b, c. the kind's schema
            if kind is None or (family, kind) not in schemas or "input" not in case:
                continue
            kind_schema, expected = schemas[(family, kind)], case["expected"]
            validator = kind_schema.validator
            if expected["outcome"] == "accept":
                counts[family]["accepting"] += 1
                values = [("input", case["input"])] + ([] if summary else [("canonical form", expected["canonical"])])
                for what, value in values:
                    error = first_error(validator, value)
                    if error:
                        problems.append(f"{cid}: {kind_schema.file} rejects the accepted {what} {error}")
                continue
            violations = expected["violations"]
            if len(violations) != 1 and first_only:
                continue
            stating = part_for(family, kind, case["input"], violations, schemas) or kind_schema
            stated = [v for v in violations if stating.states(v)]
            if stated:
                counts[family]["rejecting" if len(violations) == 1 else "several"] += 1
                if validator.is_valid(case["input"]):
                    v = stated[0]
                    problems.append(f"{cid}: {kind_schema.file} accepts a document rejected on {v['rule']} at {v['path']}")
            elif validator.is_valid(case["input"]):
                for v in violations:
                    unseen.setdefault(v["rule"], []).append(cid)

    if args.verbose:
        for rule, ids in sorted(unseen.items()):
            notes.append(f"note: the schemas accept {len(ids)} document(s) rejected on {rule} (not stated in a schema), e.g. {ids[0]}")
    for line in notes + problems:
        print(line)
    accepted = sum(c["accepting"] for c in counts.values())
    rejected = sum(c["rejecting"] + c["several"] for c in counts.values())
    per_family = "; ".join(f"{family} {c['accepting']} accepting, {c['rejecting']} rejecting"
                           + (f" + {c['several']} with several violations" if c["several"] else "")
                           for family, c in counts.items())
    print(f"check_schemas: {files} vector files, {len(seen)} cases, {accepted + rejected} checked against kind schemas "
          f"({accepted} accepting, {rejected} rejecting: {per_family}), {machine_messages} control messages of machine "
          f"vectors, {lines} testee protocol lines, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
