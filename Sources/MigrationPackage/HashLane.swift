import Crypto
import Foundation

/// Unpack's second core: hashes the bytes the unpacking thread is writing, at the same time.
/// SHA-256 was a quarter of unpack's time on the one thread (perf); writing is most of the
/// rest. The caller hands over pieces of a buffer and calls `drain` before it reuses or frees
/// that buffer; a digest is read only after a `drain`.
final class HashLane: @unchecked Sendable {
    /// One file's running SHA-256, updated only by the lane's thread.
    final class Digest: @unchecked Sendable {
        fileprivate var hasher = SHA256()
        /// On the caller's thread, for bytes that do not go through the lane.
        func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bufferPointer: bytes) }
        /// Call after `drain`.
        func finalize() -> String { hasher.finalize().hexEncoded }
    }

    private struct Job: @unchecked Sendable {
        var digest: Digest
        var bytes: UnsafeRawBufferPointer
    }

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var busy = false
    private var stopped = false

    init() {
        Thread { self.run() }.start()
    }

    /// `bytes` must stay valid until the next `drain` returns.
    func hash(_ bytes: UnsafeRawBufferPointer, into digest: Digest) {
        condition.lock()
        jobs.append(Job(digest: digest, bytes: bytes))
        condition.broadcast()
        condition.unlock()
    }

    /// Returns when every piece handed over is hashed.
    func drain() {
        condition.lock()
        while (busy || !jobs.isEmpty) && !stopped { condition.wait() }
        condition.unlock()
    }

    /// Ends the thread (after the pieces under way).
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        var taken: [Job] = []
        condition.lock()
        while true {
            while jobs.isEmpty && !stopped { condition.wait() }
            if stopped { break }
            swap(&taken, &jobs)
            busy = true
            condition.unlock()
            for job in taken { job.digest.hasher.update(bufferPointer: job.bytes) }
            taken.removeAll(keepingCapacity: true)
            condition.lock()
            busy = false
            condition.broadcast()
        }
        condition.unlock()
    }
}
