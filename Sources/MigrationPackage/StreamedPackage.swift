import Crypto
import Foundation
import Migration
import WireCore

/// The package sent without being written (Spec migration.md §5.5): the envelope exists only as
/// the bytes of the chunk being sent, sealed from the store's files when the chunk is asked for,
/// and again, byte for byte, when it is asked for again. Before the first chunk one pass over the
/// store (`prepare`) takes the snapshot, computes what the zip's headers and the manifest need
/// (each file's CRC-32 and SHA-256) and the envelope's SHA-256 that `BackupMeta` announces. The
/// old phone needs no free space for the package; the wire is the file-first sender's.
public struct StreamedPackage: Sendable {
    public let backupId: String
    /// The zip's length (`BackupMeta.zipSize`).
    public let zipSize: Int64
    /// The envelope's length (`BackupMeta.fileSize`).
    public let envelopeSize: Int64
    /// The whole envelope's SHA-256 in lower-case hex (`BackupMeta.envelopeSHA256`).
    public let envelopeSHA256: String
    /// The envelope's 97-byte header (`BackupMeta.envelopeHeader`).
    public let header: [UInt8]
    public let brokenMedia: Int
    private let sealer: EnvelopeSealer
    private let content: ZipContent

    /// The pass before the first chunk: the same arguments, in the same order of random bytes,
    /// as `Packer.pack`, so the same store, randomness and time give the same envelope.
    /// `afterReading` sees each file after the pass read it, before its check.
    public static func prepare<R: RandomByteSource>(
        _ store: DeviceStore, password: String, options: Packer.Options = Packer.Options(), now: Int64, random: inout R,
        afterReading: (URL) -> Void = { _ in }
    ) throws -> StreamedPackage {
        let plan = try Packer.Plan(store, options: options, now: now, random: &random)
        let sealer = try plan.sealer(password: password, options: options, random: &random)
        let digest = EnvelopeDigest()
        let written = try plan.writer.write(through: sealer, to: digest.update, afterReading: afterReading)
        let content = ZipContent(
            layout: plan.writer.layout, sources: plan.writer.items.map(\.source), stamps: plan.writer.stamps, crcs: written.crcs,
            manifest: written.manifest)
        return StreamedPackage(
            backupId: plan.backupId, zipSize: plan.writer.length, envelopeSize: digest.length, envelopeSHA256: digest.finish(),
            header: sealer.header.encoded, brokenMedia: plan.broken.count, sealer: sealer, content: content)
    }

    /// A reader of this package's envelope; one per sending connection (it keeps a file open).
    public func reader() -> Reader { Reader(self) }

    /// The envelope at any offset. Keeps the segment sealed last: a chunk seldom ends where a
    /// segment does, and the next chunk starts in the same segment.
    public final class Reader {
        private let package: StreamedPackage
        private let open = ZipContent.OpenFile()
        private var plaintext = Data()
        private var frame: (index: UInt64, bytes: [UInt8])?

        init(_ package: StreamedPackage) {
            self.package = package
            plaintext.reserveCapacity(Int(package.sealer.header.segmentSize))
        }

        /// Fills `out` with the envelope's bytes from `offset`; throws `storeChanged` when a
        /// file they come from is no longer the one the package was planned from.
        public func read(at offset: Int64, into out: UnsafeMutableRawBufferPointer) throws {
            let header = package.sealer.header
            let frameStride = Int64(header.segmentSize) + Int64(EnvelopeHeader.frameOverhead)
            guard offset >= 0, offset + Int64(out.count) <= package.envelopeSize else {
                throw PackageError.io("bytes \(offset)..<\(offset + Int64(out.count)) lie outside the envelope's \(package.envelopeSize)")
            }
            var position = offset
            var filled = 0
            while filled < out.count {
                let source: ArraySlice<UInt8>
                if position < Int64(EnvelopeHeader.length) {
                    source = package.header[Int(position)...]
                } else {
                    let index = UInt64((position - Int64(EnvelopeHeader.length)) / frameStride)
                    let inFrame = Int((position - Int64(EnvelopeHeader.length)) % frameStride)
                    source = try sealed(index)[inFrame...]
                }
                let take = min(source.count, out.count - filled)
                source.withUnsafeBytes { out.baseAddress!.advanced(by: filled).copyMemory(from: $0.baseAddress!, byteCount: take) }
                filled += take
                position += Int64(take)
            }
        }

        /// Frame `index`, sealed from the zip's bytes now.
        private func sealed(_ index: UInt64) throws -> [UInt8] {
            if let frame, frame.index == index { return frame.bytes }
            let header = package.sealer.header
            let start = Int64(index) * Int64(header.segmentSize)
            plaintext.removeAll(keepingCapacity: true)
            try package.content.append(start..<start + Int64(header.plaintextLength(ofSegment: index)), to: &plaintext, using: open)
            var bytes = frame?.bytes ?? []
            frame = nil  // so `bytes` is the only reference and keeps its storage
            bytes.removeAll(keepingCapacity: true)
            try package.sealer.sealSegment(index, plaintext, appendingTo: &bytes)
            frame = (index, bytes)
            return bytes
        }
    }
}

/// The envelope's SHA-256 and length as its bytes go past in order.
private final class EnvelopeDigest {
    private var hasher = SHA256()
    private(set) var length: Int64 = 0

    func update(_ bytes: [UInt8]) {
        hasher.update(data: bytes)
        length += Int64(bytes.count)
    }

    func finish() -> String { hasher.finalize().hexEncoded }
}
