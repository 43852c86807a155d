import Foundation
import TesteeProtocol
import WireCore

/// Replays vector cases against a peer and judges each answer.
public enum Runner {
    public static func run(
        _ cases: [VectorCase], against peer: any Peer, expectedFailures: ExpectedFailures = ExpectedFailures(),
        filter: CaseFilter = CaseFilter(), levels: RuleLevels = RuleLevels(), progress: ((Int, Int) -> Void)? = nil
    ) -> RunReport {
        run(cases, across: [peer], expectedFailures: expectedFailures, filter: filter, levels: levels, progress: progress)
    }

    /// The selected cases dealt out to `peers` (`--jobs N`: N testee processes of one
    /// implementation), each played by one worker, the results in the cases' order as one peer
    /// would give them. `progress` is called only when there is one peer.
    public static func run(
        _ cases: [VectorCase], across peers: [any Peer], expectedFailures: ExpectedFailures = ExpectedFailures(),
        filter: CaseFilter = CaseFilter(), levels: RuleLevels = RuleLevels(), progress: ((Int, Int) -> Void)? = nil
    ) -> RunReport {
        precondition(!peers.isEmpty, "a run needs a peer")
        let start = Date()
        let selected = cases.filter(filter.matches)
        @Sendable func play(_ index: Int, on peer: any Peer) -> CaseResult {
            let vector = selected[index]
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
            return result
        }
        var results: [CaseResult]
        if peers.count == 1 {
            results = selected.indices.map { i in
                progress?(i, selected.count)
                return play(i, on: peers[0])
            }
        } else {
            // Each worker owns one peer and its own slots: no peer is used by two threads.
            let workers = WorkerSlots(peers: peers, count: selected.count)
            let (jobs, total) = (peers.count, selected.count)
            DispatchQueue.concurrentPerform(iterations: jobs) { w in
                for i in stride(from: w, to: total, by: jobs) {
                    workers.store(play(i, on: workers.peers[w]), at: i)
                }
            }
            results = workers.results
        }
        return RunReport(
            peer: peers[0].name, results: results, seconds: Date().timeIntervalSince(start),
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

/// The parallel run's shared state: the peers (each touched by its one worker only) and a slot
/// per case, written once under the lock.
private final class WorkerSlots: @unchecked Sendable {
    let peers: [any Peer]
    private let lock = NSLock()
    private var slots: [CaseResult?]

    init(peers: [any Peer], count: Int) {
        self.peers = peers
        self.slots = Array(repeating: nil, count: count)
    }

    func store(_ result: CaseResult, at index: Int) { lock.withLock { slots[index] = result } }

    var results: [CaseResult] { lock.withLock { slots.compactMap { $0 } } }
}
