"""Checks the structure of the vector files (Vectors/README.md), standard library only.

    python3 Conformance/tools/lint_vectors.py            # every Vectors/**/*.json
    python3 Conformance/tools/lint_vectors.py FILE...    # only these files (ids are still
                                                         # checked for uniqueness against all files)

Checked: the file members (family, kind xor machine, description, context, cases), the file's
place (Vectors/<family>/<kind or machine, ':' written '-'>.json), no duplicate member names and
no NaN/Infinity anywhere in a vector file (json.load would silently keep the last duplicate of an
embedded input), and for every case: the members a case may have, an id
"<family>/<kind or machine>/<slug>" (slug a-z 0-9 -) that is unique across all files, a one-line
comment, flags from the known set, rule ids that exist in Spec/catalog.json; document cases:
exactly one input form (input, inputText, inputBase64, inputSegments, inputFile + inputSHA256)
with a well-formed value, and an expected member that is either {outcome: accept, canonical} or
{outcome: reject, violations: [{path, rule}, ...]} with RFC 6901 paths (exactly one violation
for the pairing family, whose checks stop at the first failure) and every violated rule listed
in the case's rules; machine cases: triggers and steps of {event, expect} (a trigger not also
listed in rules is only a warning). Exits 1 when there is a problem (warnings do not count),
2 on usage errors; prints one line per problem and warning, then a summary.
"""
import base64
import binascii
import glob
import hashlib
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
VECTORS = os.path.join(ROOT, "Vectors")
CATALOG = os.path.join(ROOT, "Spec", "catalog.json")

FLAGS = {"interop-trap", "boundary", "seed-example", "test-only", "real-implementation"}
INPUTS = ("input", "inputText", "inputBase64", "inputSegments", "inputFile")
COMMON_MEMBERS = {"id", "comment", "flags", "rules", "context"}
DOCUMENT_MEMBERS = COMMON_MEMBERS | {"input", "inputText", "inputBase64", "inputSegments", "inputFile", "inputSHA256", "expected"}
MACHINE_MEMBERS = COMMON_MEMBERS | {"triggers", "steps"}
FILE_MEMBERS = {"family", "kind", "machine", "description", "context", "cases"}
# The families' registrations (`conformance list families --json`): those whose documents
# report only their first failing check (core.md "Order of checks").
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "families.json"), encoding="utf-8") as _f:
    ONE_VIOLATION_FAMILIES = {f["name"] for f in json.load(_f) if f["firstViolationOnly"]}

SLUG = re.compile(r"^[a-z0-9-]+$")
FAMILY = re.compile(r"^[a-z]+$")
RULE = re.compile(r"^[A-Z]+-[A-Z]+-[0-9]{3}$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")
POINTER = re.compile(r"^(/([^~]|~[01])*)*$")
MAX_REPEAT = 16777216


class DuplicateName(ValueError):
    pass


def _pairs(pairs):
    seen = {}
    for name, value in pairs:
        if name in seen:
            raise DuplicateName(f"duplicate member name {name!r}")
        seen[name] = value
    return seen


def _constant(name):
    raise ValueError(f"{name} is not JSON")


def load_strict(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        raise ValueError("starts with a UTF-8 byte order mark")
    return json.loads(raw.decode("utf-8"), object_pairs_hook=_pairs, parse_constant=_constant)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Linter:
    def __init__(self, catalog):
        self.catalog = catalog
        self.problems = []
        self.warnings = []
        self.ids = {}  # id -> file
        self.cases = 0

    def report(self, where, message):
        self.problems.append(f"{where}: {message}")

    def warn(self, where, message):
        self.warnings.append(f"warning: {where}: {message}")

    # ------------------------------------------------------------------ files
    def lint_file(self, path, report=True):
        rel = os.path.relpath(path, ROOT)
        problem = self.report if report else (lambda where, message: None)
        try:
            doc = load_strict(path)
        except (ValueError, UnicodeDecodeError) as e:
            problem(rel, f"not a valid vector file: {e}")
            return
        if not isinstance(doc, dict):
            problem(rel, "the file must be a JSON object")
            return
        for name in sorted(set(doc) - FILE_MEMBERS):
            problem(rel, f"unknown file member {name!r}")
        family = doc.get("family")
        if not isinstance(family, str) or not FAMILY.match(family):
            problem(rel, "family must be a string of a-z")
            family = None
        has_kind, has_machine = "kind" in doc, "machine" in doc
        if has_kind == has_machine:
            problem(rel, "exactly one of kind and machine is required")
            return
        what = "kind" if has_kind else "machine"
        name = doc[what]
        if not isinstance(name, str) or not name:
            problem(rel, f"{what} must be a non-empty string")
            return
        file_slug = name.replace(":", "-")
        if not isinstance(doc.get("description"), str) or not doc["description"].strip():
            problem(rel, "description must be a non-empty string")
        if "context" in doc and not isinstance(doc["context"], dict):
            problem(rel, "context must be an object")
        parts = os.path.relpath(path, VECTORS).split(os.sep)
        if family is not None and parts[0] != family:
            problem(rel, f"a {family} file belongs in Vectors/{family}/")
        if os.path.basename(path) != file_slug + ".json":
            problem(rel, f"the file of {what} {name!r} is named {file_slug}.json")
        cases = doc.get("cases")
        if not isinstance(cases, list) or not cases:
            problem(rel, "cases must be a non-empty array")
            return
        prefix = f"{family}/{file_slug}/"
        for index, case in enumerate(cases):
            where = f"{rel} case {index}"
            if not isinstance(case, dict):
                problem(where, "a case must be an object")
                continue
            cid = case.get("id")
            if isinstance(cid, str):
                where = f"{rel} {cid}"
                if cid in self.ids and self.ids[cid] != rel:
                    problem(where, f"id also used in {self.ids[cid]}")
                elif cid in self.ids and report:
                    problem(where, "id used twice in this file")
                self.ids.setdefault(cid, rel)
            if not report:
                continue
            self.cases += 1
            self.lint_common(where, case, prefix)
            if has_kind:
                self.lint_document_case(where, case, family, os.path.dirname(path))
            else:
                self.lint_machine_case(where, case)

    # ------------------------------------------------------------------ cases
    def lint_rules(self, where, member, rules):
        if not isinstance(rules, list):
            self.report(where, f"{member} must be an array of rule ids")
            return []
        good = []
        for rule in rules:
            if not isinstance(rule, str) or not RULE.match(rule):
                self.report(where, f"{member}: {rule!r} is not a rule id")
            elif rule not in self.catalog:
                self.report(where, f"{member}: rule {rule} is not in Spec/catalog.json")
            else:
                good.append(rule)
        if len(set(rules if all(isinstance(r, str) for r in rules) else [])) != len(rules):
            self.report(where, f"{member} lists a rule twice")
        return good

    def lint_common(self, where, case, prefix):
        cid = case.get("id")
        if not isinstance(cid, str):
            self.report(where, "id is required and must be a string")
        elif not cid.startswith(prefix):
            self.report(where, f"id must start with {prefix!r}")
        elif not SLUG.match(cid[len(prefix):]):
            self.report(where, f"slug {cid[len(prefix):]!r} must be one or more of a-z 0-9 -")
        comment = case.get("comment")
        if not isinstance(comment, str) or not comment.strip():
            self.report(where, "comment is required: one sentence")
        elif "\n" in comment:
            self.report(where, "comment must be one line")
        if "flags" in case:
            flags = case["flags"]
            if not isinstance(flags, list) or any(not isinstance(f, str) for f in flags):
                self.report(where, "flags must be an array of strings")
            else:
                for f in flags:
                    if f not in FLAGS:
                        self.report(where, f"unknown flag {f!r} (known: {', '.join(sorted(FLAGS))})")
                if len(set(flags)) != len(flags):
                    self.report(where, "a flag is listed twice")
        if "rules" not in case:
            self.report(where, "rules is required")
        else:
            if not self.lint_rules(where, "rules", case["rules"]) and isinstance(case["rules"], list) and not case["rules"]:
                self.report(where, "rules must name at least one rule")
        if "context" in case and not isinstance(case["context"], dict):
            self.report(where, "context must be an object")

    def lint_document_case(self, where, case, family, folder):
        for name in sorted(set(case) - DOCUMENT_MEMBERS):
            self.report(where, f"unknown member {name!r} in a document case")
        given = [name for name in INPUTS if name in case]
        if len(given) != 1:
            self.report(where, f"exactly one input form is required, found {given or 'none'}")
        if ("inputSHA256" in case) != ("inputFile" in case):
            self.report(where, "inputFile and inputSHA256 go together")
        if "inputText" in case and not isinstance(case["inputText"], str):
            self.report(where, "inputText must be a string")
        if "inputBase64" in case:
            value = case["inputBase64"]
            try:
                if not isinstance(value, str):
                    raise ValueError
                base64.b64decode(value, validate=True)
            except (ValueError, binascii.Error):
                self.report(where, "inputBase64 must be standard base64")
        if "inputSegments" in case:
            segments = case["inputSegments"]
            if not isinstance(segments, list) or not segments:
                self.report(where, "inputSegments must be a non-empty array")
            else:
                for i, seg in enumerate(segments):
                    if not isinstance(seg, dict) or not isinstance(seg.get("text"), str) or set(seg) - {"text", "repeat"}:
                        self.report(where, f"inputSegments/{i} must be {{text, repeat?}}")
                    elif "repeat" in seg and (not is_int(seg["repeat"]) or not 0 <= seg["repeat"] <= MAX_REPEAT):
                        self.report(where, f"inputSegments/{i}/repeat must be an integer in 0...{MAX_REPEAT}")
        if "inputFile" in case:
            name, digest = case["inputFile"], case.get("inputSHA256")
            if not isinstance(name, str) or not re.match(r"^[A-Za-z0-9._/-]+$", name) or ".." in name.split("/"):
                self.report(where, "inputFile must be a relative path inside the vector folder")
            elif not isinstance(digest, str) or not SHA256.match(digest):
                self.report(where, "inputSHA256 must be 64 lowercase hex digits")
            else:
                path = os.path.join(folder, name)
                if not os.path.isfile(path):
                    self.report(where, f"inputFile {name} does not exist")
                else:
                    with open(path, "rb") as f:
                        if hashlib.sha256(f.read()).hexdigest() != digest:
                            self.report(where, f"inputFile {name} does not match inputSHA256")
        expected = case.get("expected")
        if not isinstance(expected, dict):
            self.report(where, "expected is required and must be an object")
            return
        outcome = expected.get("outcome")
        if outcome == "accept":
            if set(expected) != {"outcome", "canonical"}:
                self.report(where, "an accepting expected is exactly {outcome, canonical}")
            if not isinstance(expected.get("canonical"), (dict, list)):
                self.report(where, "canonical must be an object or an array")
        elif outcome == "reject":
            if set(expected) != {"outcome", "violations"}:
                self.report(where, "a rejecting expected is exactly {outcome, violations}")
            violations = expected.get("violations")
            if not isinstance(violations, list) or not violations:
                self.report(where, "violations must be a non-empty array")
                return
            if family in ONE_VIOLATION_FAMILIES and len(violations) != 1:
                self.report(where, f"a {family} document yields exactly one violation (the first failing check), found {len(violations)}")
            listed = set(case.get("rules") or []) if isinstance(case.get("rules"), list) else set()
            for i, v in enumerate(violations):
                if not isinstance(v, dict) or set(v) != {"path", "rule"}:
                    self.report(where, f"violations/{i} must be exactly {{path, rule}}")
                    continue
                if not isinstance(v["path"], str) or not POINTER.match(v["path"]):
                    self.report(where, f"violations/{i}/path {v['path']!r} is not an RFC 6901 JSON Pointer")
                for rule in self.lint_rules(where, f"violations/{i}/rule", [v["rule"]]):
                    if rule not in listed:
                        self.report(where, f"violated rule {rule} is not listed in rules")
        else:
            self.report(where, "expected.outcome must be \"accept\" or \"reject\"")

    def lint_machine_case(self, where, case):
        for name in sorted(set(case) - MACHINE_MEMBERS):
            self.report(where, f"unknown member {name!r} in a machine case")
        if "triggers" not in case:
            self.report(where, "triggers is required (may be empty)")
        else:
            listed = set(case.get("rules") or []) if isinstance(case.get("rules"), list) else set()
            for rule in self.lint_rules(where, "triggers", case["triggers"]):
                if rule not in listed:
                    self.warn(where, f"trigger {rule} is not listed in rules")
        steps = case.get("steps")
        if not isinstance(steps, list) or not steps:
            self.report(where, "steps must be a non-empty array")
            return
        for i, step in enumerate(steps):
            if not isinstance(step, dict) or set(step) != {"event", "expect"}:
                self.report(where, f"steps/{i} must be exactly {{event, expect}}")
                continue
            event, expect = step["event"], step["expect"]
            if not isinstance(event, dict) or not isinstance(event.get("event"), str):
                self.report(where, f"steps/{i}/event must be an object with a string event")
            if (not isinstance(expect, dict) or set(expect) - {"deadline"} != {"state", "actions"} or not isinstance(expect["state"], dict)
                    or not isinstance(expect["actions"], list) or not all(isinstance(a, dict) for a in expect["actions"])):
                self.report(where, f"steps/{i}/expect must be {{state: object, actions: [object], deadline?: integer or null}}")
                continue
            # Spec pairing.md 4, "Time": a machine that keeps time states its deadline in every
            # step, and no machine asks for a timer.
            deadline = expect.get("deadline")
            if deadline is not None and (isinstance(deadline, bool) or not isinstance(deadline, int) or deadline < 0):
                self.report(where, f"steps/{i}/expect/deadline must be an integer of epoch ms or null")
            if ("deadline" in expect) != ("deadline" in steps[0].get("expect", {})):
                self.report(where, f"steps/{i}/expect: a case states a deadline in every step or in none")
            if any(a.get("action") in ("set-timer", "cancel-timer") for a in expect["actions"]):
                self.report(where, f"steps/{i}/expect/actions: machines ask for no timer; the step states its deadline")


def main(argv):
    try:
        catalog = {r["id"] for r in load_strict(CATALOG)["rules"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"lint_vectors: cannot read Spec/catalog.json: {e}")
        return 2
    every = sorted(glob.glob(os.path.join(VECTORS, "**", "*.json"), recursive=True))
    chosen = [os.path.abspath(p) for p in argv] if argv else every
    for path in chosen:
        if not os.path.isfile(path):
            print(f"lint_vectors: no such file {path}")
            return 2
    linter = Linter(catalog)
    # Ids must be unique across every file, also when only some files are linted.
    for path in every:
        if path not in chosen:
            linter.lint_file(path, report=False)
    for path in chosen:
        linter.lint_file(path)
    for p in linter.problems + linter.warnings:
        print(p)
    print(f"lint_vectors: {len(chosen)} files, {linter.cases} cases, {len(linter.problems)} problems, {len(linter.warnings)} warnings")
    return 1 if linter.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
