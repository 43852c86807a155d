import WireCore

/// Uploads and downloads in the sizes seed 001 sets (REC-BATCH-001): at most 100 changed ideas
/// per save, oldest change first (ties by id), one save in flight; downloads in pages of 50.
public struct SyncQueue: Machine {
    public static let batchSize = 100
    public static let pageSize = 50

    public enum Event: Sendable, Hashable {
        case change(ideaId: String, at: EpochMillis)
        case flush
        case uploaded
        case uploadFailed
        case download(total: Int)
    }

    public enum Action: Sendable, Hashable {
        case upload([String])
        case fetchPage(offset: Int, limit: Int)
    }

    /// Changed ideas not yet saved: id → time of its latest change.
    public private(set) var pending: [String: EpochMillis] = [:]
    /// The batch being saved, with the change time each idea had when it was sent.
    public private(set) var inFlight: [String: EpochMillis] = [:]

    public init() {}

    public mutating func step(_ event: Event) -> Step<Action> {
        switch event {
        case .change(let id, let at):
            pending[id] = max(pending[id] ?? at, at)
            return []
        case .flush:
            return nextBatch()
        case .uploaded:
            // An idea changed again while its batch was in flight stays pending.
            for (id, sent) in inFlight where pending[id] == sent { pending[id] = nil }
            inFlight = [:]
            return Step(nextBatch().actions)
        case .uploadFailed:
            inFlight = [:]
            return []
        case .download(let total):
            return Step(stride(from: 0, to: max(0, total), by: Self.pageSize).map { .fetchPage(offset: $0, limit: min(Self.pageSize, total - $0)) })
        }
    }

    private mutating func nextBatch() -> Step<Action> {
        guard inFlight.isEmpty else { return .ignored("a batch is in flight") }
        guard !pending.isEmpty else { return .ignored("nothing is pending") }
        let batch = pending.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(Self.batchSize)
        inFlight = Dictionary(uniqueKeysWithValues: batch.map { ($0.key, $0.value) })
        return [.upload(batch.map(\.key))]
    }
}
