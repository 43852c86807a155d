import Crypto
import Foundation
import WireCore

/// Opens an envelope segment by segment, in constant memory. The checks run in the Spec's
/// order: magic, version, parameters (`EnvelopeHeader.parse`), key check, header MAC, total
/// length, then each segment's position and authenticity.
public struct EnvelopeOpener: Sendable {
    public let header: EnvelopeHeader
    private let keys: EnvelopeKeys
    public private(set) var nextIndex: UInt64 = 0
    /// The AES-GCM implementation (`SegmentCipher.preferred` unless told).
    public let cipher: SegmentCipher
    /// The cipher's buffer, reused across segments.
    private var scratch = Data()
    private var previousPlaintext = Data()

    public init(header bytes: [UInt8], password: String, policy: EnvelopePolicy = .standard, cipher: SegmentCipher = .preferred) throws(EnvelopeError) {
        let header = try EnvelopeHeader.parse(bytes, policy: policy)
        let keys: EnvelopeKeys
        do {
            keys = try EnvelopeKeys(password: password, salt: header.salt, iterations: header.iterations)
        } catch {
            throw EnvelopeError(.headerInvalid, .root / "header" / "iterations", at: 10, "key derivation failed: \(error)")
        }
        guard constantTimeEqual(keys.keyCheck, header.keyCheck) else {
            throw EnvelopeError(.wrongPassword, .root / "header" / "keyCheck", at: 49, "the password does not open this envelope")
        }
        guard constantTimeEqual(keys.mac(header.authenticatedBytes), header.mac) else {
            throw EnvelopeError(.headerTampered, .root / "header" / "mac", at: EnvelopeHeader.macOffset, "the header was changed after sealing")
        }
        self.header = header
        self.keys = keys
        self.cipher = cipher
    }

    /// MIG-ENV-006/007: the envelope is exactly as long as its header says.
    public func checkLength(_ total: UInt64) throws(EnvelopeError) {
        let expected = header.envelopeLength
        if total < expected {
            throw EnvelopeError(.truncated, .root, at: Int(clamping: total), "\(total) bytes, the header promises \(expected)")
        }
        if total > expected {
            throw EnvelopeError(.extended, .root, at: Int(clamping: expected), "\(total) bytes, the header promises \(expected)")
        }
    }

    public var isFinished: Bool { nextIndex == header.segmentCount }

    /// Bytes of the next frame (index, ciphertext, tag).
    public var nextFrameLength: Int { EnvelopeHeader.frameOverhead + header.plaintextLength(ofSegment: nextIndex) }

    /// Byte offset of frame `index` in the envelope.
    public func offset(ofSegment index: UInt64) -> UInt64 {
        UInt64(EnvelopeHeader.length) + index * UInt64(EnvelopeHeader.frameOverhead + Int(header.segmentSize))
    }

    /// Opens the next frame; the plaintext is released only after its tag verified.
    public mutating func open(_ frame: [UInt8]) throws(EnvelopeError) -> Data {
        let plaintext = try open(frame, segment: nextIndex)
        nextIndex += 1
        return plaintext
    }

    /// Opens frame `index` out of turn, with the same checks: every segment is authenticated on
    /// its own, so a reader may open the end first (the zip's central directory lies there).
    /// `nextIndex` is unchanged.
    public mutating func open(_ frame: [UInt8], segment index: UInt64) throws(EnvelopeError) -> Data {
        let path = JSONPointer.root / "segments" / Int(index)
        let at = Int(clamping: offset(ofSegment: index))
        guard index < header.segmentCount else {
            throw EnvelopeError(.extended, path, at: at, "data after the last segment")
        }
        let expected = EnvelopeHeader.frameOverhead + header.plaintextLength(ofSegment: index)
        guard frame.count == expected else {
            throw EnvelopeError(.truncated, path, at: at, "frame of \(frame.count) bytes, expected \(expected)")
        }
        let claimed = UInt64(readUInt32(frame, 0))
        if let plaintext = decrypt(frame, as: index) {
            guard claimed == index else {
                // The tag binds the index through the nonce; a clear index that disagrees was edited.
                throw EnvelopeError(.segmentCorrupt, path, at: at, "index field \(claimed) in segment \(index)")
            }
            // Held until the next segment's plaintext exists, as the sealer holds its boxes: a
            // 64 KiB buffer freed at the top of the heap goes back to the kernel and the next
            // segment page-faults it in again (unpack's system time doubled).
            previousPlaintext = plaintext
            return plaintext
        }
        if claimed != index, claimed < header.segmentCount, decrypt(frame, as: claimed) != nil {
            throw EnvelopeError(.reordered, path, at: at, "segment \(claimed) found where segment \(index) belongs")
        }
        throw EnvelopeError(.segmentCorrupt, path, at: at, "segment \(index) fails authentication")
    }

    private mutating func decrypt(_ frame: [UInt8], as index: UInt64) -> Data? {
        let nonce = EnvelopeKeys.nonce(prefix: header.noncePrefix, index: UInt32(index), last: index + 1 == header.segmentCount)
        return frame.withUnsafeBytes { bytes in
            cipher.open(UnsafeRawBufferPointer(rebasing: bytes[4...]), key: keys.payloadKey, nonce: nonce, aad: header.mac, scratch: &scratch)
        }
    }
}

func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
}
