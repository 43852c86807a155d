import Foundation
import Migration
import MigrationPackage
import Testing
import WireCore

/// The streaming sender's package (Spec migration.md §5.5, MIG-XFER-008): never written, sealed
/// from the store at whatever offset a chunk asks for, and byte for byte the packed one.
@Suite("A package sealed from the store as it is sent")
struct StreamedPackageTests {
    static func prepare(_ store: DeviceStore, seed: UInt8 = 3, afterReading: (URL) -> Void = { _ in }) throws -> StreamedPackage {
        var random = ScriptedBytes(Array(repeating: seed, count: 39))
        return try StreamedPackage.prepare(
            store, password: Fixtures.password, options: Fixtures.packOptions, now: 1_747_300_000, random: &random, afterReading: afterReading)
    }

    /// `count` envelope bytes from `offset`, as one chunk asks for them.
    static func read(_ reader: StreamedPackage.Reader, _ offset: Int64, _ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        try out.withUnsafeMutableBytes { try reader.read(at: offset, into: $0) }
        return out
    }

    @Test(arguments: [
        ("empty", Fixtures.options(mediaBytes: 0, stories: 0, categories: 0)),
        ("zero-byte-files", Fixtures.options(mediaBytes: 10_000, stories: 5, zeroByte: true)),
        ("larger", Fixtures.options(mediaBytes: 3 << 20, stories: 200, categories: 30)),
    ])
    func everyRangeIsThePackedEnvelopes(name: String, options: SampleStore.Options) throws {
        let scratch = try Scratch()
        try SampleStore.generate(at: scratch.url("store"), seed: 7, options: options)
        let store = DeviceStore(scratch.url("store"))
        let packed = try Fixtures.pack(store, to: scratch.url("packed.enc"))
        let file = [UInt8](try Data(contentsOf: scratch.url("packed.enc")))
        let streamed = try Self.prepare(store)

        #expect(streamed.backupId == packed.backupId)
        #expect(streamed.zipSize == packed.zipSize)
        #expect(streamed.envelopeSize == Int64(file.count))
        #expect(streamed.envelopeSHA256 == (try FileSystem.sha256(of: scratch.url("packed.enc"))))
        #expect(streamed.header == Array(file.prefix(97)))
        // In chunks of an odd size (none ends where a segment does), in order and then backwards,
        // as a resume and a retransmit ask for them.
        let reader = streamed.reader()
        let chunk = 5_000
        let offsets = Array(stride(from: 0, to: file.count, by: chunk))
        for offset in offsets + offsets.reversed() {
            let count = min(chunk, file.count - offset)
            #expect(try Self.read(reader, Int64(offset), count) == Array(file[offset..<offset + count]), "bytes \(offset)..<\(offset + count)")
        }
        #expect(throws: PackageError.self) { try Self.read(reader, Int64(file.count) - 10, 11) }
    }

    /// A file changed after the snapshot fails the read of any chunk holding its bytes, and only
    /// those: no byte that contradicts the manifest is handed out (MIG-XFER-008).
    @Test func aFileChangedAfterTheSnapshotFailsTheChunksThatHoldIt() throws {
        let scratch = try Scratch()
        try SampleStore.generate(at: scratch.url("store"), seed: 7, options: Fixtures.options(mediaBytes: 400_000, stories: 10))
        let store = DeviceStore(scratch.url("store"))
        try Fixtures.pack(store, to: scratch.url("packed.enc"))
        let file = [UInt8](try Data(contentsOf: scratch.url("packed.enc")))
        let streamed = try Self.prepare(store)
        let media = try FileManager.default.subpathsOfDirectory(atPath: store.media.path).sorted().filter {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: store.media.appendingPathComponent($0).path, isDirectory: &folder) && !folder.boolValue
        }
        let changed = store.media.appendingPathComponent(try #require(media.last))
        var bytes = try Data(contentsOf: changed)
        bytes[0] ^= 1
        try bytes.write(to: changed)

        let reader = streamed.reader()
        // The header and the first segment (the exports) are still what they were.
        #expect(try Self.read(reader, 0, 4096) == Array(file.prefix(4096)))
        var failure: PackageError?
        for offset in stride(from: 0, to: file.count, by: 4096) {
            do {
                _ = try Self.read(reader, Int64(offset), min(4096, file.count - offset))
            } catch let error as PackageError {
                failure = error
                break
            }
        }
        guard case .storeChanged(let path) = failure else {
            Issue.record("expected storeChanged, got \(String(describing: failure))")
            return
        }
        #expect(path == changed.path)
    }

    /// A file that changes during the pass before the first chunk fails the pass, as it fails a pack.
    @Test func aFileChangedDuringThePassFailsIt() throws {
        let scratch = try Scratch()
        try SampleStore.generate(at: scratch.url("store"), seed: 7, options: Fixtures.options(mediaBytes: 100_000, stories: 5))
        let store = DeviceStore(scratch.url("store"))
        var touched: URL?
        #expect {
            _ = try Self.prepare(store) { url in
                guard touched == nil, url.path.contains("/Media/") else { return }
                touched = url
                try? Data("changed".utf8).write(to: url)
            }
        } throws: { error in
            guard case PackageError.storeChanged(let path) = error else { return false }
            return path == touched?.path
        }
    }
}
