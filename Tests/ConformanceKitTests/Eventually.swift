import Foundation

extension Fixture {
    /// Whether `condition` holds within `seconds`, checked every 20 ms: a test waits for the event
    /// it needs (a process gone, a log line written) instead of sleeping a guess, which a loaded
    /// machine outruns.
    static func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }

    /// The same, for async tests: suspends rather than blocking a pool thread.
    static func eventually(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
