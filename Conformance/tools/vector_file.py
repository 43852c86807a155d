"""One vector file as the generators build it (format: Vectors/README.md).

A generator subclasses VectorFile with its `family` and output folder `out`, and adds the
document helpers its kinds need; every case starts from `case` and every file is written by
`write`, so ids, members and formatting are the same in every family.
"""

import json
import os


def arm(at):
    """Among a step's expected actions: from this step on, the machine's deadline is `at`."""
    return {"arm": at}


def disarm():
    """Among a step's expected actions: from this step on, the machine has no deadline."""
    return {"arm": None}


def state_deadlines(steps, timed):
    """Gives every step of a machine case its `deadline` (Spec: machines state `nextDeadline`;
    they ask for no timer): the last `arm` written among the expected actions, until a `disarm`
    or a state whose name is not in `timed` (the states that keep a deadline). The markers are
    taken out of the actions."""
    armed = None
    for step in steps:
        expect = step["expect"]
        actions = []
        for a in expect["actions"]:
            if "arm" in a:
                armed = a["arm"]
            else:
                actions.append(a)
        if expect["state"].get("name") not in timed:
            armed = None
        expect["actions"] = actions
        expect["deadline"] = armed
    return steps


class VectorFile:
    family = None
    out = None
    # The names of the states in which the file's machine keeps a deadline; None for a machine
    # that does not keep time or whose generator states its deadlines itself.
    timed = None

    def __init__(self, kind=None, machine=None, description="", context=None, timed=None):
        self.kind, self.machine, self.description, self.context, self.cases = kind, machine, description, context or {}, []
        if timed is not None:
            self.timed = timed

    @property
    def slug(self):
        return (self.kind or self.machine).replace(":", "-")

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
        c["steps"] = [{"event": e, "expect": {"state": s, "actions": list(a)}} for e, s, a in steps]
        if self.timed is not None:
            state_deadlines(c["steps"], self.timed)
        self.cases.append(c)

    def write(self):
        return write_file(self.out, self.family, self.description, self.context, self.cases, kind=self.kind, machine=self.machine)


def write_file(folder, family, description, context, cases, kind=None, machine=None):
    """Writes one vector file, `<kind or machine>.json` (a `:` in a kind written `-`), as every
    generator does: members in one order, two-space indentation, UTF-8 kept. Returns the case count."""
    d = {"family": family}
    d["kind" if kind else "machine"] = kind or machine
    d.update({"description": description, "context": context, "cases": cases})
    with open(os.path.join(folder, (kind or machine).replace(":", "-") + ".json"), "w") as fh:
        fh.write(json.dumps(d, ensure_ascii=False, indent=2) + "\n")
    return len(cases)
