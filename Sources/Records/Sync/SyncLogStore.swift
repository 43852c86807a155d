import WireCore

/// The app's SyncLog (seed 001 §3) as a machine: entries are appended as they are written,
/// a malformed one is refused (REC-SLOG-001), and each launch removes those older than 30 days
/// (REC-SLOG-002, `SyncLogRetention`).
public struct SyncLogStore: Machine {
    public enum Event: Sendable {
        case append(JSONValue)
        case launch(at: EpochMillis)
    }

    public enum Action: Sendable, Hashable {
        /// The document was not a SyncLog entry; the violation says why.
        case drop(Violation)
        /// These entries (by id) expired at launch.
        case prune(ids: [String])
    }

    public private(set) var entries: [SyncLogDocument] = []

    public init() {}

    public mutating func step(_ event: Event) -> Step<Action> {
        switch event {
        case .append(let document):
            do throws(Violation) {
                entries.append(try SyncLogDocument.decode(document))
                return []
            } catch {
                return .refused(error, [.drop(error)])
            }
        case .launch(let now):
            // One pass: each entry kept or removed by the retention rule (a lookup of the kept
            // list per entry was quadratic in the log's length).
            var kept: [SyncLogDocument] = []
            var removed: [String] = []
            for entry in entries {
                if SyncLogRetention.keeps(entry, now: now) { kept.append(entry) } else { removed.append(entry.id) }
            }
            entries = kept
            return removed.isEmpty ? [] : [.prune(ids: removed)]
        }
    }
}
