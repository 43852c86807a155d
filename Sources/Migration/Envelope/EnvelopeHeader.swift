import Foundation
import WireCore

/// The envelope's fixed 97-byte header (Spec migration.md, "The encrypted envelope"):
///
///     0   8  magic 89 4D 53 42 4B 0D 0A 1A
///     8   1  version (1)
///     9   1  KDF (1 = PBKDF2-HMAC-SHA256)
///    10   4  iterations, u32 BE
///    14  16  salt
///    30   4  segment size, u32 BE (a power of two, 2^12 ... 2^24)
///    34   8  plaintext length, u64 BE (at most 2^40)
///    42   7  nonce prefix
///    49  16  key check
///    65  32  header MAC: HMAC-SHA256 over bytes 0 ..< 65
public struct EnvelopeHeader: Sendable, Hashable {
    public static let magic: [UInt8] = [0x89, 0x4D, 0x53, 0x42, 0x4B, 0x0D, 0x0A, 0x1A]
    public static let version: UInt8 = 1
    public static let kdfPBKDF2SHA256: UInt8 = 1
    public static let length = 97
    public static let macOffset = 65
    public static let segmentSizeRange: ClosedRange<UInt32> = (1 << 12)...(1 << 24)
    public static let maxPlaintextLength: UInt64 = 1 << 40
    /// Every frame carries its index (4 bytes) and its GCM tag (16 bytes).
    public static let frameOverhead = 20

    public var iterations: UInt32
    public var salt: [UInt8]
    public var segmentSize: UInt32
    public var plaintextLength: UInt64
    public var noncePrefix: [UInt8]
    public var keyCheck: [UInt8]
    public var mac: [UInt8]

    /// Segments in the envelope: at least one (an empty payload is one empty final segment).
    public var segmentCount: UInt64 {
        plaintextLength == 0 ? 1 : (plaintextLength + UInt64(segmentSize) - 1) / UInt64(segmentSize)
    }

    /// Plaintext bytes in segment `index`.
    public func plaintextLength(ofSegment index: UInt64) -> Int {
        index + 1 < segmentCount ? Int(segmentSize) : Int(plaintextLength - (segmentCount - 1) * UInt64(segmentSize))
    }

    /// The exact size of a sound envelope with this header.
    public var envelopeLength: UInt64 {
        UInt64(Self.length) + segmentCount * UInt64(Self.frameOverhead) + plaintextLength
    }

    /// Bytes 0 ..< 65: what the MAC covers.
    public var authenticatedBytes: [UInt8] {
        var out = Self.magic
        out.append(Self.version)
        out.append(Self.kdfPBKDF2SHA256)
        out += bigEndian(iterations)
        out += salt
        out += bigEndian(segmentSize)
        out += bigEndian(plaintextLength)
        out += noncePrefix
        out += keyCheck
        return out
    }

    public var encoded: [UInt8] { authenticatedBytes + mac }

    /// Reads the header and checks what can be checked without the password (MIG-ENV-001..003).
    public static func parse(_ bytes: [UInt8], policy: EnvelopePolicy) throws(EnvelopeError) -> EnvelopeHeader {
        let header = JSONPointer.root / "header"
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else {
            throw EnvelopeError(.notAnEnvelope, header / "magic", at: 0, "the file does not start with the envelope magic")
        }
        guard bytes.count >= length else {
            throw EnvelopeError(.truncated, header, at: bytes.count, "\(bytes.count) bytes, a header has \(length)")
        }
        guard bytes[8] == version else {
            throw EnvelopeError(.unsupportedVersion, header / "version", at: 8, "version \(bytes[8]); this reader knows \(version)")
        }
        guard bytes[9] == kdfPBKDF2SHA256 else {
            throw EnvelopeError(.unsupportedVersion, header / "kdf", at: 9, "KDF \(bytes[9]); this reader knows \(kdfPBKDF2SHA256)")
        }
        let iterations = readUInt32(bytes, 10)
        guard policy.iterations.contains(iterations) else {
            throw EnvelopeError(
                .headerInvalid, header / "iterations", at: 10,
                "\(iterations) PBKDF2 iterations, outside \(policy.iterations.lowerBound)...\(policy.iterations.upperBound)")
        }
        let segmentSize = readUInt32(bytes, 30)
        guard segmentSizeRange.contains(segmentSize), segmentSize & (segmentSize - 1) == 0 else {
            throw EnvelopeError(.headerInvalid, header / "segmentSize", at: 30, "segment size \(segmentSize) is not a power of two in 2^12...2^24")
        }
        let plaintextLength = readUInt64(bytes, 34)
        guard plaintextLength <= maxPlaintextLength else {
            throw EnvelopeError(.headerInvalid, header / "plaintextLength", at: 34, "\(plaintextLength) bytes, more than 2^40")
        }
        return EnvelopeHeader(
            iterations: iterations, salt: Array(bytes[14..<30]), segmentSize: segmentSize, plaintextLength: plaintextLength,
            noncePrefix: Array(bytes[42..<49]), keyCheck: Array(bytes[49..<65]), mac: Array(bytes[65..<97]))
    }
}

/// What a reader accepts. Production readers use `standard`; golden vectors with low
/// iteration counts say so in their context (test-only).
public struct EnvelopePolicy: Sendable, Hashable {
    public var iterations: ClosedRange<UInt32>

    public init(iterations: ClosedRange<UInt32>) {
        self.iterations = iterations
    }

    /// At least 600,000 PBKDF2-HMAC-SHA256 iterations (OWASP 2023), at most 10,000,000 (a bound on the work a file can demand).
    public static let standard = EnvelopePolicy(iterations: 600_000...10_000_000)
    public static let defaultIterations: UInt32 = 600_000
}

func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
}

func readUInt64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
}
