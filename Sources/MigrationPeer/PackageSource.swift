import Crypto
import Foundation
import Migration
import MigrationPackage
import NIOCore

/// The sender's package on disk, read chunk by chunk: memory holds one chunk, never the file.
public struct PreparedPackage: Sendable {
    public var file: URL
    public var meta: ControlMessage.BackupMeta

    /// Sizes and hashes `file` (streaming) to announce it in `BackupMeta`.
    public init(file: URL, backupId: String, zipSize: Int64, chunkSize: Int, schemaVersion: Int64, appVersion: String) throws {
        self.file = file
        meta = ControlMessage.BackupMeta(
            backupId: backupId, fileSize: try FileSystem.size(of: file), chunkSize: chunkSize,
            envelopeSHA256: try FileSystem.sha256(of: file), zipSize: zipSize, schemaVersion: schemaVersion, appVersion: appVersion)
    }
}

/// Reads chunks of a prepared package as `BackupChunk` frames.
final class ChunkReader {
    let package: PreparedPackage
    private let handle: FileHandle

    init(_ package: PreparedPackage) throws {
        self.package = package
        handle = try FileHandle(forReadingFrom: package.file)
    }

    deinit { try? handle.close() }

    /// The frame in one buffer: the file's bytes are copied once, into it.
    func frame(_ index: Int) throws -> ByteBuffer {
        let meta = package.meta
        let offset = Int64(index) * Int64(meta.chunkSize)
        try handle.seek(toOffset: UInt64(offset))
        let data = try handle.read(upToCount: meta.chunkLength(index)) ?? Data()
        guard data.count == meta.chunkLength(index) else {
            throw TransferFailure("\(package.file.path) is shorter than announced (chunk \(index))")
        }
        let header = BackupChunk.header(
            backupId: meta.backupId, index: index, offset: offset, length: data.count, digest: Array(SHA256.hash(data: data)))
        var buffer = ByteBuffer()
        buffer.reserveCapacity(header.count + data.count)
        buffer.writeBytes(header)
        buffer.writeBytes(data)
        return buffer
    }
}
