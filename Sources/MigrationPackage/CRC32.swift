import Foundation
import SystemZlib

/// The zip entries' CRC-32 (ISO-HDLC, as zip and zlib define it), computed by the system zlib.
struct CRC32: Equatable {
    private(set) var value: UInt32 = 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        value = UInt32(truncatingIfNeeded: crc32_z(UInt(value), base.assumingMemoryBound(to: Bytef.self), bytes.count))
    }

    mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { update($0) }
    }
}
