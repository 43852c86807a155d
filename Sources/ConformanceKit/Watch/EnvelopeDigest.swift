import Crypto
import Migration
import WireCore

/// Puts a migration's envelope together as its chunks go past, for the final digest check
/// (MIG-XFER-004): each chunk's data, once and when its digest matches, in index order; chunks
/// that come early are held (within the window in a conforming transfer; at most `maxHeld`
/// bytes, beyond which the digest is not computed). Nothing is stored on disk.
public struct EnvelopeDigest: Sendable {
    public static let maxHeld = 256 << 20
    private var meta: ControlMessage.BackupMeta?
    private var hash = SHA256()
    private var next = 0
    private var length: Int64 = 0
    private var held: [Int: [UInt8]] = [:]
    private var heldBytes = 0
    private var gaveUp = false

    public init() {}

    /// A control message from the sender: a `BackupMeta` starts a new envelope.
    public mutating func sender(_ text: String) {
        guard let value = try? JSONParser.parse(Array(text.utf8)), case .backupMeta(let meta)? = try? ControlMessage.decode(value) else { return }
        self = EnvelopeDigest()
        self.meta = meta
    }

    /// A binary frame from the sender, with the SHA-256 of its data (the log's `restSHA256`,
    /// computed once); returns the envelope's digest and length once the last chunk is in.
    public mutating func chunk(_ frame: [UInt8], dataSHA256: String) -> (sha256: String, length: Int64)? {
        guard let meta, !gaveUp, let chunk = try? BackupChunk.decode(frame), (try? chunk.checkPlace(against: meta)) != nil,
            dataSHA256.bytesEqual(chunk.digest.hexEncoded), chunk.index >= next, held[chunk.index] == nil
        else { return nil }
        if chunk.index == next {
            take(chunk.data)
            while let data = held.removeValue(forKey: next) {
                heldBytes -= data.count
                take(data[...])
            }
        } else {
            heldBytes += chunk.data.count
            guard heldBytes <= Self.maxHeld else {
                gaveUp = true
                held = [:]
                return nil
            }
            held[chunk.index] = Array(chunk.data)
        }
        guard next == meta.chunkCount else { return nil }
        defer { self.meta = nil }
        return (hash.finalize().hexEncoded, length)
    }

    private mutating func take(_ data: ArraySlice<UInt8>) {
        data.withUnsafeBytes { hash.update(bufferPointer: $0) }
        length += Int64(data.count)
        next += 1
    }
}
