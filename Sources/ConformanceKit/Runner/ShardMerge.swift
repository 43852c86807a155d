import WireCore

/// `conformance report merge`: the reports of the shards of one run (`--shard I/N`) as the one
/// report the run unsharded would have written: every case once, in the kit's case order, the
/// counts, stale list and flaky cases of the whole.
public enum ShardMerge {
    public struct Conflict: Error, CustomStringConvertible {
        public var description: String
    }

    /// The note a shard's report carries; a merged report drops it.
    public static func note(index: Int, count: Int) -> String {
        "shard \(index)/\(count) of the selected cases, split by case id"
    }

    /// `order` is the kit's case order (the order a run plays them); cases it does not hold
    /// (live scenarios) follow in the order the reports list them. Seconds add up: the time one
    /// run would have taken.
    public static func merge(_ reports: [RunReport], order: [String]) throws(Conflict) -> RunReport {
        guard let first = reports.first else { throw Conflict(description: "no report to merge") }
        var seen: [String: Int] = [:]
        var results: [CaseResult] = []
        for (n, report) in reports.enumerated() {
            guard report.peer == first.peer else {
                throw Conflict(description: "report \(n + 1) ran against \(report.peer), report 1 against \(first.peer): not shards of one run")
            }
            for r in report.results {
                if let earlier = seen[r.vector.id] {
                    throw Conflict(description: "case \(r.vector.id) is in report \(earlier + 1) and report \(n + 1): the shards overlap")
                }
                seen[r.vector.id] = n
                results.append(r)
            }
        }
        let position = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let ranked = results.enumerated().sorted { a, b in
            (position[a.element.vector.id] ?? order.count + a.offset, a.offset) < (position[b.element.vector.id] ?? order.count + b.offset, b.offset)
        }
        // Sets, not scans: the reports' lists are as long as their writers made them.
        var notes: [String] = []
        var noted: Set<ByteString> = []
        for note in reports.flatMap(\.notes) where !isShardNote(note) && noted.insert(ByteString(note)).inserted { notes.append(note) }
        let staleInEach = reports.map { Set($0.unknownExpectedFailures) }
        let stale = first.unknownExpectedFailures.filter { entry in staleInEach.allSatisfy { $0.contains(entry) } }
        var merged = RunReport(
            peer: first.peer, results: ranked.map(\.element), seconds: reports.reduce(0) { $0 + $1.seconds }, unknownExpectedFailures: stale, notes: notes)
        merged.varied = reports.flatMap(\.varied)
        merged.replay = reports.lazy.compactMap(\.replay).first
        return merged
    }

    static func isShardNote(_ note: String) -> Bool {
        guard note.hasPrefix("shard "), note.hasSuffix(" of the selected cases, split by case id") else { return false }
        let fraction = note.dropFirst("shard ".count).prefix { $0 != " " }
        return CaseFilter.parseShard(String(fraction)).map { note == Self.note(index: $0.index, count: $0.count) } ?? false
    }
}
