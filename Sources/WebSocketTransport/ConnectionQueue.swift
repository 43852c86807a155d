import Foundation

/// Upgraded connections in arrival order, for consumers that come and go: a sender serving one
/// session after another takes the next connection from here, and a connection that arrives
/// between two sessions waits for the next one instead of being lost. Cancelling a waiting
/// consumer ends its wait only; the queue goes on.
actor ConnectionQueue {
    private var ready: [WebSocketConnection] = []
    private var waiter: (id: UUID, continuation: CheckedContinuation<WebSocketConnection?, Never>)?
    private var finished = false

    func push(_ connection: WebSocketConnection) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: connection)
        } else {
            ready.append(connection)
        }
    }

    /// The listener closed: waiting and later consumers get nil.
    func finish() {
        finished = true
        resume(nil)
    }

    /// The next connection, or nil when the listener closed or the calling task was cancelled.
    /// One consumer at a time.
    func next() async -> WebSocketConnection? {
        if !ready.isEmpty { return ready.removeFirst() }
        if finished { return nil }
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: nil)
                } else {
                    precondition(waiter == nil, "one consumer at a time")
                    waiter = (id, continuation)
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private func cancel(_ id: UUID) {
        if waiter?.id == id { resume(nil) }
    }

    private func resume(_ connection: WebSocketConnection?) {
        let waiting = waiter
        waiter = nil
        waiting?.continuation.resume(returning: connection)
    }
}
