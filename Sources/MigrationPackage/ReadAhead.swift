import Foundation

/// Unpack's third lane: fills batches on a thread of its own (reading and opening the envelope's
/// segments) while the caller writes the batch before. With the envelope opened on the caller's
/// thread, writing waited for every decrypt (perf: opening and its copies were a seventh of
/// unpack, the kernel's copy into page cache half). At most `depth` batches exist at once, each
/// allocated once, so memory stays flat however long the stream is.
final class ReadAhead: @unchecked Sendable {
    /// Appends the next bytes to the (emptied) batch; returns false once nothing follows.
    /// Runs on the read-ahead thread only.
    typealias Fill = (inout Data) throws -> Bool

    private let fill: Fill
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var free: [Data]
    private var ready: [Data] = []
    private var ended = false
    private var failure: (any Error)?
    private var cancelled = false
    private var exited = false

    /// Starts filling at once. `capacity`: the bytes a batch may reach.
    init(depth: Int, capacity: Int, fill: @escaping Fill) {
        self.fill = fill
        free = (0..<depth).map { _ in
            var batch = Data()
            batch.reserveCapacity(capacity)
            return batch
        }
        Thread { self.run() }.start()
    }

    /// The next batch in order; nil after the last. Throws what `fill` threw, after every batch
    /// filled before it was handed out. Hand each batch back with `recycle`.
    func next() throws -> Data? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !ended { condition.wait() }
        if !ready.isEmpty { return ready.removeFirst() }
        if let failure { throw failure }
        return nil
    }

    /// Blocks until filling has stopped (the last batch, a failure, or `close`), or `deadline`
    /// passed; returns whether it stopped. Lets a caller (a test) order its reads after the
    /// failure was recorded without guessing a delay.
    func waitUntilEnded(before deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !ended && !exited {
            if !condition.wait(until: deadline) { return ended || exited }
        }
        return true
    }

    func recycle(_ batch: Data) {
        condition.lock()
        free.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    /// Stops filling and returns once the thread no longer touches anything `fill` captured.
    func close() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !cancelled, !ended {
            while free.isEmpty && !cancelled { condition.wait() }
            if cancelled { break }
            var batch = free.removeLast()
            condition.unlock()
            batch.removeAll(keepingCapacity: true)
            let outcome = Result { try fill(&batch) }
            condition.lock()
            switch outcome {
            case .success(let more):
                ready.append(batch)
                ended = !more
            case .failure(let error):
                failure = error
                ended = true
            }
            condition.broadcast()
        }
        exited = true
        condition.broadcast()
        condition.unlock()
    }
}
