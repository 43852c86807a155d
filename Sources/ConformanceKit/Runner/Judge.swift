import WireCore

/// Compares an implementation's outcome with a case's expectation. Every difference is a
/// `Violation`: where (pointer), which rule, expected, found. No differences: the case passes.
public enum Judge {
    public static func judge(_ vector: VectorCase, _ outcome: Outcome) -> [Violation] {
        switch (vector.body, outcome) {
        case (.document(_, _, .accept(let canonical)), .accept(let found)):
            let rule = vector.rules.first ?? RuleID("UNATTRIBUTED")
            return JSONDiff.differences(expected: canonical, found: found).map {
                Violation(rule: rule, path: $0.path, expected: "canonical " + $0.expected, found: $0.found, subject: vector.id)
            }
        case (.document(_, _, .accept), .reject(let found)):
            return found.map {
                Violation(rule: $0.rule, path: $0.path, expected: "accept", found: "rejected on \($0.rule)", subject: vector.id)
            }
        case (.document(_, _, .reject(let expected)), .accept):
            return expected.map {
                Violation(rule: $0.rule, path: $0.path, expected: "reject on \($0.rule)", found: "accepted", subject: vector.id)
            }
        case (.document(_, _, .reject(let expected)), .reject(let found)):
            let foundSet = found.map(ExpectedViolation.init)
            let reported = foundSet.isEmpty ? "nothing" : foundSet.map(\.description).joined(separator: ", ")
            var result: [Violation] = []
            for e in expected where !foundSet.contains(e) {
                result.append(Violation(rule: e.rule, path: e.path, expected: "reject on \(e.rule) here", found: "reported \(reported)", subject: vector.id))
            }
            for f in foundSet where !expected.contains(f) {
                result.append(Violation(rule: f.rule, path: f.path, expected: "no violation here", found: "reported \(f.rule)", subject: vector.id))
            }
            return result
        case (.machine(_, _, let expected), .trace(let found)):
            return judgeTrace(vector, expected: expected, found: found)
        case (_, .unsupported), (_, .invalidRequest):
            return []  // not a verdict on the document; the runner reports these as their own status
        default:
            let rule = vector.rules.first ?? RuleID("UNATTRIBUTED")
            return [Violation(rule: rule, path: .root, expected: "an answer of the case's kind", found: "\(outcome)", subject: vector.id)]
        }
    }

    static func judgeTrace(_ vector: VectorCase, expected: [MachineStep], found: [MachineStep]) -> [Violation] {
        var result: [Violation] = []
        for (i, step) in expected.enumerated() {
            let rule = attributedRule(step) ?? vector.triggers.first ?? vector.rules.first ?? RuleID("UNATTRIBUTED")
            guard i < found.count else {
                result.append(Violation(rule: rule, path: .root / "steps" / i, expected: "a step", found: "absent", subject: vector.id))
                continue
            }
            for d in JSONDiff.differences(expected: step.json, found: found[i].json, at: .root / "steps" / i) {
                result.append(Violation(rule: rule, path: d.path, expected: d.expected, found: d.found, subject: vector.id))
            }
        }
        if found.count > expected.count {
            let rule = vector.rules.first ?? RuleID("UNATTRIBUTED")
            result.append(
                Violation(rule: rule, path: .root / "steps" / expected.count, expected: "\(expected.count) steps", found: "\(found.count) steps", subject: vector.id))
        }
        return result
    }

    /// The rule an expected step is about: the reason of a `failed` state, or the rule an
    /// action names (a `drop`, a relay's refusal).
    static func attributedRule(_ step: MachineStep) -> RuleID? {
        if case .string(let r)? = step.state["reason"]?["rule"] { return RuleID(r) }
        for action in step.actions {
            if case .string(let r)? = action["rule"] { return RuleID(r) }
        }
        return nil
    }
}
