import Crypto
import Migration
import MigrationPackage
import WireCore

/// Puts a migration's envelope together as its chunks go past, for the final digest check
/// (MIG-XFER-004): each chunk's data, once and when its digest matches, in index order; chunks
/// that come early are held (within the window in a conforming transfer; at most `maxHeld`
/// bytes, beyond which the digest is not computed). With the password, the same bytes are
/// opened segment by segment as they pass (MIG-ENV-*): at most one segment is held. Nothing is
/// stored on disk.
public struct EnvelopeDigest: Sendable {
    public static let maxHeld = 256 << 20
    private let password: String?
    private var meta: ControlMessage.BackupMeta?
    private var hash = SHA256()
    private var next = 0
    private var length: Int64 = 0
    private var held: [Int: [UInt8]] = [:]
    private var heldBytes = 0
    private var gaveUp = false
    private var segments: SegmentCheck?

    /// With `password`, every segment is authenticated as it passes.
    public init(password: String? = nil) {
        self.password = password
    }

    /// A control message from the sender: a `BackupMeta` starts a new envelope.
    public mutating func sender(_ text: String) {
        guard let value = try? JSONParser.parse(Array(text.utf8)), case .backupMeta(let meta)? = try? ControlMessage.decode(value) else { return }
        self = EnvelopeDigest(password: password)
        self.meta = meta
        segments = password.map { SegmentCheck(password: $0) }
    }

    /// A binary frame from the sender, with the SHA-256 of its data (the log's `restSHA256`,
    /// computed once): what the watch learnt from it, to be logged and judged. The segments'
    /// verdict comes at their first failure or once the last chunk is in, the digest then too.
    public mutating func chunk(_ frame: [UInt8], dataSHA256: String) -> [WireEvent.Body] {
        guard let meta, !gaveUp, let chunk = try? BackupChunk.decode(frame), (try? chunk.checkPlace(against: meta)) != nil,
            dataSHA256.bytesEqual(chunk.digest.hexEncoded), chunk.index >= next, held[chunk.index] == nil
        else { return [] }
        var learnt: [WireEvent.Body] = []
        if chunk.index == next {
            take(chunk.data, &learnt)
            while let data = held.removeValue(forKey: next) {
                heldBytes -= data.count
                take(data[...], &learnt)
            }
        } else {
            heldBytes += chunk.data.count
            guard heldBytes <= Self.maxHeld else {
                gaveUp = true
                held = [:]
                return learnt
            }
            held[chunk.index] = Array(chunk.data)
        }
        guard next == meta.chunkCount else { return learnt }
        if let verdict = segments?.finish(length: UInt64(length)) { learnt.append(verdict) }
        segments = nil
        self.meta = nil
        return learnt + [.envelope(sha256: hash.finalize().hexEncoded, length: length)]
    }

    private mutating func take(_ data: ArraySlice<UInt8>, _ learnt: inout [WireEvent.Body]) {
        data.withUnsafeBytes { hash.update(bufferPointer: $0) }
        length += Int64(data.count)
        next += 1
        if let verdict = segments?.feed(data) {
            learnt.append(verdict)
            segments = nil
        }
    }
}

/// Opens an envelope's segments from its bytes in order, holding at most one segment.
struct SegmentCheck: Sendable {
    let password: String
    private var pending: [UInt8] = []
    private var opener: EnvelopeOpener?
    private var opened = 0

    init(password: String) { self.password = password }

    /// Bytes that follow the ones before; the verdict at the first failure, else nil.
    mutating func feed(_ data: ArraySlice<UInt8>) -> WireEvent.Body? {
        pending.append(contentsOf: data)
        do throws(EnvelopeError) {
            if opener == nil {
                guard pending.count >= EnvelopeHeader.length else { return nil }
                // Test packages use fewer iterations than the Spec's 600,000; the watch reads them too.
                opener = try EnvelopeOpener(
                    header: Array(pending.prefix(EnvelopeHeader.length)), password: password,
                    policy: EnvelopePolicy(iterations: 1...EnvelopePolicy.standard.iterations.upperBound), cipher: .fastest)
                pending.removeFirst(EnvelopeHeader.length)
            }
            // Whole frames are cut from a cursor; what is left (less than one) moves down once.
            // The opener is moved out while it works, so its buffers are not copied on write.
            guard var o = opener else { return nil }
            opener = nil
            var start = 0
            defer {
                pending.removeFirst(start)
                opener = o
            }
            while !o.isFinished, pending.count - start >= o.nextFrameLength {
                let n = o.nextFrameLength
                _ = try o.open(Array(pending[start..<start + n]))
                start += n
                opened += 1
            }
            if o.isFinished, pending.count > start {
                throw EnvelopeError(.extended, .root, "data after the last segment")
            }
        } catch {
            return .segments(opened: opened, refused: error)
        }
        return nil
    }

    /// Every byte is in: the envelope is as long as its header says.
    func finish(length: UInt64) -> WireEvent.Body {
        guard let opener else {
            return .segments(opened: 0, refused: EnvelopeError(.truncated, .root, at: Int(clamping: length), "\(length) bytes, shorter than a header"))
        }
        do {
            try opener.checkLength(length)
        } catch {
            return .segments(opened: opened, refused: error)
        }
        return .segments(opened: opened, refused: nil)
    }
}
