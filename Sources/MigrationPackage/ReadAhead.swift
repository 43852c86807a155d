import Foundation

/// Unpack's third lane: fills batches on a thread of its own (reading and opening the envelope's
/// segments) while the caller writes the batch before. With the envelope opened on the caller's
/// thread, writing waited for every decrypt (perf: opening and its copies were a seventh of
/// unpack, the kernel's copy into page cache half). At most `depth` batches exist at once, each
/// allocated once, so memory stays flat however long the stream is.
final class ReadAhead: @unchecked Sendable {
    /// Appends the next bytes to the (emptied) batch; returns false once nothing follows.
    /// Runs on the read-ahead thread only.
    typealias Fill = (Batch) throws -> Bool

    /// A buffer whose bytes stay where they are until it is handed back: the writer and the hash
    /// lanes read it in place, the lanes after the writer has moved on (a `Data`'s storage may
    /// not be pointed at beyond the closure that lent it).
    final class Batch: @unchecked Sendable {
        let capacity: Int
        private(set) var count = 0
        private let base: UnsafeMutableRawPointer

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(byteCount: max(capacity, 1), alignment: 16)
        }

        deinit { base.deallocate() }

        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

        func removeAll() { count = 0 }

        func append(_ more: UnsafeRawBufferPointer) {
            precondition(count + more.count <= capacity, "a batch's capacity is the most one fill appends")
            guard let source = more.baseAddress, !more.isEmpty else { return }
            (base + count).copyMemory(from: source, byteCount: more.count)
            count += more.count
        }
    }

    private let fill: Fill
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var free: [Batch]
    private var ready: [Batch] = []
    private var ended = false
    private var failure: (any Error)?
    private var cancelled = false
    private var exited = false

    /// Starts filling at once. `capacity`: the bytes a batch may reach.
    init(depth: Int, capacity: Int, fill: @escaping Fill) {
        self.fill = fill
        free = (0..<depth).map { _ in Batch(capacity: capacity) }
        Thread { self.run() }.start()
    }

    /// The next batch in order; nil after the last. Throws what `fill` threw, after every batch
    /// filled before it was handed out. Hand each batch back with `recycle`.
    func next() throws -> Batch? {
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

    /// Safe from any thread, and after `close`.
    func recycle(_ batch: Batch) {
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
            let batch = free.removeLast()
            condition.unlock()
            batch.removeAll()
            let outcome = Result { try fill(batch) }
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
