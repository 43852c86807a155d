import Foundation
import WireCore

/// What happened to one case.
public struct CaseResult: Sendable {
    public enum Status: Sendable, Hashable {
        case passed
        case failed
        case unsupported(String)
        case invalidRequest(String)
        case broken(PeerFailure)
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
    }

    public var vector: VectorCase
    public var status: Status
    public var violations: [Violation]
    public var verdict: Verdict
    public var expectedEntry: ExpectedFailures.Entry?

    public init(vector: VectorCase, status: Status, violations: [Violation], verdict: Verdict, expectedEntry: ExpectedFailures.Entry?) {
        self.vector = vector
        self.status = status
        self.violations = violations
        self.verdict = verdict
        self.expectedEntry = expectedEntry
    }

    /// Rule ids of the violations, or the status word.
    public var signatures: Set<String> {
        switch status {
        case .passed: return []
        case .failed: return Set(violations.map(\.rule.rawValue))
        case .unsupported: return ["unsupported"]
        case .invalidRequest: return ["invalid-request"]
        case .broken(let failure): return [failure.signature]
        }
    }

    /// Whether this result lets the run succeed.
    public var isOK: Bool { verdict == .pass || verdict == .expectedFailure }

    public var summary: String {
        switch status {
        case .passed: return "passed"
        case .failed: return violations.first.map { "\($0.rule) at \"\($0.path)\": expected \($0.expected), found \($0.found)" } ?? "failed"
        case .unsupported(let reason): return "unsupported: \(reason)"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .broken(let failure): return failure.description
        }
    }
}

public struct RunReport: Sendable {
    public var peer: String
    public var results: [CaseResult]
    public var seconds: Double
    /// Listed expected failures that match no selected case (a stale list).
    public var unknownExpectedFailures: [ExpectedFailures.Entry]

    public init(peer: String, results: [CaseResult], seconds: Double, unknownExpectedFailures: [ExpectedFailures.Entry]) {
        self.peer = peer
        self.results = results
        self.seconds = seconds
        self.unknownExpectedFailures = unknownExpectedFailures
    }

    public var ok: Bool { results.allSatisfy(\.isOK) && unknownExpectedFailures.isEmpty }

    public func count(_ verdict: CaseResult.Verdict) -> Int { results.filter { $0.verdict == verdict }.count }
}

/// Which cases to run.
public struct CaseFilter: Sendable {
    public var family: String?
    /// Shell-style glob over case ids (`*` any run of characters, `?` one character).
    public var glob: String?

    public init(family: String? = nil, glob: String? = nil) {
        self.family = family
        self.glob = glob
    }

    public func matches(_ vector: VectorCase) -> Bool {
        if let family, vector.family != family { return false }
        if let glob, !fnmatchLike(glob, vector.id) { return false }
        return true
    }

    func fnmatchLike(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern)
        let t = Array(text)
        // Iterative wildcard match with backtracking to the last star.
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) {
                pi += 1
                ti += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}

/// Replays vector cases against a peer and judges each answer.
public enum Runner {
    public static func run(
        _ cases: [VectorCase], against peer: any Peer, expectedFailures: ExpectedFailures = ExpectedFailures(),
        filter: CaseFilter = CaseFilter(), progress: ((Int, Int) -> Void)? = nil
    ) -> RunReport {
        let start = Date()
        let selected = cases.filter(filter.matches)
        var results: [CaseResult] = []
        for (i, vector) in selected.enumerated() {
            progress?(i, selected.count)
            results.append(judge(vector, peer.evaluate(TesteeRequest(vector)), expected: expectedFailures.entries[vector.id]))
        }
        let selectedIDs = Set(selected.map(\.id))
        let unknown = expectedFailures.entries.values.filter { entry in
            !selectedIDs.contains(entry.caseID) && !cases.contains(where: { $0.id == entry.caseID })
        }
        return RunReport(
            peer: peer.name, results: results, seconds: Date().timeIntervalSince(start),
            unknownExpectedFailures: unknown.sorted { $0.line < $1.line })
    }

    static func judge(_ vector: VectorCase, _ answer: Result<Outcome, PeerFailure>, expected entry: ExpectedFailures.Entry?) -> CaseResult {
        let status: CaseResult.Status
        var violations: [Violation] = []
        switch answer {
        case .failure(let failure):
            status = .broken(failure)
        case .success(.unsupported(let reason)):
            status = .unsupported(reason)
        case .success(.invalidRequest(let reason)):
            status = .invalidRequest(reason)
        case .success(let outcome):
            violations = Judge.judge(vector, outcome)
            status = violations.isEmpty ? .passed : .failed
        }
        var result = CaseResult(vector: vector, status: status, violations: violations, verdict: .pass, expectedEntry: entry)
        result.verdict = verdict(result, entry: entry)
        return result
    }

    /// The result held against its expected-failure entry, if any.
    public static func verdict(_ result: CaseResult, entry: ExpectedFailures.Entry?) -> CaseResult.Verdict {
        guard let entry else { return result.status == .passed ? .pass : .fail }
        if result.status == .passed { return .unexpectedPass }
        if !entry.signatures.isEmpty {
            return result.signatures == entry.signatures ? .expectedFailure : .failedDifferently
        }
        let own = Set((result.vector.rules + result.vector.triggers + result.vector.rejectingRules).map(\.rawValue))
        return result.signatures.isSubset(of: own) ? .expectedFailure : .failedDifferently
    }
}
