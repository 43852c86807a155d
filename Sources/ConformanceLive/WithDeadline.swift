/// Runs `body`, cancelling it when `limit` passes: every live scenario, pairing and migration
/// alike, runs under one, so a peer that never answers ends its case, never the run.
func withDeadline<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw DeadlineExceeded(limit: limit)
        }
        return value
    }
}

struct DeadlineExceeded: Error {
    var limit: Duration
}
