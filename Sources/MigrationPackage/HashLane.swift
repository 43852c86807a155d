import Crypto
import Foundation

/// Unpack's hashing, beside the thread that writes: SHA-256 was a quarter of unpack's time on
/// one thread (perf), writing most of the rest. Each file's digest belongs to one of `lanes`
/// threads, which hashes its pieces in order; files take turns, so two files are hashed at once
/// while a third is written, and no thread waits for the one hash stream it shares (with one
/// lane, the writer waited for it after every 1 MiB: 0.56x openssl SHA-256 for 2 GiB).
///
/// A piece handed over stays valid until its `Hold` is done (released by the lane after hashing
/// it, or when the lane is stopped before reaching it); `drain` waits for every piece, and a
/// digest is read only after a `drain`.
final class HashLane: @unchecked Sendable {
    /// One file's running SHA-256, updated only by its lane's thread.
    final class Digest: @unchecked Sendable {
        fileprivate var hasher = SHA256()
        fileprivate let lane: Int
        fileprivate init(lane: Int) { self.lane = lane }
        /// On the caller's thread, for bytes that do not go through the lane.
        func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bufferPointer: bytes) }
        /// Call after `drain`.
        func finalize() -> String { hasher.finalize().hexEncoded }
    }

    /// Keeps a buffer's owner waiting: `release` runs once the writer and every lane that was
    /// handed a piece of it are done with it.
    final class Hold: @unchecked Sendable {
        private let lock = NSLock()
        private var users = 1
        private let release: @Sendable () -> Void

        /// Held by the caller (the writer) until its `done`.
        init(release: @escaping @Sendable () -> Void) { self.release = release }

        fileprivate func take() { lock.withLock { users += 1 } }

        func done() {
            let last = lock.withLock { () -> Bool in
                users -= 1
                return users == 0
            }
            if last { release() }
        }
    }

    private struct Job: @unchecked Sendable {
        var digest: Digest
        var bytes: UnsafeRawBufferPointer
        var hold: Hold?
    }

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var queues: [[Job]]
    private var busy: [Bool]
    private var stopped = false
    private var turn = 0

    init(lanes: Int = 2) {
        queues = Array(repeating: [], count: lanes)
        busy = Array(repeating: false, count: lanes)
        for lane in 0..<lanes { Thread { self.run(lane) }.start() }
    }

    /// A new file's digest, on the next lane in turn.
    func digest() -> Digest {
        condition.lock()
        defer { condition.unlock() }
        turn = (turn + 1) % queues.count
        return Digest(lane: turn)
    }

    /// `bytes` must stay valid until `hold` is done (or, without one, until the next `drain`).
    func hash(_ bytes: UnsafeRawBufferPointer, into digest: Digest, hold: Hold? = nil) {
        hold?.take()
        condition.lock()
        guard !stopped else {
            condition.unlock()
            hold?.done()
            return
        }
        queues[digest.lane].append(Job(digest: digest, bytes: bytes, hold: hold))
        condition.broadcast()
        condition.unlock()
    }

    /// Returns when every piece handed over is hashed.
    func drain() {
        condition.lock()
        while (busy.contains(true) || queues.contains { !$0.isEmpty }) && !stopped { condition.wait() }
        condition.unlock()
    }

    /// Ends the threads after the pieces under way; pieces not yet reached are released unhashed.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func run(_ lane: Int) {
        var taken: [Job] = []
        condition.lock()
        while true {
            while queues[lane].isEmpty && !stopped { condition.wait() }
            swap(&taken, &queues[lane])
            let hashing = !stopped
            busy[lane] = hashing
            condition.unlock()
            for job in taken {
                if hashing { job.digest.hasher.update(bufferPointer: job.bytes) }
                job.hold?.done()
            }
            taken.removeAll(keepingCapacity: true)
            condition.lock()
            busy[lane] = false
            condition.broadcast()
            if !hashing { break }
        }
        condition.unlock()
    }
}
