import WireCore

/// The SyncState transitions of seed 001 §2 as a sans-I/O machine, for one idea.
///
///     new: pending, localVersion 0
///     local change:  pending, localVersion + 1, lastModifiedAt = at
///     sync success:  not pending, remoteVersion, cloudKitRecordName, lastSyncedAt = at, not obsolete
///     conflict:      lastConflictAt = at
///     30 days:       obsolete (REC-STATE-002)
///
/// Every sync outcome is also a `SyncLog` event, returned as an action.
public struct SyncStateMachine: TimedMachine {
    public enum Event: Sendable, Hashable {
        case localChange(at: EpochMillis)
        case syncSucceeded(remoteVersion: Int64, recordName: String, at: EpochMillis)
        case syncFailed(errorCode: Int64, at: EpochMillis)
        case retry(at: EpochMillis)
        case conflict(at: EpochMillis)
        case tick(at: EpochMillis)
    }

    public struct LogEvent: Sendable, Hashable {
        public var eventType: String
        public var at: EpochMillis
        public var errorCode: Int64?
    }

    public enum Action: Sendable, Hashable {
        /// Append this event to the SyncLog.
        case log(LogEvent)
        /// The idea's pending change is now obsolete (REC-STATE-002).
        case obsolete
        /// The event contradicts the state and was ignored (REC-STATE-001).
        case drop(String)
    }

    public static let obsoleteAfter: EpochMillis = 30 * 86_400_000

    public private(set) var state: SyncStateDocument
    public let createdAt: EpochMillis

    public init(ideaId: String, createdAt: EpochMillis) {
        self.createdAt = createdAt
        state = SyncStateDocument(
            ideaId: ideaId, localVersion: 0, remoteVersion: nil, cloudKitRecordName: nil, lastSyncedAt: nil, lastConflictAt: nil,
            lastModifiedAt: createdAt, isPendingSync: true, isObsolete: false)
    }

    /// REC-STATE-002: a pending change turns obsolete once more than 30 days have passed.
    public var nextDeadline: EpochMillis? {
        guard state.isPendingSync, !state.isObsolete else { return nil }
        return (state.lastSyncedAt ?? createdAt) + Self.obsoleteAfter + 1
    }

    public static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    public mutating func step(_ event: Event) -> Step<Action> {
        switch event {
        case .localChange(let at):
            state.localVersion += 1
            state.isPendingSync = true
            state.lastModifiedAt = at
            return []
        case .syncSucceeded(let remote, let name, let at):
            // A sync reports the version it saved: never one not made yet, never older than the last one.
            guard remote <= state.localVersion, remote >= (state.remoteVersion ?? 0) else {
                return [.drop("remote version \(remote) outside \(state.remoteVersion ?? 0)...\(state.localVersion)")]
            }
            state.remoteVersion = remote
            state.cloudKitRecordName = name
            state.lastSyncedAt = at
            state.isPendingSync = false
            state.isObsolete = false
            return [.log(LogEvent(eventType: "sync_success", at: at))]
        case .syncFailed(let code, let at):
            return [.log(LogEvent(eventType: "sync_failure", at: at, errorCode: code))]
        case .retry(let at):
            return [.log(LogEvent(eventType: "retry", at: at))]
        case .conflict(let at):
            state.lastConflictAt = at
            return [.log(LogEvent(eventType: "conflict", at: at))]
        case .tick(let at):
            // REC-STATE-002: pending changes unsynced for more than 30 days, counted from the last
            // sync or, for an idea never synced, from its creation (seed 001's markObsolete never
            // fires for those, since it needs a lastSyncedAt).
            if state.isPendingSync && !state.isObsolete && at - (state.lastSyncedAt ?? createdAt) > Self.obsoleteAfter {
                state.isObsolete = true
                return [.obsolete]
            }
            return .ignored("nothing is due")
        }
    }
}

/// SyncLog retention (seed 001 §3, REC-SLOG-002): at each launch, entries older than 30 days go.
public enum SyncLogRetention {
    public static func keeps(_ entry: SyncLogDocument, now: EpochMillis) -> Bool { now - entry.timestamp <= SyncStateMachine.obsoleteAfter }
}
