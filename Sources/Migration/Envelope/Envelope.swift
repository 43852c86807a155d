import Foundation
import WireCore

/// Whole-buffer helpers over the streaming sealer and opener, for small payloads (vectors,
/// tests, control data). Packages use `EnvelopeFile`, which streams from and to disk.
public enum Envelope {
    public static func seal<R: RandomByteSource>(
        _ plaintext: [UInt8], password: String, segmentSize: UInt32 = 1 << 16,
        iterations: UInt32 = EnvelopePolicy.defaultIterations, cipher: SegmentCipher = .preferred, random: inout R
    ) throws -> [UInt8] {
        var sealer = try EnvelopeSealer(
            password: password, plaintextLength: UInt64(plaintext.count), segmentSize: segmentSize, iterations: iterations,
            cipher: cipher, random: &random)
        var out = sealer.header.encoded
        out.reserveCapacity(Int(sealer.header.envelopeLength))
        var offset = 0
        while !sealer.isFinished {
            let count = sealer.header.plaintextLength(ofSegment: UInt64(offset) / UInt64(segmentSize))
            try sealer.seal(plaintext[offset..<offset + count], appendingTo: &out)
            offset += count
        }
        return out
    }

    public static func open(
        _ envelope: [UInt8], password: String, policy: EnvelopePolicy = .standard, cipher: SegmentCipher = .preferred
    ) throws(EnvelopeError) -> [UInt8] {
        try openWithHeader(envelope, password: password, policy: policy, cipher: cipher).plaintext
    }

    public static func openWithHeader(
        _ envelope: [UInt8], password: String, policy: EnvelopePolicy = .standard, cipher: SegmentCipher = .preferred
    ) throws(EnvelopeError) -> (header: EnvelopeHeader, plaintext: [UInt8]) {
        var opener = try EnvelopeOpener(header: Array(envelope.prefix(EnvelopeHeader.length)), password: password, policy: policy, cipher: cipher)
        try opener.checkLength(UInt64(envelope.count))
        var out: [UInt8] = []
        out.reserveCapacity(Int(opener.header.plaintextLength))
        var offset = EnvelopeHeader.length
        while !opener.isFinished {
            let length = opener.nextFrameLength
            out += try opener.open(Array(envelope[offset..<offset + length]))
            offset += length
        }
        return (opener.header, out)
    }
}
