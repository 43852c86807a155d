import WireCore

/// MIG-PIN-003: a receiver that keeps being locked out waits longer and longer before it shows
/// a new PIN. Five guesses per session are a bound only if sessions are; a receiver that starts
/// a new session (a new PIN) at once after a lock gives a guessing sender 5 guesses per
/// reconnect: about 12,000 in 15 s here, the whole PIN space in about 20 minutes. Sans-I/O:
/// the edge reports how sessions ended and asks when it may start the next one.
public struct PINLockout: Machine, Hashable {
    /// The wait after the first locked session (the Spec's 30 s; shorter only in tests); it
    /// doubles with each further one in a row, up to `longestWait`.
    public let firstWait: EpochMillis
    public static let longestWait: EpochMillis = 3_600_000
    /// Wrong PINs a session takes before it locks (MIG-PIN-002); both machines count to it.
    public static let attemptsPerSession = 5
    /// The Spec's wait after one locked session.
    public static let standardFirstWait: EpochMillis = 30_000

    public enum SessionOutcome: String, Sendable, Hashable, CaseIterable {
        /// Five wrong PINs (MIG-PIN-002).
        case locked
        /// The right PIN was entered: whatever happened after, the lock count starts over.
        case pinAccepted = "pin-accepted"
        /// Ended before the PIN was settled (a dropped connection): changes nothing.
        case other
    }

    public enum Event: Sendable, Hashable {
        case sessionEnded(SessionOutcome, at: EpochMillis)
        /// The receiver would start a session (show a PIN) now.
        case sessionWanted(at: EpochMillis)
    }

    public enum Action: Sendable, Hashable {
        case startSession
        /// Not before `until` (MIG-PIN-003).
        case wait(until: EpochMillis)
    }

    /// Locked sessions since the last accepted PIN.
    public private(set) var lockedInARow = 0
    /// The earliest time the next session may show a PIN.
    public private(set) var notBefore: EpochMillis = 0

    public init(firstWait: EpochMillis = Self.standardFirstWait) {
        self.firstWait = firstWait
    }

    public mutating func step(_ event: Event) -> Step<Action> {
        switch event {
        case .sessionEnded(.locked, let at):
            lockedInARow += 1
            notBefore = at + wait(afterLocks: lockedInARow)
            return []
        case .sessionEnded(.pinAccepted, _):
            lockedInARow = 0
            notBefore = 0
            return []
        case .sessionEnded(.other, _):
            return .ignored("the session ended before its PIN was settled")
        case .sessionWanted(let at):
            return at < notBefore ? [.wait(until: notBefore)] : [.startSession]
        }
    }

    /// 30 s, 60 s, 120 s, ... at most an hour.
    public func wait(afterLocks count: Int) -> EpochMillis {
        guard count > 0 else { return 0 }
        let doublings = min(count - 1, 20)
        return min(Self.longestWait, firstWait << EpochMillis(doublings))
    }
}
