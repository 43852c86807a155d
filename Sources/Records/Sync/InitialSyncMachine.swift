import WireCore

/// The initial-sync decision flow of seed 004 §4.1 and §5 as a sans-I/O machine: a reinstall
/// restores the purchase first; only a PRO user's iCloud account is asked, then the private
/// database; found records are restored or deleted by the user's choice; failed operations are
/// retried with exponential backoff (§7).
public struct InitialSyncMachine: TimedMachine {
    public enum State: Sendable, Hashable {
        case start, checkingPurchase, checkingAccount, querying, awaitingChoice, restoring, restoreFailed, deletingCloud
        /// `operation` failed and is tried again at `at` (REC-INIT-002).
        case waitingRetry(operation: Operation, at: EpochMillis)
        case ready, localOnly, failed

        /// The state's name in the Spec and the vectors.
        public var name: String {
            switch self {
            case .start: "start"
            case .checkingPurchase: "checkingPurchase"
            case .checkingAccount: "checkingAccount"
            case .querying: "querying"
            case .awaitingChoice: "awaitingChoice"
            case .restoring: "restoring"
            case .restoreFailed: "restoreFailed"
            case .deletingCloud: "deletingCloud"
            case .waitingRetry: "waitingRetry"
            case .ready: "ready"
            case .localOnly: "localOnly"
            case .failed: "failed"
            }
        }
    }

    public enum Operation: String, Sendable {
        case restorePurchases = "restore-purchases"
        case fetchAccountStatus = "fetch-account-status"
        case queryRecords = "query-records"
        case fetchAllRecords = "fetch-all-records"
        case deleteCloudRecords = "delete-cloud-records"
    }

    public enum Event: Sendable, Hashable {
        case launched(reinstall: Bool, at: EpochMillis)
        case proPurchased(at: EpochMillis)
        case purchaseRestored(pro: Bool, at: EpochMillis)
        case accountStatus(available: Bool, at: EpochMillis)
        case queryResult(found: Bool, at: EpochMillis)
        case userChoice(String, at: EpochMillis)
        case succeeded(at: EpochMillis)
        case failed(at: EpochMillis)
        case tick(at: EpochMillis)
    }

    public enum Action: Sendable, Hashable {
        case perform(Operation)
        case promptRestore
        case promptRetryOrDelete
        case uploadLocal
        case showError(String)
        /// The event means nothing in this state and changed nothing (REC-INIT-001): said by the
        /// machine, so an edge or a vector need not infer it from an empty answer.
        case ignored
    }

    /// Attempts of one operation before giving up; delays 1, 2, 4, 8, 16 s between them (REC-INIT-002).
    public static let maxAttempts = 6
    public static func delay(afterFailure attempt: Int) -> EpochMillis { min(60_000, 1000 << (attempt - 1)) }

    public private(set) var state: State = .start
    /// Failures of the operation begun last, so far.
    public private(set) var failures = 0

    public init() {}

    /// REC-INIT-002: when the failed operation is tried again.
    public var nextDeadline: EpochMillis? {
        guard case .waitingRetry(_, let at) = state else { return nil }
        return at
    }

    public static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    /// Every (state, event) pair is answered by name, state by state; `ignored` where the event
    /// means nothing (seed 004 §4.1): a result of an operation that is not under way, a choice
    /// with no prompt; `ready` and `failed` end the flow. A tick is the edge telling the time, not
    /// an event that can come at the wrong moment: one with nothing due is answered with nothing.
    public mutating func step(_ event: Event) -> Step<Action> {
        switch state {
        case .start, .localOnly, .checkingPurchase, .checkingAccount, .querying: return stepBeforeData(event)
        case .awaitingChoice, .restoreFailed, .restoring, .deletingCloud, .waitingRetry, .ready, .failed: return stepWithData(event)
        }
    }

    /// Before the flow knows whether iCloud holds data: the purchase, the account, the query.
    private mutating func stepBeforeData(_ event: Event) -> Step<Action> {
        switch state {
        case .start:
            switch event {
            case .launched(let reinstall, _):
                // §5: a first install starts normally, no iCloud query; a reinstall restores the purchase first.
                guard reinstall else {
                    state = .localOnly
                    return []
                }
                return begin(.restorePurchases)
            case .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .succeeded, .failed: return Self.notNow
            case .tick: return .ignored("nothing is due")
            }
        case .localOnly:
            switch event {
            case .proPurchased: return begin(.fetchAccountStatus)
            case .launched, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .succeeded, .failed: return Self.notNow
            case .tick: return .ignored("nothing is due")
            }
        case .checkingPurchase:
            switch event {
            case .purchaseRestored(let pro, _):
                guard pro else {
                    state = .localOnly
                    return []
                }
                return begin(.fetchAccountStatus)
            case .failed(let at): return retryLater(.restorePurchases, at)
            case .launched, .proPurchased, .accountStatus, .queryResult, .userChoice, .succeeded: return Self.notNow
            case .tick: return .ignored("nothing is due")
            }
        case .checkingAccount:
            switch event {
            case .accountStatus(let available, _):
                guard available else {
                    state = .failed
                    return [.showError("icloud-account-unavailable")]
                }
                return begin(.queryRecords)
            case .failed(let at): return retryLater(.fetchAccountStatus, at)
            case .launched, .proPurchased, .purchaseRestored, .queryResult, .userChoice, .succeeded: return Self.notNow
            case .tick: return .ignored("nothing is due")
            }
        case .querying:
            switch event {
            case .queryResult(let found, _):
                if found {
                    state = .awaitingChoice
                    return [.promptRestore]
                }
                // §4.1: nothing in iCloud: the local data is the initial data.
                state = .ready
                return [.uploadLocal]
            case .failed(let at): return retryLater(.queryRecords, at)
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .userChoice, .succeeded: return Self.notNow
            case .tick: return .ignored("nothing is due")
            }
        case .awaitingChoice, .restoreFailed, .restoring, .deletingCloud, .waitingRetry, .ready, .failed:
            return stepWithData(event)
        }
    }

    /// Once the query has answered: the user's choice, the restore or the deletion, the retries, the end.
    private mutating func stepWithData(_ event: Event) -> Step<Action> {
        switch state {
        case .start, .localOnly, .checkingPurchase, .checkingAccount, .querying:
            return stepBeforeData(event)
        case .awaitingChoice, .restoreFailed:
            switch event {
            case .userChoice(let choice, _):
                // A choice the prompt did not offer changes nothing.
                if ["restore", "retry"].contains(choice) { return begin(.fetchAllRecords) }
                if ["discard", "delete"].contains(choice) { return begin(.deleteCloudRecords) }
                return Self.notNow
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .succeeded, .failed: return Self.notNow
            case .tick: return .ignored("nothing is due")
            }
        case .restoring:
            switch event {
            case .succeeded:
                state = .ready
                return []
            case .failed:
                // §4.1: a failed restore offers retry or deleting the iCloud data.
                state = .restoreFailed
                return [.promptRetryOrDelete]
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice: return Self.notNow
            case .tick: return .ignored("nothing is due")
            }
        case .deletingCloud:
            switch event {
            case .succeeded:
                state = .ready
                return [.uploadLocal]
            case .failed(let at): return retryLater(.deleteCloudRecords, at)
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice: return Self.notNow
            case .tick: return .ignored("nothing is due")
            }
        case .waitingRetry(let operation, let due):
            switch event {
            case .tick(let at):
                guard at >= due else { return .ignored("before the retry is due") }
                state = Self.performing(operation)
                return [.perform(operation)]
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .succeeded, .failed: return Self.notNow
            }
        case .ready, .failed:
            switch event {
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .succeeded, .failed: return Self.notNow
            case .tick: return .ignored("nothing is due")
            }
        }
    }

    /// An event that means nothing in this state: the vectors' `ignored` action, and said so.
    private static let notNow = Step<Action>([.ignored], .ignored("the event means nothing in this state (seed 004 §4.1)"))

    /// REC-INIT-002: the operation under way failed; it is tried again after the backoff, or the
    /// flow gives up after `maxAttempts`.
    private mutating func retryLater(_ operation: Operation, _ at: EpochMillis) -> Step<Action> {
        failures += 1
        guard failures < Self.maxAttempts else {
            state = .failed
            return [.showError("sync-unavailable")]
        }
        state = .waitingRetry(operation: operation, at: at + Self.delay(afterFailure: failures))
        return []
    }

    /// Begins `op` afresh: its failures count from zero (a retry after the backoff continues it).
    private mutating func begin(_ op: Operation) -> Step<Action> {
        failures = 0
        state = Self.performing(op)
        return [.perform(op)]
    }

    /// The state in which `op` is under way.
    static func performing(_ op: Operation) -> State {
        switch op {
        case .restorePurchases: .checkingPurchase
        case .fetchAccountStatus: .checkingAccount
        case .queryRecords: .querying
        case .fetchAllRecords: .restoring
        case .deleteCloudRecords: .deletingCloud
        }
    }
}
