"""One vector file as the generators build it (format: Vectors/README.md).

A generator subclasses VectorFile with its `family` and output folder `out`, and adds the
document helpers its kinds need; every case starts from `case` and every file is written by
`write`, so ids, members and formatting are the same in every family.
"""

import json
import os


class VectorFile:
    family = None
    out = None

    def __init__(self, kind=None, machine=None, description="", context=None):
        self.kind, self.machine, self.description, self.context, self.cases = kind, machine, description, context or {}, []

    @property
    def slug(self):
        return self.kind or self.machine

    def case(self, slug, comment, rules, flags=(), context=None, **members):
        """A new case with id, comment, flags, rules, the context when given, then `members`."""
        c = {"id": f"{self.family}/{self.slug}/{slug}", "comment": comment, "flags": list(flags), "rules": rules}
        if context is not None:
            c["context"] = context
        c.update(members)
        self.cases.append(c)
        return c

    def steps(self, slug, comment, rules, triggers, steps, context=None, flags=()):
        """A machine case: (event, state, actions) triples."""
        c = {"id": f"{self.family}/{self.slug}/{slug}", "comment": comment, "flags": list(flags), "rules": rules, "triggers": triggers}
        if context is not None:
            c["context"] = context
        c["steps"] = [{"event": e, "expect": {"state": s, "actions": a}} for e, s, a in steps]
        self.cases.append(c)

    def write(self):
        d = {"family": self.family, "description": self.description, "context": self.context, "cases": self.cases}
        d["kind" if self.kind else "machine"] = self.slug
        with open(os.path.join(self.out, f"{self.slug}.json"), "w") as fh:
            fh.write(json.dumps(d, ensure_ascii=False, indent=2) + "\n")
        return len(self.cases)
