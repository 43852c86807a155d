"""The kind `restored-store` (Spec/migration.md 4, MIG-REST-001), written from the Spec's text:
the store after a verified package holds the package's files by content (as many copies as
listed, nothing else, the manifest kept at most once); after any other ending it is the store it
was, path for path and digest for digest."""
import re

from msbk_package import Rejected, Violation

RULE = "MIG-REST-001"
HEX64 = re.compile(r"[0-9a-f]{64}\Z")


def _inventory(doc, key):
    if key not in doc:
        raise Violation("CORE-TYPE-001", f"/{key}")
    items = doc[key]
    if not isinstance(items, list):
        raise Violation("CORE-TYPE-003", f"/{key}")
    files = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise Violation("CORE-TYPE-003", f"/{key}/{i}")
        for member in ("path", "sha256"):
            if member not in item or item[member] is None:
                raise Violation("CORE-TYPE-001", f"/{key}/{i}/{member}")
            if not isinstance(item[member], str):
                raise Violation("CORE-TYPE-003", f"/{key}/{i}/{member}")
        if not HEX64.match(item["sha256"]):
            raise Violation(RULE, f"/{key}/{i}/sha256")
        files.append((item["path"], item["sha256"]))
    return files


def restored_store(doc):
    """The canonical form, or Rejected with every violation."""
    if not isinstance(doc, dict):
        raise Violation("CORE-TYPE-003", "")
    if "outcome" not in doc:
        raise Violation("CORE-TYPE-001", "/outcome")
    if not isinstance(doc["outcome"], str):
        raise Violation("CORE-TYPE-003", "/outcome")
    if doc["outcome"] not in ("verified", "refused"):
        raise Violation(RULE, "/outcome")
    package, before, after = (_inventory(doc, k) for k in ("package", "before", "after"))
    found = []
    if doc["outcome"] == "verified":
        manifest = [d for p, d in package if p == "manifest.json"]
        wanted = {}
        for i, (p, d) in enumerate(package):
            if p != "manifest.json":
                wanted.setdefault(d, []).append(i)
        kept = False
        for j, (_, d) in enumerate(after):
            if wanted.get(d):
                wanted[d].pop(0)
            elif manifest and d == manifest[0] and not kept:
                kept = True
            else:
                found.append(f"/after/{j}")
        missing = sorted(i for left in wanted.values() for i in left)
        listed = len(package) - len(manifest)
        # nothing of the package at all is one finding, at /package
        found += ["/package"] if listed > 1 and len(missing) == listed else [f"/package/{i}" for i in missing]
    else:
        now = {p: (j, d) for j, (p, d) in enumerate(after)}
        for i, (p, d) in enumerate(before):
            if p not in now:
                found.append(f"/before/{i}")
            elif now.pop(p)[1] != d:
                found.append(f"/after/{[j for j, (q, _) in enumerate(after) if q == p][0]}")
        found += [f"/after/{j}" for j, _ in sorted(now.values())]
    if found:
        raise Rejected([Violation(RULE, path) for path in found])
    return {k: doc[k] for k in ("outcome", "package", "before", "after")}
