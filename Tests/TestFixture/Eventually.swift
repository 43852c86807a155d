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
    /// Time this waiter was not scheduled (a sleep that overran by more than a second: the
    /// concurrency pool's two threads were held by other tests) does not count, up to three
    /// times `seconds` in all: a starved waiter that wakes past its deadline would otherwise
    /// fail a peer that was never given the time either (a CI run lost a test that way).
    package static func first<T>(within seconds: Double = 10, every: Duration = .milliseconds(100), _ attempt: () async -> T?) async -> T? {
        let limit = Duration.milliseconds(Int64(seconds * 1000))
        let start = ContinuousClock.now
        var deadline = start + limit
        while !Task.isCancelled {
            if let value = await attempt() { return value }
            let before = ContinuousClock.now
            if before >= deadline { return nil }
            try? await Task.sleep(for: every)
            let overrun = ContinuousClock.now - before - every
            if overrun > .seconds(1) { deadline = min(deadline + overrun, start + limit * 3) }
        }
        return nil
    }

    /// Runs CPU-bound work on a thread of its own and waits for it without holding a thread of
    /// the concurrency pool: a test that computes for seconds on the pool's two threads starves
    /// every test waiting on a process or a socket (a hostile peer timed out waiting for a
    /// victim the starved test had not started). Not niced: at nice 19 the harness's half
    /// minute stretched over five beside the live suites, slowing them all that time.
    package static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
