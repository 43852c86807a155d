import Crypto
import Foundation
import WireCore

/// Seals a payload of known length into an envelope, one segment at a time, in constant
/// memory. Salt and nonce prefix come from the injected random source (the edge passes a
/// CSPRNG; golden vectors pass fixed bytes).
public struct EnvelopeSealer: Sendable {
    public let header: EnvelopeHeader
    private let keys: EnvelopeKeys
    private var nextIndex: UInt64 = 0
    /// The AES-GCM implementation (`SegmentCipher.preferred` unless told).
    public let cipher: SegmentCipher
    /// A plaintext that is not contiguous, copied; reused across segments.
    private var scratch: [UInt8] = []
    /// What the cipher asked to keep until the next segment is sealed (see `SegmentCipher.seal`).
    private var previous = Data()

    public enum Failure: Error, Equatable {
        case randomSourceExhausted
        case parameters(String)
        case segmentLength(index: UInt64, expected: Int, found: Int)
        case finished
    }

    public init<R: RandomByteSource>(
        password: String, plaintextLength: UInt64, segmentSize: UInt32 = 1 << 16,
        iterations: UInt32 = EnvelopePolicy.defaultIterations, cipher: SegmentCipher = .preferred, random: inout R
    ) throws {
        guard EnvelopeHeader.segmentSizeRange.contains(segmentSize), segmentSize & (segmentSize - 1) == 0 else {
            throw Failure.parameters("segment size \(segmentSize) is not a power of two in 2^12...2^24")
        }
        guard plaintextLength <= EnvelopeHeader.maxPlaintextLength else { throw Failure.parameters("payload over 2^40 bytes") }
        guard iterations >= 1 else { throw Failure.parameters("zero iterations") }
        guard let salt = random.next(16), let prefix = random.next(7) else { throw Failure.randomSourceExhausted }
        let keys = try EnvelopeKeys(password: password, salt: salt, iterations: iterations)
        var header = EnvelopeHeader(
            iterations: iterations, salt: salt, segmentSize: segmentSize, plaintextLength: plaintextLength, noncePrefix: prefix,
            keyCheck: keys.keyCheck, mac: [])
        header.mac = keys.mac(header.authenticatedBytes)
        self.header = header
        self.keys = keys
        self.cipher = cipher
    }

    public var isFinished: Bool { nextIndex == header.segmentCount }

    /// Seals the next segment: exactly `segmentSize` bytes, except the last, which holds the rest.
    public mutating func seal(_ plaintext: some DataProtocol) throws -> [UInt8] {
        var frame: [UInt8] = []
        try seal(plaintext, appendingTo: &frame)
        return frame
    }

    /// Seals the next segment and appends its frame to `output`: no intermediate buffers, so a
    /// caller that reuses `output` seals in constant memory without fresh allocations.
    public mutating func seal(_ plaintext: some DataProtocol, appendingTo output: inout [UInt8]) throws {
        guard nextIndex < header.segmentCount else { throw Failure.finished }
        let expected = header.plaintextLength(ofSegment: nextIndex)
        guard plaintext.count == expected else {
            throw Failure.segmentLength(index: nextIndex, expected: expected, found: plaintext.count)
        }
        let sealed = try plaintext.withContiguousStorageIfAvailable {
            try Self.seal(UnsafeRawBufferPointer($0), segment: nextIndex, header: header, keys: keys, cipher: cipher, appendingTo: &output)
        }
        if let sealed {
            previous = sealed
        } else {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: plaintext)
            previous = try scratch.withUnsafeBytes { try Self.seal($0, segment: nextIndex, header: header, keys: keys, cipher: cipher, appendingTo: &output) }
        }
        nextIndex += 1
    }

    /// Seals segment `index` on its own, byte for byte as `seal` does in order: a streaming
    /// sender produces any segment again, for a retransmit or a resume, without keeping it.
    public func sealSegment(_ index: UInt64, _ plaintext: Data, appendingTo output: inout [UInt8]) throws {
        guard index < header.segmentCount else { throw Failure.finished }
        let expected = header.plaintextLength(ofSegment: index)
        guard plaintext.count == expected else { throw Failure.segmentLength(index: index, expected: expected, found: plaintext.count) }
        _ = try plaintext.withUnsafeBytes { try Self.seal($0, segment: index, header: header, keys: keys, cipher: cipher, appendingTo: &output) }
    }

    /// Frame `index`: its clear index, then ciphertext and tag.
    private static func seal(
        _ plaintext: UnsafeRawBufferPointer, segment: UInt64, header: EnvelopeHeader, keys: EnvelopeKeys, cipher: SegmentCipher, appendingTo output: inout [UInt8]
    ) throws -> Data {
        let index = UInt32(segment)
        let nonce = EnvelopeKeys.nonce(prefix: header.noncePrefix, index: index, last: segment + 1 == header.segmentCount)
        output.append(contentsOf: bigEndian(index))
        return try cipher.seal(plaintext, key: keys.payloadKey, nonce: nonce, aad: header.mac, appendingTo: &output)
    }
}
