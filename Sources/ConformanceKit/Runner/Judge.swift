import TesteeProtocol
import WireCore

/// How far an implementation's answer agreed with a case, level by level, so real code that
/// only says accept or reject can be plugged in without re-deriving every rule id:
/// the verdict (accept / reject; for machines the final state), the diagnosis (which rules at
/// which paths), and the canonical form (every member).
public struct Grade: Sendable, Hashable {
    public enum Agreement: String, Sendable, Hashable {
        case agreed
        case disagreed
        /// The answer did not say (a `reject` without violations, a trace without rules).
        case notGiven = "not-given"
        /// The level does not apply (no diagnosis for an accepted document).
        case notApplicable = "not-applicable"
    }

    public enum Level: String, Sendable, CaseIterable {
        case verdict, diagnosis, canonical
    }

    public var verdict: Agreement
    public var diagnosis: Agreement
    public var canonical: Agreement

    public init(verdict: Agreement, diagnosis: Agreement, canonical: Agreement) {
        self.verdict = verdict
        self.diagnosis = diagnosis
        self.canonical = canonical
    }

    public subscript(level: Level) -> Agreement {
        switch level {
        case .verdict: return verdict
        case .diagnosis: return diagnosis
        case .canonical: return canonical
        }
    }
}

/// Compares an implementation's outcome with a case's expectation. Every difference is a
/// `Violation`: where (pointer), which rule, expected, found. No differences: the case passes.
/// The verdict is compared first, then the rules and paths, then the canonical form.
public enum Judge {
    public struct Judgement: Sendable {
        public var violations: [Violation]
        public var grade: Grade?
    }

    public static func judge(_ vector: VectorCase, _ outcome: Outcome) -> [Violation] {
        evaluate(vector, outcome).violations
    }

    public static func evaluate(_ vector: VectorCase, _ outcome: Outcome) -> Judgement {
        let rule = vector.rules.first ?? RuleID("UNATTRIBUTED")
        switch (vector.body, outcome) {
        case (.document(_, _, .accept(let canonical)), .accept(let found)):
            let violations = JSONDiff.differences(expected: canonical, found: found).map {
                // A member the canonical form must not have is an undeclared member kept.
                Violation(
                    rule: $0.expected == "absent" ? CoreRule.unknownMembers : rule, path: $0.path, expected: "canonical " + $0.expected,
                    found: $0.found, subject: vector.id)
            }
            return Judgement(
                violations: violations, grade: Grade(verdict: .agreed, diagnosis: .notApplicable, canonical: violations.isEmpty ? .agreed : .disagreed))
        case (.document(_, _, .accept), .reject(let found, _)):
            let violations =
                found.isEmpty
                ? [Violation(rule: rule, path: .root, expected: "accept", found: "rejected (no rule given)", subject: vector.id)]
                : found.map { Violation(rule: $0.rule, path: $0.path, expected: "accept", found: "rejected on \($0.rule)", subject: vector.id) }
            return Judgement(violations: violations, grade: Grade(verdict: .disagreed, diagnosis: .notApplicable, canonical: .notGiven))
        case (.document(_, _, .reject(let expected)), .accept):
            let violations = expected.map {
                Violation(rule: $0.rule, path: $0.path, expected: "reject on \($0.rule)", found: "accepted", subject: vector.id)
            }
            // Accepted: there is no rejection whose diagnosis could be graded.
            return Judgement(violations: violations, grade: Grade(verdict: .disagreed, diagnosis: .notApplicable, canonical: .notApplicable))
        case (.document(_, _, .reject), .reject(let found, _)) where found.isEmpty:
            // "Rejected, rule unknown": the verdict agrees; the diagnosis is not there to compare.
            return Judgement(violations: [], grade: Grade(verdict: .agreed, diagnosis: .notGiven, canonical: .notApplicable))
        case (.document(_, _, .reject(let expected)), .reject(let found, _)):
            let foundSet = found.map(ExpectedViolation.init)
            let reported = foundSet.map(\.description).joined(separator: ", ")
            var result: [Violation] = []
            for e in expected where !foundSet.contains(e) {
                result.append(Violation(rule: e.rule, path: e.path, expected: "reject on \(e.rule) here", found: "reported \(reported)", subject: vector.id))
            }
            for f in foundSet where !expected.contains(f) {
                result.append(Violation(rule: f.rule, path: f.path, expected: "no violation here", found: "reported \(f.rule)", subject: vector.id))
            }
            return Judgement(
                violations: result, grade: Grade(verdict: .agreed, diagnosis: result.isEmpty ? .agreed : .disagreed, canonical: .notApplicable))
        case (.machine(_, _, let expected), .trace(let found)):
            return judgeTrace(vector, expected: expected, found: found)
        case (_, .unsupported), (_, .invalidRequest):
            return Judgement(violations: [], grade: nil)  // not a verdict; the runner reports these as their own status
        default:
            return Judgement(
                violations: [Violation(rule: rule, path: .root, expected: "an answer of the case's kind", found: "\(outcome)", subject: vector.id)],
                grade: Grade(verdict: .disagreed, diagnosis: .notGiven, canonical: .notGiven))
        }
    }

    static func judgeTrace(_ vector: VectorCase, expected: [MachineStep], found: [MachineStep]) -> Judgement {
        let expectedRules = rules(in: expected)
        let foundRules = rules(in: found)
        // A trace that names no rule at all did not diagnose: its other members are still judged.
        let diagnosis: Grade.Agreement =
            expectedRules.isEmpty ? .notApplicable : foundRules.isEmpty ? .notGiven : (expectedRules == foundRules ? .agreed : .disagreed)
        var result: [Violation] = []
        for (i, step) in expected.enumerated() {
            let rule = attributedRule(step) ?? vector.triggers.first ?? vector.rules.first ?? RuleID("UNATTRIBUTED")
            guard i < found.count else {
                result.append(Violation(rule: rule, path: .root / "steps" / i, expected: "a step", found: "absent", subject: vector.id))
                continue
            }
            let want = diagnosis == .notGiven ? withoutRules(step.json) : step.json
            // A step that states no deadline (a machine that keeps no time) is not judged on one
            // a testee states.
            var got = found[i]
            if step.deadline == nil { got.deadline = nil }
            for d in JSONDiff.differences(expected: want, found: got.json, at: .root / "steps" / i) {
                result.append(Violation(rule: rule, path: d.path, expected: d.expected, found: d.found, subject: vector.id))
            }
        }
        if found.count > expected.count {
            let rule = vector.rules.first ?? RuleID("UNATTRIBUTED")
            result.append(
                Violation(rule: rule, path: .root / "steps" / expected.count, expected: "\(expected.count) steps", found: "\(found.count) steps", subject: vector.id))
        }
        let verdict: Grade.Agreement
        if let last = expected.last, found.count == expected.count, let end = found.last {
            let name = last.state["name"]
            verdict = (name != nil ? name == end.state["name"] : JSONDiff.differences(expected: last.state, found: end.state).isEmpty) ? .agreed : .disagreed
        } else {
            verdict = found.count == expected.count ? .agreed : .disagreed
        }
        return Judgement(violations: result, grade: Grade(verdict: verdict, diagnosis: diagnosis, canonical: result.isEmpty ? .agreed : .disagreed))
    }

    /// Every `rule` member a trace names (failed states' reasons, refusing actions), in order.
    static func rules(in steps: [MachineStep]) -> [String] {
        var out: [String] = []
        for step in steps {
            if case .string(let r)? = step.state["reason"]?["rule"] { out.append(r) }
            for action in step.actions {
                if case .string(let r)? = action["rule"] { out.append(r) }
            }
        }
        return out
    }

    static func withoutRules(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let o):
            var copy = JSONObject()
            for member in o.members where member.key != "rule" { copy[member.key] = withoutRules(member.value) }
            return .object(copy)
        case .array(let a):
            return .array(a.map(withoutRules))
        default:
            return value
        }
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
