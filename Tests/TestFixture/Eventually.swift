import Foundation

/// The one way the tests wait for something outside the test process: a bounded wait for the
/// event they need (a process gone, a log line written, a server listening), checked at short
/// intervals, instead of sleeping a guess, which a loaded machine outruns.
extension Fixture {
    /// Whether `condition` holds within `seconds`, checked every 20 ms; suspends rather than
    /// blocking a pool thread.
    package static func eventually(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
        await first(within: seconds, every: .milliseconds(20)) { condition() ? true : nil } ?? false
    }

    /// The first value `attempt` gives within `seconds`, tried every `every` (a server that is
    /// still starting refuses connections for a while); nil past the limit or when cancelled.
    package static func first<T>(within seconds: Double = 10, every: Duration = .milliseconds(100), _ attempt: () async -> T?) async -> T? {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while !Task.isCancelled {
            if let value = await attempt() { return value }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: every)
        }
        return nil
    }
}
