import Foundation

/// What a test heard, in order (lines from a performer, frames from a socket), and the one way
/// the in-process tests wait for a line: a continuation resumed when the line arrives, neither
/// polling nor sleeping a guess. A waiter whose task is cancelled (a suite's time limit) is
/// answered nil, so a line that never comes fails the test instead of hanging it.
package final class Heard: @unchecked Sendable {
    private struct Waiter {
        let id: Int
        let match: @Sendable (String) -> Bool
        let continuation: CheckedContinuation<String?, Never>
    }

    private let lock = NSLock()
    private var lines: [String] = []
    private var waiters: [Waiter] = []
    private var nextId = 0

    package init() {}

    package var all: [String] { lock.withLock { lines } }

    package func add(_ line: String) {
        let ready: [Waiter] = lock.withLock {
            lines.append(line)
            let ready = waiters.filter { $0.match(line) }
            waiters.removeAll { $0.match(line) }
            return ready
        }
        ready.forEach { $0.continuation.resume(returning: line) }
    }

    /// The first line (heard already, or yet to come) that `match` accepts; nil once cancelled.
    package func first(where match: @escaping @Sendable (String) -> Bool) async -> String? {
        let id = lock.withLock { nextId += 1; return nextId }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: String?? = lock.withLock {
                    if let hit = lines.first(where: match) { return .some(hit) }
                    if Task.isCancelled { return .some(nil) }
                    waiters.append(Waiter(id: id, match: match, continuation: continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let gone = lock.withLock {
                let gone = waiters.filter { $0.id == id }
                waiters.removeAll { $0.id == id }
                return gone
            }
            gone.forEach { $0.continuation.resume(returning: nil) }
        }
    }

    package func first(containing text: String) async -> String? { await first { $0.contains(text) } }

    /// Returns once `line` itself has been heard (or the task is cancelled).
    package func seen(_ line: String) async { _ = await first { $0 == line } }
}

/// Work that runs until its task is cancelled, and no longer (spawned work a test expects the
/// host to cancel): a stream that never yields, where a sleep would name a length that means nothing.
package func untilCancelled() async {
    let (stream, continuation) = AsyncStream<Never>.makeStream()
    for await _ in stream {}
    continuation.finish()  // held to here: a stream whose continuation is gone may end
}
