import WireCore

/// A client's open connection as an observer sees it (the watch between two implementations, the
/// live runner as their relay), judged by running `SignalingConnectionMachine` beside it
/// (PAIR-CONN-003): the observer reports every frame the relay sent on it and each keepalive the
/// client sent, and the machine says whether the client owed that keepalive then, or owed the
/// drop of a dead connection instead. The machine runs on the client's clock: each keepalive sets
/// it, so a timer a little fast or slow is judged gap by gap, as the Spec's tolerance states, and
/// never drifts into a false alarm. The first breach ends the judging (what follows is the same
/// fault).
public struct ObservedConnection: Sendable {
    /// PAIR-CONN-002's and PAIR-CONN-003's "Decision (tolerance, live)", kept here once.
    public enum Tolerance {
        /// A back-off delay as measured: 80 % of the stated delay to 150 % of it plus 1,000 ms.
        public static func delay(_ ms: Double) -> ClosedRange<Double> { 0.8 * ms...1.5 * ms + 1000 }

        /// A gap between two keepalives: 80 % to 120 % of the interval, plus 1,000 ms late.
        public static func keepaliveGap(_ ms: Double) -> ClosedRange<Double> { 0.8 * ms...1.2 * ms + 1000 }

        public static func delay(_ ms: EpochMillis) -> ClosedRange<EpochMillis> { whole(delay(Double(ms))) }
        public static func keepaliveGap(_ ms: EpochMillis) -> ClosedRange<EpochMillis> { whole(keepaliveGap(Double(ms))) }

        private static func whole(_ range: ClosedRange<Double>) -> ClosedRange<EpochMillis> {
            EpochMillis(range.lowerBound.rounded(.up))...EpochMillis(range.upperBound.rounded(.down))
        }
    }

    /// The keepalive (counted from 1) that broke the rule, or the one that never came.
    public struct Breach: Sendable, Hashable {
        public var keepalive: Int
        public var at: EpochMillis
        public var violation: Violation
    }

    private var machine: SignalingConnectionMachine
    /// Observed time plus `skew` is the machine's time.
    private var skew: EpochMillis = 0
    /// When the latest keepalive was sent, or the connection opened (observed time).
    private var previous: EpochMillis
    private var sent = 0
    private let earliestGap: EpochMillis
    /// The interval as a report states it: the client's, or the Spec's range.
    private let interval: String
    public private(set) var breach: Breach?

    /// `policy`: the client's stated interval and unanswered limit. A client that states no
    /// interval may use any the Spec allows: pass `intervalStated: false` and the longest
    /// interval; the early side is then judged against the shortest.
    public init(policy: SignalingConnectionMachine.Policy, intervalStated: Bool = true, openedAt: EpochMillis) {
        machine = SignalingConnectionMachine(policy: policy)
        _ = machine.step(.start(at: openedAt))
        _ = machine.step(.opened(at: openedAt))
        previous = openedAt
        let bounds = SignalingConnectionMachine.Policy.keepaliveBounds
        earliestGap = Tolerance.keepaliveGap(intervalStated ? policy.keepaliveInterval : bounds.lowerBound).lowerBound
        interval = intervalStated ? "\(policy.keepaliveInterval) ms" : "\(bounds.lowerBound) to \(bounds.upperBound) ms"
    }

    /// Keepalives sent so far.
    public var keepalives: Int { sent }

    /// A frame of the relay's arrived on the connection (its pong among them).
    public mutating func heard(at time: EpochMillis) {
        guard breach == nil else { return }
        _ = machine.step(.heard(at: time + skew))
    }

    /// The client sent a keepalive at `time`.
    public mutating func keepalive(at time: EpochMillis) {
        guard breach == nil, let due = machine.nextDeadline else { return }
        sent += 1
        let gap = time - previous
        if gap > latestGap || (sent > 1 && gap < earliestGap) {
            return fail(at: time, expected: owed, found: "\(gap) ms")
        }
        let unanswered = unansweredCount
        // The keepalive's time is the machine's deadline: its next one is due an interval later.
        skew = due - time
        previous = time
        if machine.step(.tick(at: due)).actions.contains(where: { if case .drop = $0 { true } else { false } }) {
            fail(
                at: time,
                expected: "the connection taken for dead and dropped: \(unanswered) keepalive(s) in a row unanswered (the limit \(machine.policy.unansweredLimit)), nothing from the relay since",
                found: "keepalive \(sent) sent on it")
        }
    }

    /// The connection closed, or the watch ended, at `time`: a keepalive or a drop that was due
    /// by then and did not come.
    public mutating func silence(until time: EpochMillis) {
        guard breach == nil, time - previous > latestGap else { return }
        sent += 1
        if unansweredCount >= machine.policy.unansweredLimit {
            return fail(
                at: time, expected: "the connection dropped within \(latestGap) ms of keepalive \(sent - 1) (\(unansweredCount) in a row unanswered)",
                found: "still open \(time - previous) ms later")
        }
        fail(at: time, expected: owed, found: "none for \(time - previous) ms")
    }

    private var latestGap: EpochMillis { Tolerance.keepaliveGap(machine.policy.keepaliveInterval).upperBound }

    /// What keepalive `sent` owed, with the window it was judged in.
    private var owed: String {
        sent == 1
            ? "keepalive 1 at most \(interval) after the connection opened (0...\(latestGap) ms)"
            : "keepalive \(sent) \(interval) after the one before (\(earliestGap)...\(latestGap) ms)"
    }

    private var unansweredCount: Int {
        if case .open(_, let unanswered) = machine.state { return unanswered }
        return 0
    }

    private mutating func fail(at time: EpochMillis, expected: String, found: String) {
        breach = Breach(keepalive: sent, at: time, violation: Violation(rule: PairingRule.keepaliveInterval, path: .root, expected: expected, found: found))
    }
}
