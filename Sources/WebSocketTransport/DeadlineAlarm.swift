import Foundation
import WireCore

/// Wakes an edge when its machine next needs the clock (its `nextDeadline`, as quinn-proto's
/// `poll_timeout`): the one timer every peer uses, set after every event. One sleeping task;
/// setting another deadline replaces it, setting the same one keeps it, and once it has rung the
/// same deadline arms it again (the clock may not have reached it yet). The edge feeds the
/// machine its tick when `ring` runs; the deadline the tick leads to never cancels that ring.
public final class DeadlineAlarm: @unchecked Sendable {
    private let lock = NSLock()
    private var armed: EpochMillis?
    private var task: Task<Void, Never>?

    public init() {}

    /// Sleeps until `deadline` (nothing when nil) and then runs `ring`.
    public func set(_ deadline: EpochMillis?, now: EpochMillis, ring: @escaping @Sendable () async -> Void) {
        lock.withLock {
            guard deadline != armed else { return }
            task?.cancel()
            armed = deadline
            guard let deadline else {
                task = nil
                return
            }
            let delay = max(0, deadline - now)
            task = Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(delay))
                guard !Task.isCancelled, self?.rang(deadline) == true else { return }
                await ring()
            }
        }
    }

    /// Whether `deadline` is still the one armed; if so it is disarmed, and its task let go: the
    /// ring runs on, and the next `set` (from the tick it delivers) must not cancel what it sends.
    private func rang(_ deadline: EpochMillis) -> Bool {
        lock.withLock {
            guard armed == deadline else { return false }
            armed = nil
            task = nil
            return true
        }
    }

    public func cancel() {
        lock.withLock {
            task?.cancel()
            task = nil
            armed = nil
        }
    }

    deinit { task?.cancel() }
}
