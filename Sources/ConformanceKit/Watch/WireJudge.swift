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
    public static func replay(_ log: SessionLog.Contents, with judge: some WireJudge) -> WatchResult {
        var judge = judge
        for event in log.events { judge.handle(event) }
        return judge.finish(at: log.endedAt ?? log.events.last?.at ?? log.header.startedAt)
    }
}
