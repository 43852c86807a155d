import Pairing
import WireCore

/// The one pending timer of a machine's edge (`set-timer`): arming it again replaces it.
struct FlowTimer {
    private var task: Task<Void, Never>?

    mutating func arm(at deadline: EpochMillis, now: EpochMillis, fire: @escaping @Sendable () async -> Void) {
        task?.cancel()
        task = Task {
            try? await Task.sleep(for: .milliseconds(max(0, deadline - now)))
            guard !Task.isCancelled else { return }
            await fire()
        }
    }

    mutating func cancel() {
        task?.cancel()
    }
}

extension FailureReason {
    /// How a dropped input is logged: rule, path, why.
    var logLine: String { "dropped: \(rule) at \(path.description.isEmpty ? "/" : path.description): \(detail)" }
}
