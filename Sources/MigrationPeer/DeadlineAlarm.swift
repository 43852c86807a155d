import WireCore

/// Wakes an edge's event loop when its machine next needs the clock (the machine's
/// `nextDeadline`, as quinn-proto's `poll_timeout`): one sleeping task, armed again whenever
/// the deadline changes or the alarm has rung. The edge feeds `tick(at:)` when it rings.
struct DeadlineAlarm {
    private var armed: EpochMillis?
    private var task: Task<Void, Never>?

    /// Sleeps until `deadline` (nothing when nil) and then calls `ring`.
    mutating func set(_ deadline: EpochMillis?, now: EpochMillis, ring: @escaping @Sendable () -> Void) {
        guard deadline != armed else { return }
        task?.cancel()
        armed = deadline
        guard let deadline else {
            task = nil
            return
        }
        let delay = max(0, deadline - now)
        task = Task {
            try? await Task.sleep(for: .milliseconds(delay))
            if !Task.isCancelled { ring() }
        }
    }

    /// The alarm went off: the next `set` arms it again even for the same deadline (the clock
    /// may not have reached it yet).
    mutating func rang() { armed = nil }

    func cancel() { task?.cancel() }
}
