import Foundation

/// Items in arrival order for one consumer at a time, who may come and go: the listener's
/// upgraded connections (a connection that arrives between two sessions waits for the next one)
/// and the runner's received frames. A consumer's wait ends with the next item, with nil when
/// the queue is finished, when the consumer's task is cancelled or when its timeout passes;
/// the queue itself goes on.
public actor WaitQueue<Element: Sendable> {
    private var ready: [Element] = []
    /// The first item not yet taken: taking moves it, never the items behind (a peer that
    /// floods frames faster than they are read made `removeFirst` quadratic).
    private var head = 0
    private var waiter: (id: UUID, continuation: CheckedContinuation<Element?, Never>)?
    private var finished = false

    public init() {}

    public func push(_ item: Element) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: item)
        } else {
            ready.append(item)
        }
    }

    /// Nothing more will come: waiting and later consumers get nil once the items are taken.
    public func finish() {
        finished = true
        end(waiter?.id)
    }

    /// The next item, or nil (finished, cancelled, or nothing within `timeout`).
    public func next(timeout: Duration? = nil) async -> Element? {
        if head < ready.count {
            let item = ready[head]
            head += 1
            if head > 64, head * 2 > ready.count {
                ready.removeFirst(head)
                head = 0
            }
            return item
        }
        if finished { return nil }
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                precondition(waiter == nil, "one consumer at a time")
                waiter = (id, continuation)
                if Task.isCancelled { end(id) }
                if let timeout {
                    Task {
                        try? await Task.sleep(for: timeout)
                        self.end(id)
                    }
                }
            }
        } onCancel: {
            Task { await self.end(id) }
        }
    }

    /// How many items arrived and are not taken yet.
    public var waiting: Int { ready.count - head }

    /// Items that arrived and were never taken.
    public func leftovers() -> [Element] {
        defer {
            ready.removeAll()
            head = 0
        }
        return Array(ready[head...])
    }

    /// Ends the wait `id` with nil, if it is still the one waiting.
    private func end(_ id: UUID?) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}
