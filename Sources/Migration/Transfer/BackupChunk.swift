import Crypto
import Foundation
import WireCore

/// `BackupChunk` (seed 000 §3.3): one binary WebSocket frame. Big-endian, fixed 72-byte header:
///
///     0   4  magic "MSBC"
///     4   1  version (1)
///     5   3  reserved, zero
///     8  16  backupId (the UUID's 16 bytes)
///    24   4  chunk index (u32)
///    28   8  offset in the envelope file (u64)
///    36   4  length of the data (u32), 1 ... 16 MiB
///    40  32  chunkSHA256 of the data
///    72   …  data
public struct BackupChunk: Sendable, Hashable {
    public static let magic: [UInt8] = Array("MSBC".utf8)
    public static let headerLength = 72
    public static let maxLength = 16 << 20

    public var backupId: String
    public var index: Int
    public var offset: Int64
    /// The chunk's bytes; a slice of the frame when decoded, so a chunk is never copied twice
    /// (empty when only the header was decoded, `header(of:frameLength:)`).
    public var data: ArraySlice<UInt8>
    public var digest: [UInt8]
    /// The data's length as the header gives it.
    public var length: Int

    public init(backupId: String, index: Int, offset: Int64, data: [UInt8]) {
        self.backupId = backupId
        self.index = index
        self.offset = offset
        self.data = data[...]
        self.digest = Array(SHA256.hash(data: data))
        self.length = data.count
    }

    public var encoded: [UInt8] {
        var out = Self.header(backupId: backupId, index: index, offset: offset, length: data.count, digest: digest)
        out.reserveCapacity(Self.headerLength + data.count)
        out += data
        return out
    }

    /// The 72-byte header alone, for an edge that sends the data from its own buffer.
    public static func header(backupId: String, index: Int, offset: Int64, length: Int, digest: [UInt8]) -> [UInt8] {
        var out = magic + [1, 0, 0, 0]
        out += uuidBytes(backupId)
        out += withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)
        out += withUnsafeBytes(of: UInt64(bitPattern: offset).bigEndian, Array.init)
        out += withUnsafeBytes(of: UInt32(length).bigEndian, Array.init)
        out += digest
        return out
    }

    /// Parses a frame (MIG-CHUNK-001, -002). The digest and the place are checked by
    /// `check(against:)`: a bad digest is a retransmit request, not a fatal error.
    public static func decode(_ bytes: [UInt8]) throws(Violation) -> BackupChunk {
        var chunk = try header(of: bytes.prefix(headerLength), frameLength: bytes.count)
        chunk.data = bytes[headerLength...]
        return chunk
    }

    /// The header alone (MIG-CHUNK-001, -002), from the frame's first 72 bytes and its length:
    /// what a session log keeps of a chunk (`conformance watch`). `data` is empty.
    public static func header(of head: some Collection<UInt8>, frameLength: Int) throws(Violation) -> BackupChunk {
        let bytes = Array(head.prefix(headerLength))
        guard frameLength >= headerLength, bytes.count == headerLength else {
            throw Violation(rule: MigrationRule.chunkBounds, path: .root, byteOffset: frameLength, expected: "at least a 72-byte header", found: "\(frameLength) bytes")
        }
        guard Array(bytes[0..<4]) == magic else {
            throw Violation(rule: MigrationRule.chunkHeader, path: .root / "magic", byteOffset: 0, expected: "\"MSBC\"", found: Array(bytes[0..<4]).hexEncoded)
        }
        guard bytes[4] == 1, bytes[5] == 0, bytes[6] == 0, bytes[7] == 0 else {
            throw Violation(rule: MigrationRule.chunkHeader, path: .root / "version", byteOffset: 4, expected: "version 1, reserved bytes zero", found: Array(bytes[4..<8]).hexEncoded)
        }
        let length = Int(bytes[36..<40].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard length >= 1, length <= maxLength else {
            throw Violation(rule: MigrationRule.chunkBounds, path: .root / "length", byteOffset: 36, expected: "1 to \(maxLength) bytes", found: "\(length)")
        }
        guard frameLength == headerLength + length else {
            throw Violation(rule: MigrationRule.chunkBounds, path: .root / "length", byteOffset: 36, expected: "a frame of \(headerLength + length) bytes", found: "\(frameLength)")
        }
        return BackupChunk(
            backupId: uuidText(Array(bytes[8..<24])), index: Int(bytes[24..<28].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }),
            // The bit pattern, never a trap: an offset of 2^63 or more is no chunk's place (MIG-CHUNK-003).
            // (Found by fuzzing: `Int64(_:)` of such a u64 stopped the receiver.)
            offset: Int64(bitPattern: bytes[28..<36].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }), data: [], digest: Array(bytes[40..<72]), length: length)
    }

    private init(backupId: String, index: Int, offset: Int64, data: ArraySlice<UInt8>, digest: [UInt8], length: Int) {
        self.backupId = backupId
        self.index = index
        self.offset = offset
        self.data = data
        self.digest = digest
        self.length = length
    }

    /// MIG-CHUNK-003: the chunk belongs to this backup, at its place, with its length.
    public func checkPlace(against meta: ControlMessage.BackupMeta) throws(Violation) {
        guard backupId == meta.backupId.lowercased() else {
            throw Violation(rule: MigrationRule.chunkPlace, path: .root / "backupId", byteOffset: 8, expected: meta.backupId, found: backupId)
        }
        guard index < meta.chunkCount else {
            throw Violation(rule: MigrationRule.chunkPlace, path: .root / "index", byteOffset: 24, expected: "< \(meta.chunkCount)", found: "\(index)")
        }
        guard offset == Int64(index) * Int64(meta.chunkSize) else {
            throw Violation(
                rule: MigrationRule.chunkPlace, path: .root / "offset", byteOffset: 28, expected: "\(Int64(index) * Int64(meta.chunkSize))",
                found: "\(UInt64(bitPattern: offset))")
        }
        guard length == meta.chunkLength(index) else {
            throw Violation(rule: MigrationRule.chunkPlace, path: .root / "length", byteOffset: 36, expected: "\(meta.chunkLength(index))", found: "\(length)")
        }
    }

    /// MIG-CHUNK-004: the data's SHA-256 is the header's.
    public var digestMatches: Bool { Array(SHA256.hash(data: data)) == digest }

    static func uuidBytes(_ uuid: String) -> [UInt8] {
        Hex.decode(uuid.replacingOccurrences(of: "-", with: "")) ?? Array(repeating: 0, count: 16)
    }
}
