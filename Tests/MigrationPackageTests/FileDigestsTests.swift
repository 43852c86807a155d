import Crypto
import Foundation
import Testing
import WireCore
import ZIPFoundation

@testable import MigrationPackage

/// Pack's digesting stage and its CRC-32 against outsiders: swift-crypto's one-shot SHA-256 and
/// ZIPFoundation's own CRC-32 (its Swift table implementation on Linux).
@Suite("File digests")
struct FileDigestsTests {
    @Test func crc32EqualsZIPFoundations() {
        var rng = SplitMix64(seed: 11)
        for size in [0, 1, 3, 64, 1000, 70_001] {
            let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var crc = CRC32()
            // In two pieces: the running value carries over.
            crc.update(Array(bytes.prefix(size / 3)))
            crc.update(Array(bytes.dropFirst(size / 3)))
            #expect(crc.value == Data(bytes).crc32(checksum: 0), "\(size) bytes")
        }
    }

    /// With a budget of one byte the stage waits for every release: it never runs more than one
    /// file ahead, and every digest still arrives, in order, right.
    @Test(arguments: [Int64(1), 256 << 20])
    func digestsArriveInOrderWithinTheBudget(budget: Int64) throws {
        let scratch = try Scratch()
        var rng = SplitMix64(seed: 12)
        let contents: [[UInt8]] = [0, 5, 1 << 20, 3 * (1 << 20) + 7, 0, 100].map { size in (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        let urls = try contents.enumerated().map { index, bytes in
            let url = scratch.url("f\(index)")
            try Data(bytes).write(to: url)
            return url
        }
        let digests = FileDigests(sources: urls, sizes: contents.map { Int64($0.count) }, budget: budget)
        digests.start()
        defer { digests.stop() }
        for (index, bytes) in contents.enumerated() {
            let digest = try digests.digest(index)
            #expect(digest.sha256 == SHA256.hash(data: bytes).hexEncoded)
            #expect(digest.crc == Data(bytes).crc32(checksum: 0))
            digests.release(index)
        }
    }

    /// A missing file stops the stage: the caller gets the error when it asks for that file,
    /// and the digests before it still arrive.
    @Test func aFailureArrivesAtItsFile() throws {
        let scratch = try Scratch()
        let present = scratch.url("present")
        try Data([1, 2, 3]).write(to: present)
        let digests = FileDigests(sources: [present, scratch.url("absent"), present], sizes: [3, 3, 3])
        digests.start()
        defer { digests.stop() }
        #expect(try digests.digest(0).crc == Data([1, 2, 3]).crc32(checksum: 0))
        do {
            _ = try digests.digest(1)
            Issue.record("a missing file must fail its digest")
        } catch PackageError.io(let detail) {
            #expect(detail.hasPrefix("cannot open \(scratch.url("absent").path)"))
        }
    }
}
