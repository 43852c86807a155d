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

    /// Every (state, event) pair is answered by name, state by state; `ignored` where the event
    /// means nothing (seed 004 §4.1): a result of an operation that is not under way, a choice
    /// with no prompt, a timer with no retry pending; `ready` and `failed` end the flow.
    public mutating func handle(_ event: Event) -> [Action] {
        switch state {
        case .start:
            switch event {
            case .launched(let reinstall, _):
                // §5: a first install starts normally, no iCloud query; a reinstall restores the purchase first.
                guard reinstall else {
                    state = .localOnly
                    return []
                }
                return begin(.restorePurchases, in: .checkingPurchase)
            case .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .succeeded, .failed, .timer: return [.ignored]
            }
        case .localOnly:
            switch event {
            case .proPurchased: return begin(.fetchAccountStatus, in: .checkingAccount)
            case .launched, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .succeeded, .failed, .timer: return [.ignored]
            }
        case .checkingPurchase:
            switch event {
            case .purchaseRestored(let pro, _):
                guard pro else {
                    state = .localOnly
                    return []
                }
                return begin(.fetchAccountStatus, in: .checkingAccount)
            case .failed(let at): return retryLater(at)
            case .launched, .proPurchased, .accountStatus, .queryResult, .userChoice, .succeeded, .timer: return [.ignored]
            }
        case .checkingAccount:
            switch event {
            case .accountStatus(let available, _):
                guard available else {
                    state = .failed
                    return [.showError("icloud-account-unavailable")]
                }
                return begin(.queryRecords, in: .querying)
            case .failed(let at): return retryLater(at)
            case .launched, .proPurchased, .purchaseRestored, .queryResult, .userChoice, .succeeded, .timer: return [.ignored]
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
            case .failed(let at): return retryLater(at)
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .userChoice, .succeeded, .timer: return [.ignored]
            }
        case .awaitingChoice, .restoreFailed:
            switch event {
            case .userChoice(let choice, _):
                // A choice the prompt did not offer changes nothing.
                if ["restore", "retry"].contains(choice) { return begin(.fetchAllRecords, in: .restoring) }
                if ["discard", "delete"].contains(choice) { return begin(.deleteCloudRecords, in: .deletingCloud) }
                return [.ignored]
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .succeeded, .failed, .timer: return [.ignored]
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
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .timer: return [.ignored]
            }
        case .deletingCloud:
            switch event {
            case .succeeded:
                state = .ready
                return [.uploadLocal]
            case .failed(let at): return retryLater(at)
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .timer: return [.ignored]
            }
        case .waitingRetry:
            switch event {
            case .timer:
                state = resume
                return operation.map { [.perform($0)] } ?? []
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .succeeded, .failed: return [.ignored]
            }
        case .ready, .failed:
            switch event {
            case .launched, .proPurchased, .purchaseRestored, .accountStatus, .queryResult, .userChoice, .succeeded, .failed, .timer: return [.ignored]
            }
        }
    }

    /// REC-INIT-002: the operation under way failed; it is tried again after the backoff, or the
    /// flow gives up after `maxAttempts`.
    private mutating func retryLater(_ at: EpochMillis) -> [Action] {
        failures += 1
        guard failures < Self.maxAttempts else {
            state = .failed
            return [.showError("sync-unavailable")]
        }
        resume = state
        state = .waitingRetry
        return [.setTimer(at: at + Self.delay(afterFailure: failures))]
    }

    private mutating func begin(_ op: Operation, in next: State) -> [Action] {
        if op != operation { failures = 0 }
        operation = op
        state = next
        return [.perform(op)]
    }
}
