import Crypto
import Foundation
import WireCore

/// The first of pack's two stages: reads the files in order and computes each one's SHA-256 (for
/// the manifest) and CRC-32 (for its zip header, which precedes its data), on its own thread,
/// while the caller's thread seals and writes the files already digested. When the caller would
/// wait, it digests the next unclaimed file itself: hashing is the slower stage, and this way
/// both cores share it. At most `budget` bytes are digested and not yet written, so the second
/// read of a file still finds it in the page cache.
final class FileDigests: @unchecked Sendable {
    struct Digest {
        var crc: UInt32
        var sha256: String
    }

    private let sources: [URL]
    private let sizes: [Int64]
    private let budget: Int64
    // Everything below is guarded by `condition`.
    private let condition = NSCondition()
    private var digests: [Digest?]
    private var failures: [Int: Error] = [:]
    /// The next file neither thread has taken: files are taken in order.
    private var claimed = 0
    private var ahead: Int64 = 0
    /// No file is taken any more (a failure, or `stop`); files under way finish.
    private var closed = false
    /// `stop` was called: files under way end too.
    private var cancelled = false

    init(sources: [URL], sizes: [Int64], budget: Int64 = 256 << 20) {
        self.sources = sources
        self.sizes = sizes
        self.budget = budget
        digests = Array(repeating: nil, count: sources.count)
    }

    func start() {
        Thread { self.run() }.start()
    }

    /// Entry `index`'s digest, or the error its reading met. While another thread is digesting
    /// it, the caller digests the next untaken file instead of waiting.
    func digest(_ index: Int) throws -> Digest {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let digest = digests[index] { return digest }
            if let failure = failures[index] { throw failure }
            let next: Int
            if index >= claimed {
                // Nobody has it (taking is in order, so it is the next): take it, budget or not.
                guard !closed else { throw failures.min { $0.key < $1.key }?.value ?? CancellationError() }
                next = take()
            } else if !closed, ahead < budget, claimed < sources.count {
                next = take()
            } else {
                condition.wait()
                continue
            }
            digestUnlocked(next)
        }
    }

    /// The caller has written entry `index`: its bytes no longer count against the budget.
    func release(_ index: Int) {
        condition.lock()
        ahead -= sizes[index]
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the stage (the caller failed or finished): files under way stop at their next chunk.
    /// Safe to call more than once.
    func stop() {
        condition.lock()
        closed = true
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    private var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Takes the next file; call with the lock held.
    private func take() -> Int {
        defer { claimed += 1 }
        ahead += sizes[claimed]
        return claimed
    }

    /// Digests file `index` with the lock released, then records the outcome; call with the lock held.
    private func digestUnlocked(_ index: Int) {
        condition.unlock()
        let result = Result { try digest(of: sources[index], size: sizes[index]) }
        condition.lock()
        switch result {
        case .success(let digest): digests[index] = digest
        case .failure(let error):
            failures[index] = error
            closed = true
        }
        condition.broadcast()
    }

    private func run() {
        condition.lock()
        defer { condition.unlock() }
        while !closed && claimed < sources.count {
            if ahead < budget {
                digestUnlocked(take())
            } else {
                condition.wait()
            }
        }
    }

    private func digest(of source: URL, size: Int64) throws -> Digest {
        let reader = try FileReader(source)
        var hasher = SHA256()
        var crc = CRC32()
        var read: Int64 = 0
        while case let chunk = try reader.read(1 << 20), !chunk.isEmpty {
            // A stop ends a long file's read too, not only the next file's.
            if isCancelled { throw CancellationError() }
            read += Int64(chunk.count)
            guard read <= size else { throw PackageError.storeChanged(path: source.path) }
            hasher.update(data: chunk)
            crc.update(chunk)
        }
        guard read == size else { throw PackageError.storeChanged(path: source.path) }
        return Digest(crc: crc.value, sha256: hasher.finalize().hexEncoded)
    }
}
