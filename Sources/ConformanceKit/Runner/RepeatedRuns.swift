/// A case whose outcome was not the same in every run of `conformance run --repeat N`: a flaky
/// implementation (or case), which wpt's `--verify` treats as a failure, and so does the kit.
public struct VariedCase: Sendable, Hashable {
    public var id: String
    /// The case's status word in each run, in order (`passed`, `failed`, `testee-timeout`, ...).
    public var outcomes: [String]

    public init(id: String, outcomes: [String]) {
        self.id = id
        self.outcomes = outcomes
    }
}

public enum RepeatedRuns {
    /// The report of the last run, with every case whose status differed between the runs.
    public static func combine(_ runs: [RunReport]) -> RunReport? {
        guard var report = runs.last else { return nil }
        var outcomes: [String: [String]] = [:]
        var order: [String] = []
        for run in runs {
            for result in run.results {
                if outcomes[result.vector.id] == nil { order.append(result.vector.id) }
                outcomes[result.vector.id, default: []].append(result.statusWord)
            }
        }
        report.varied = order.compactMap { id in
            let seen = outcomes[id] ?? []
            // A case missing from a run varied too (a live scenario that could not be played).
            return Set(seen).count > 1 || seen.count != runs.count ? VariedCase(id: id, outcomes: seen) : nil
        }
        report.seconds = runs.reduce(0) { $0 + $1.seconds }
        report.notes.insert("each case run \(runs.count) times (--repeat); the results shown are the last run's", at: 0)
        return report
    }
}
