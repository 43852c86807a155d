import Foundation
import WireCore

/// What happened to one case.
public struct CaseResult: Sendable {
    /// The outcome classes (after Autobahn|Testsuite's): what the implementation did.
    public enum Status: Sendable, Hashable {
        case passed
        /// Only rules the catalog marks SHOULD were missed: reported, not failed.
        case nonStrict
        /// Passed, with observations the Spec allows (`notes`: frames nobody asked for).
        case informational
        case failed
        /// The implementation answered `unsupported` for this case.
        case unsupported(String)
        case invalidRequest(String)
        case broken(PeerFailure)
        /// The implementation's `hello` leaves this case out: reported, not failed.
        case notImplemented(String)
        /// The runner did not play this case (it needs what this run lacks); says why.
        case skipped(String)
    }

    /// The case's result held against the expected-failure list.
    public enum Verdict: Sendable, Hashable {
        case pass
        case fail
        case expectedFailure
        /// Listed as expected to fail, but passed.
        case unexpectedPass
        /// Listed, but failed with other signatures than listed.
        case failedDifferently
        /// Not judged: not implemented by the peer, or not played by the runner.
        case skipped
    }

    public var vector: VectorCase
    public var status: Status
    public var violations: [Violation]
    public var verdict: Verdict
    public var expectedEntry: ExpectedFailures.Entry?
    /// Level by level agreement, where the case was judged against an answer.
    public var grade: Grade?
    /// Observations that do not fail the case (quoted, capped).
    public var notes: [String]
    /// Wall time the case took.
    public var seconds: Double
    /// A live case's frames both ways, in order (nil for vector cases played over stdio).
    public var wire: WireLog?

    public init(
        vector: VectorCase, status: Status, violations: [Violation], verdict: Verdict, expectedEntry: ExpectedFailures.Entry?,
        grade: Grade? = nil, notes: [String] = [], seconds: Double = 0, wire: WireLog? = nil
    ) {
        self.wire = wire
        self.vector = vector
        self.status = status
        self.violations = violations
        self.verdict = verdict
        self.expectedEntry = expectedEntry
        self.grade = grade
        self.notes = notes
        self.seconds = seconds
    }

    /// The status a judged case gets from its violations and notes: failed on any violation of
    /// a MUST rule, non-strict when only SHOULD rules were missed, informational with notes only.
    public static func status(violations: [Violation], notes: [String], levels: RuleLevels) -> Status {
        if violations.contains(where: { !levels.isRecommendation($0.rule) }) { return .failed }
        if !violations.isEmpty { return .nonStrict }
        return notes.isEmpty ? .passed : .informational
    }

    /// A result judged against `entry`.
    public static func judged(
        _ vector: VectorCase, status: Status, violations: [Violation], entry: ExpectedFailures.Entry?, grade: Grade? = nil, notes: [String] = [],
        seconds: Double = 0, wire: WireLog? = nil
    ) -> CaseResult {
        var result = CaseResult(
            vector: vector, status: status, violations: violations, verdict: .pass, expectedEntry: entry, grade: grade, notes: notes, seconds: seconds,
            wire: wire)
        result.verdict = Runner.verdict(result, entry: entry)
        return result
    }

    /// Whether the case met the contract (passed, non-strict or informational).
    public var met: Bool {
        switch status {
        case .passed, .nonStrict, .informational: return true
        default: return false
        }
    }

    /// Rule ids of the violations (their consequences' too: a list names every rule a case
    /// breaks, and stays exact when grouping changes), or the status word.
    public var signatures: Set<String> {
        switch status {
        case .passed, .nonStrict, .informational: return []
        case .failed: return Set(violations.flatMap { [$0] + $0.consequences }.map(\.rule.rawValue))
        case .unsupported: return ["unsupported"]
        case .invalidRequest: return ["invalid-request"]
        case .broken(let failure): return [failure.signature]
        case .notImplemented: return ["not-implemented"]
        case .skipped: return ["skipped"]
        }
    }

    /// Whether this result lets the run succeed.
    public var isOK: Bool { verdict == .pass || verdict == .expectedFailure || verdict == .skipped }

    /// The status's word in reports and JSON.
    public var statusWord: String {
        switch status {
        case .passed: return "passed"
        case .nonStrict: return "non-strict"
        case .informational: return "informational"
        case .failed: return "failed"
        case .unsupported: return "unsupported"
        case .invalidRequest: return "invalid-request"
        case .broken(let f): return f.signature
        case .notImplemented: return "not-implemented"
        case .skipped: return "skipped"
        }
    }

    /// The status's own words, for the statuses that carry them (the JSON report's `reason`).
    public var statusReason: String? {
        switch status {
        case .passed, .nonStrict, .informational, .failed: return nil
        case .unsupported(let reason), .invalidRequest(let reason), .notImplemented(let reason), .skipped(let reason): return reason
        case .broken(.crashed(let detail)), .broken(.timeout(let detail)), .broken(.garbled(let detail)): return detail
        }
    }

    public var summary: String {
        switch status {
        case .passed: return "passed"
        case .nonStrict, .failed:
            return violations.first.map { "\($0.rule) at \"\($0.path)\": expected \($0.expected), found \($0.found)" } ?? statusWord
        case .informational: return "passed; " + (notes.first ?? "")
        case .unsupported(let reason): return "unsupported: \(reason)"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .broken(let failure): return failure.description
        case .notImplemented(let reason): return "not implemented: \(reason)"
        case .skipped(let reason): return "skipped: \(reason)"
        }
    }
}

/// Which rules are recommendations (SHOULD): missing only those makes a case non-strict.
public struct RuleLevels: Sendable {
    public var recommendations: Set<RuleID>

    public init(recommendations: Set<RuleID> = []) {
        self.recommendations = recommendations
    }

    /// The levels the catalog states.
    public init(_ catalog: Catalog) {
        self.recommendations = Set(catalog.rules.filter { $0.level.hasPrefix("SHOULD") }.map(\.id))
    }

    public func isRecommendation(_ rule: RuleID) -> Bool { recommendations.contains(rule) }
}

public struct RunReport: Sendable {
    public var peer: String
    public var results: [CaseResult]
    public var seconds: Double
    /// Listed expected failures that match no case (a stale list).
    public var unknownExpectedFailures: [ExpectedFailures.Entry]
    /// Lines for the report's header: what the run could and could not do (e.g. slow cases).
    public var notes: [String]
    /// With `--repeat`: the cases whose outcome was not the same in every run.
    public var varied: [VariedCase] = []
    /// The command that ran this report, without its case selection: a failing case's replay is
    /// it with `--case ID`.
    public var replay: String?

    /// The command that plays exactly one case again.
    public func replay(_ caseID: String) -> String? { replay.map { "\($0) --case \(ShellWord.quoted(caseID))" } }

    public init(peer: String, results: [CaseResult], seconds: Double, unknownExpectedFailures: [ExpectedFailures.Entry], notes: [String] = []) {
        self.peer = peer
        self.results = results
        self.seconds = seconds
        self.unknownExpectedFailures = unknownExpectedFailures
        self.notes = notes
    }

    public var ok: Bool { results.allSatisfy(\.isOK) && unknownExpectedFailures.isEmpty && varied.isEmpty }

    public func count(_ verdict: CaseResult.Verdict) -> Int { results.filter { $0.verdict == verdict }.count }

    /// Failures: neither passed, nor expected to fail, nor skipped.
    public var failedCount: Int { results.filter { !$0.isOK }.count }
}
