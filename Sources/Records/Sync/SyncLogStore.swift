import WireCore

/// The app's SyncLog (seed 001 §3) as a machine: entries are appended as they are written,
/// a malformed one is refused (REC-SLOG-001), and each launch removes those older than 30 days
/// (REC-SLOG-002, `SyncLogRetention`).
public struct SyncLogStore: Sendable {
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

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .append(let document):
            do throws(Violation) {
                entries.append(try SyncLogDocument.decode(document))
                return []
            } catch {
                return [.drop(error)]
            }
        case .launch(let now):
            let kept = SyncLogRetention.kept(entries, now: now)
            let removed = entries.filter { entry in !kept.contains(entry) }
            entries = kept
            return removed.isEmpty ? [] : [.prune(ids: removed.map(\.id))]
        }
    }
}
