import Foundation
import TesteeProtocol
import WireCore

/// Replays vector cases against a peer and judges each answer.
public enum Runner {
    public static func run(
        _ cases: [VectorCase], against peer: any Peer, expectedFailures: ExpectedFailures = ExpectedFailures(),
        filter: CaseFilter = CaseFilter(), levels: RuleLevels = RuleLevels(), progress: ((Int, Int) -> Void)? = nil
    ) -> RunReport {
        let start = Date()
        let selected = cases.filter(filter.matches)
        var results: [CaseResult] = []
        for (i, vector) in selected.enumerated() {
            progress?(i, selected.count)
            let began = Date()
            let request = TesteeRequest(vector)
            let entry = expectedFailures.entry(for: vector.id)
            var result: CaseResult
            if let reason = peer.declines(request) {
                result = CaseResult.judged(vector, status: .notImplemented(reason), violations: [], entry: entry)
            } else {
                result = judge(vector, peer.evaluate(request), expected: entry, levels: levels)
            }
            result.seconds = Date().timeIntervalSince(began)
            results.append(result)
        }
        return RunReport(
            peer: peer.name, results: results, seconds: Date().timeIntervalSince(start),
            unknownExpectedFailures: expectedFailures.stale(among: cases))
    }

    static func judge(
        _ vector: VectorCase, _ answer: Result<Outcome, PeerFailure>, expected entry: ExpectedFailures.Entry?, levels: RuleLevels = RuleLevels()
    ) -> CaseResult {
        switch answer {
        case .failure(let failure):
            return .judged(vector, status: .broken(failure), violations: [], entry: entry)
        case .success(.unsupported(let reason)):
            return .judged(vector, status: .unsupported(reason), violations: [], entry: entry)
        case .success(.invalidRequest(let reason)):
            return .judged(vector, status: .invalidRequest(reason), violations: [], entry: entry)
        case .success(let outcome):
            let judgement = Judge.evaluate(vector, outcome)
            let status = CaseResult.status(violations: judgement.violations, notes: [], levels: levels)
            return .judged(vector, status: status, violations: judgement.violations, entry: entry, grade: judgement.grade)
        }
    }

    /// The result held against its expected-failure entry, if any.
    public static func verdict(_ result: CaseResult, entry: ExpectedFailures.Entry?) -> CaseResult.Verdict {
        switch result.status {
        case .notImplemented, .skipped: return .skipped
        default: break
        }
        guard let entry else { return result.met ? .pass : .fail }
        if result.met { return .unexpectedPass }
        if !entry.signatures.isEmpty {
            return result.signatures == entry.signatures ? .expectedFailure : .failedDifferently
        }
        let own = Set((result.vector.rules + result.vector.triggers + result.vector.rejectingRules).map(\.rawValue))
        return result.signatures.isSubset(of: own) ? .expectedFailure : .failedDifferently
    }
}
