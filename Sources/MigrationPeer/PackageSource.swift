import Crypto
import Foundation
import Migration
import MigrationPackage
import NIOCore

/// The sender's package, read chunk by chunk: memory holds one chunk, never the package. Either
/// a file on disk (file-first), or sealed from the store as each chunk is asked for
/// (`StreamedPackage`, Spec migration.md §5.5); the wire is the same.
public struct PreparedPackage: Sendable {
    public enum Source: Sendable {
        case file(URL)
        case streamed(StreamedPackage)
    }

    /// Chunk digests are kept (32 bytes each) up to this many chunks: 8 MiB at most, a 256 GiB
    /// package in 1 MiB chunks. Larger packages hash each chunk as it is sent.
    public static let storedDigestLimit = 1 << 18

    public let source: Source
    public var meta: ControlMessage.BackupMeta
    /// Every chunk's SHA-256, 32 bytes each in index order, from the pass that computed
    /// `envelopeSHA256`: the file is read once before the transfer, and sending a chunk costs
    /// no hashing.
    let chunkDigests: [UInt8]?

    /// Sizes and hashes `file` in one streaming pass, to announce it in `BackupMeta`.
    public init(
        file: URL, backupId: String, zipSize: Int64, chunkSize: Int, schemaVersion: Int64, appVersion: String,
        storedDigestLimit: Int = PreparedPackage.storedDigestLimit
    ) throws {
        source = .file(file)
        let size = try FileSystem.size(of: file)
        let chunkCount = max(1, (size + Int64(chunkSize) - 1) / Int64(chunkSize))
        let keep = chunkCount <= storedDigestLimit
        var digests: [UInt8] = []
        if keep { digests.reserveCapacity(Int(chunkCount) * 32) }
        var whole = SHA256()
        var header: [UInt8]?
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        while let piece = try handle.read(upToCount: chunkSize), !piece.isEmpty {
            // MIG-META-002: the header travels in BackupMeta, so a wrong password shows before any chunk.
            if header == nil, piece.count >= EnvelopeHeader.length { header = [UInt8](piece.prefix(EnvelopeHeader.length)) }
            whole.update(data: piece)
            if keep { digests.append(contentsOf: SHA256.hash(data: piece)) }
        }
        chunkDigests = keep ? digests : nil
        meta = ControlMessage.BackupMeta(
            backupId: backupId, fileSize: size, chunkSize: chunkSize, envelopeSHA256: whole.finalize().hexEncoded, zipSize: zipSize,
            schemaVersion: schemaVersion, appVersion: appVersion, envelopeHeader: header)
    }

    /// A package streamed from the store: its chunks' digests are computed as they are sent.
    public init(streamed package: StreamedPackage, chunkSize: Int, schemaVersion: Int64, appVersion: String) {
        source = .streamed(package)
        chunkDigests = nil
        meta = ControlMessage.BackupMeta(
            backupId: package.backupId, fileSize: package.envelopeSize, chunkSize: chunkSize, envelopeSHA256: package.envelopeSHA256,
            zipSize: package.zipSize, schemaVersion: schemaVersion, appVersion: appVersion, envelopeHeader: package.header)
    }

    /// The same package in chunks of at most `limit` bytes (the receiver's `maxChunkSize`): a
    /// larger chunk is refused (MIG-META-001), so the sender cuts finer, at the cost of one more
    /// pass over a file (its stored chunk digests), and only then.
    public func chunked(atMost limit: Int) throws -> PreparedPackage {
        guard meta.chunkSize > limit else { return self }
        guard case .file(let file) = source else {
            // The envelope's digest does not depend on the cut, and no chunk digest is stored.
            var cut = self
            cut.meta = ControlMessage.BackupMeta(
                backupId: meta.backupId, fileSize: meta.fileSize, chunkSize: limit, envelopeSHA256: meta.envelopeSHA256, zipSize: meta.zipSize,
                schemaVersion: meta.schemaVersion, appVersion: meta.appVersion, envelopeHeader: meta.envelopeHeader)
            return cut
        }
        return try PreparedPackage(
            file: file, backupId: meta.backupId, zipSize: meta.zipSize, chunkSize: limit, schemaVersion: meta.schemaVersion,
            appVersion: meta.appVersion, storedDigestLimit: chunkDigests == nil ? 0 : Self.storedDigestLimit)
    }

    /// The digest of chunk `index` as `init` computed it, if kept.
    func storedDigest(_ index: Int) -> [UInt8]? {
        guard let chunkDigests, (index + 1) * 32 <= chunkDigests.count else { return nil }
        return Array(chunkDigests[index * 32..<(index + 1) * 32])
    }
}

/// Reads chunks of a prepared package as `BackupChunk` frames.
final class ChunkReader {
    let package: PreparedPackage
    private let handle: FileHandle?
    private let streamed: StreamedPackage.Reader?

    init(_ package: PreparedPackage) throws {
        self.package = package
        switch package.source {
        case .file(let file):
            handle = try FileHandle(forReadingFrom: file)
            streamed = nil
        case .streamed(let source):
            handle = nil
            streamed = source.reader()
        }
    }

    deinit { try? handle?.close() }

    /// The frame in one buffer: the chunk is read from the file straight into it, after room
    /// for the header, which is filled in once the digest is known.
    func frame(_ index: Int) throws -> ByteBuffer {
        let meta = package.meta
        let offset = Int64(index) * Int64(meta.chunkSize)
        let length = meta.chunkLength(index)
        let headerLength = BackupChunk.headerLength
        var buffer = ByteBufferAllocator().buffer(capacity: headerLength + length)
        buffer.moveWriterIndex(forwardBy: headerLength)
        let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { space in
            if let streamed {
                // Throws `storeChanged` when a file changed since the snapshot (MIG-XFER-008).
                try streamed.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: space[..<length]))
                return length
            }
            let fd = handle!.fileDescriptor
            var done = 0
            while done < length {
                let n = pread(fd, space.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                guard n > 0 else { break }
                done += n
            }
            return done
        }
        guard read == length else {
            throw TransferFailure("the package file is shorter than announced (chunk \(index))")
        }
        let digest = package.storedDigest(index)
            ?? buffer.withUnsafeReadableBytes { Array(SHA256.hash(data: UnsafeRawBufferPointer(rebasing: $0[headerLength...]))) }
        buffer.setBytes(BackupChunk.header(backupId: meta.backupId, index: index, offset: offset, length: length, digest: digest), at: 0)
        return buffer
    }
}
