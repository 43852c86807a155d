import Crypto
import Foundation
import WireCore

/// The first of pack's two stages: on its own thread, reads the files in order and computes each
/// one's SHA-256 (for the manifest) and CRC-32 (for its zip header, which precedes its data),
/// while the caller's thread seals and writes the files already digested. It runs at most
/// `budget` bytes ahead, so the second read of a file still finds it in the page cache.
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
    private var failure: Error?
    private var ahead: Int64 = 0
    private var stopped = false

    init(sources: [URL], sizes: [Int64], budget: Int64 = 256 << 20) {
        self.sources = sources
        self.sizes = sizes
        self.budget = budget
        digests = Array(repeating: nil, count: sources.count)
    }

    func start() {
        Thread { self.run() }.start()
    }

    /// Entry `index`'s digest, once computed; the first failure when the stage stopped before it.
    func digest(_ index: Int) throws -> Digest {
        condition.lock()
        defer { condition.unlock() }
        while digests[index] == nil && failure == nil { condition.wait() }
        if let digest = digests[index] { return digest }
        throw failure!
    }

    /// The caller has written entry `index`: its bytes no longer count against the budget.
    func release(_ index: Int) {
        condition.lock()
        ahead -= sizes[index]
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the stage early (the caller failed or finished); safe to call more than once.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    private func run() {
        for index in sources.indices {
            condition.lock()
            while ahead >= budget && !stopped { condition.wait() }
            let stop = stopped
            condition.unlock()
            if stop { return }
            let result = Result { try digest(of: sources[index], size: sizes[index]) }
            condition.lock()
            switch result {
            case .success(let digest):
                digests[index] = digest
                ahead += sizes[index]
            case .failure(let error):
                failure = error
                stopped = true
            }
            condition.broadcast()
            condition.unlock()
            if case .failure = result { return }
        }
    }

    private func digest(of source: URL, size: Int64) throws -> Digest {
        let reader = try FileReader(source)
        var hasher = SHA256()
        var crc = CRC32()
        var read: Int64 = 0
        while case let chunk = try reader.read(1 << 20), !chunk.isEmpty {
            // A stop ends a long file's read too, not only the next file's.
            if isStopped { throw CancellationError() }
            read += Int64(chunk.count)
            guard read <= size else { throw PackageError.storeChanged(path: source.path) }
            hasher.update(data: chunk)
            crc.update(chunk)
        }
        guard read == size else { throw PackageError.storeChanged(path: source.path) }
        return Digest(crc: crc.value, sha256: hasher.finalize().hexEncoded)
    }
}
