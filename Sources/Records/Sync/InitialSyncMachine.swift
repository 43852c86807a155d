import WireCore

/// The initial-sync decision flow of seed 004 §4.1 and §5 as a sans-I/O machine: a reinstall
/// restores the purchase first; only a PRO user's iCloud account is asked, then the private
/// database; found records are restored or deleted by the user's choice; failed operations are
/// retried with exponential backoff (§7).
public struct InitialSyncMachine: Sendable {
    public enum State: String, Sendable {
        case start, checkingPurchase, checkingAccount, querying, awaitingChoice, restoring, restoreFailed, deletingCloud
        case waitingRetry, ready, localOnly, failed
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
        case timer(at: EpochMillis)
    }

    public enum Action: Sendable, Hashable {
        case perform(Operation)
        case promptRestore
        case promptRetryOrDelete
        case uploadLocal
        case setTimer(at: EpochMillis)
        case showError(String)
        /// The event means nothing in this state and changed nothing (REC-INIT-001): said by the
        /// machine, so an edge or a vector need not infer it from an empty answer.
        case ignored
    }

    /// Attempts of one operation before giving up; delays 1, 2, 4, 8, 16 s between them (REC-INIT-002).
    public static let maxAttempts = 6
    public static func delay(afterFailure attempt: Int) -> EpochMillis { min(60_000, 1000 << (attempt - 1)) }

    public private(set) var state: State = .start
    /// Failures of the current operation so far.
    public private(set) var failures = 0
    private var operation: Operation?
    private var resume: State = .start

    public init() {}

    public mutating func handle(_ event: Event) -> [Action] {
        switch (state, event) {
        case (.start, .launched(let reinstall, _)):
            // §5: a first install starts normally, no iCloud query; a reinstall restores the purchase first.
            guard reinstall else {
                state = .localOnly
                return []
            }
            return begin(.restorePurchases, in: .checkingPurchase)
        case (.localOnly, .proPurchased):
            return begin(.fetchAccountStatus, in: .checkingAccount)
        case (.checkingPurchase, .purchaseRestored(let pro, _)):
            guard pro else {
                state = .localOnly
                return []
            }
            return begin(.fetchAccountStatus, in: .checkingAccount)
        case (.checkingAccount, .accountStatus(let available, _)):
            guard available else {
                state = .failed
                return [.showError("icloud-account-unavailable")]
            }
            return begin(.queryRecords, in: .querying)
        case (.querying, .queryResult(let found, _)):
            if found {
                state = .awaitingChoice
                return [.promptRestore]
            }
            // §4.1: nothing in iCloud: the local data is the initial data.
            state = .ready
            return [.uploadLocal]
        case (.awaitingChoice, .userChoice(let choice, _)), (.restoreFailed, .userChoice(let choice, _)):
            // A choice the prompt did not offer changes nothing.
            if ["restore", "retry"].contains(choice) { return begin(.fetchAllRecords, in: .restoring) }
            if ["discard", "delete"].contains(choice) { return begin(.deleteCloudRecords, in: .deletingCloud) }
            return [.ignored]
        case (.restoring, .succeeded):
            state = .ready
            return []
        case (.restoring, .failed):
            // §4.1: a failed restore offers retry or deleting the iCloud data.
            state = .restoreFailed
            return [.promptRetryOrDelete]
        case (.deletingCloud, .succeeded):
            state = .ready
            return [.uploadLocal]
        case (.checkingPurchase, .failed(let at)), (.checkingAccount, .failed(let at)), (.querying, .failed(let at)),
            (.deletingCloud, .failed(let at)):
            failures += 1
            guard failures < Self.maxAttempts else {
                state = .failed
                return [.showError("sync-unavailable")]
            }
            resume = state
            state = .waitingRetry
            return [.setTimer(at: at + Self.delay(afterFailure: failures))]
        case (.waitingRetry, .timer):
            state = resume
            return operation.map { [.perform($0)] } ?? []
        default:
            // Ignored (seed 004 §4.1): a result of an operation that is not under way, a choice
            // with no prompt, a timer with no retry pending; `ready` and `failed` end the flow.
            // (12 states by 9 events: the pairs are too many for the compiler to check a list.)
            return [.ignored]
        }
    }

    private mutating func begin(_ op: Operation, in next: State) -> [Action] {
        if op != operation { failures = 0 }
        operation = op
        state = next
        return [.perform(op)]
    }
}
