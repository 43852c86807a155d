import Crypto
import Foundation
import Migration
import Testing
import WireCore

@testable import MigrationPeer

/// The sender reads its package once before the transfer; the chunk digests from that pass
/// must be exactly the ones a chunk hashed on the way out would carry.
@Suite("Prepared package and chunk frames")
struct PreparedPackageTests {
    func makeFile(bytes: Int) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("prepared-\(UUID().uuidString).enc")
        var data = [UInt8](repeating: 0, count: bytes)
        for i in data.indices { data[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
        try Data(data).write(to: file)
        return file
    }

    func prepare(_ file: URL, limit: Int) throws -> PreparedPackage {
        try PreparedPackage(
            file: file, backupId: "3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f", zipSize: 100, chunkSize: 4096, schemaVersion: 1, appVersion: "1.0.0",
            storedDigestLimit: limit)
    }

    @Test func storedDigestsGiveTheSameFramesAsHashingOnTheWay() throws {
        let file = try makeFile(bytes: 4096 * 5 + 123)
        defer { try? FileManager.default.removeItem(at: file) }
        let stored = try prepare(file, limit: 100)
        let hashed = try prepare(file, limit: 5)  // six chunks: over the limit, nothing kept
        #expect(stored.chunkDigests?.count == 6 * 32)
        #expect(hashed.chunkDigests == nil)
        #expect(stored.meta == hashed.meta)
        #expect(stored.meta.envelopeSHA256 == SHA256.hash(data: try Data(contentsOf: file)).hexEncoded)
        let a = try ChunkReader(stored), b = try ChunkReader(hashed)
        for index in 0..<6 {
            var frameA = try a.frame(index), frameB = try b.frame(index)
            let bytesA = frameA.readBytes(length: frameA.readableBytes)!, bytesB = frameB.readBytes(length: frameB.readableBytes)!
            #expect(bytesA == bytesB)
            let chunk = try BackupChunk.decode(bytesA)
            #expect(chunk.index == index && chunk.digestMatches)
            #expect(chunk.data.count == (index == 5 ? 123 : 4096))
        }
    }
}
