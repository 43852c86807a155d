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

    public enum Failure: Error, Equatable {
        case randomSourceExhausted
        case parameters(String)
        case segmentLength(index: UInt64, expected: Int, found: Int)
        case finished
    }

    public init<R: RandomByteSource>(
        password: String, plaintextLength: UInt64, segmentSize: UInt32 = 1 << 16,
        iterations: UInt32 = EnvelopePolicy.defaultIterations, random: inout R
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
        let index = UInt32(nextIndex)
        let last = nextIndex + 1 == header.segmentCount
        let box = try AES.GCM.seal(
            plaintext, using: keys.payloadKey, nonce: EnvelopeKeys.nonce(prefix: header.noncePrefix, index: index, last: last),
            authenticating: header.mac)
        nextIndex += 1
        output.append(contentsOf: bigEndian(index))
        output.append(contentsOf: box.ciphertext)
        output.append(contentsOf: box.tag)
    }
}
