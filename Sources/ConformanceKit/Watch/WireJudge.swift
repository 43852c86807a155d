import WireCore

/// What `conformance watch` and `conformance check --session` feed the frames to: one judge per
/// family, sans-I/O, the same live and offline.
public protocol WireJudge: Sendable {
    mutating func handle(_ event: WireEvent)
    /// No frame came, and it is `at`: what was due by then happens.
    mutating func tick(at: EpochMillis)
    /// The watch is over at `at`: what is still open is judged, and the result returned.
    mutating func finish(at: EpochMillis) -> WatchResult
    /// Sessions that have ended; `--sessions N` stops the watch at N.
    var endedSessions: Int { get }
}

extension PairingWatch: WireJudge {}

extension WatchResult {
    /// Judges a recorded session as the live watch did: the same judge over the same events,
    /// ended when the watch ended (or at the last event, for a log without an end line).
    /// A log judged by the judge of the family its header names, with the options it recorded;
    /// nil for a family no watch judges.
    public static func replay(_ log: SessionLog.Contents) -> WatchResult? {
        switch log.header.family {
        case "pairing": return replay(log, with: PairingWatch(options: PairingWatch.Options(json: log.header.judge, names: log.header.names)))
        case "migration": return replay(log, with: MigrationWatch(options: MigrationWatch.Options(json: log.header.judge)))
        default: return nil
        }
    }

    public static func replay(_ log: SessionLog.Contents, with judge: some WireJudge) -> WatchResult {
        var judge = judge
        for event in log.events { judge.handle(event) }
        return judge.finish(at: log.endedAt ?? log.events.last?.at ?? log.header.startedAt)
    }
}
