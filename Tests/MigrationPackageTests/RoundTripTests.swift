import Foundation
import Migration
import MigrationPackage
import Testing
import WireCore

/// A scratch folder per test, removed afterwards.
final class Scratch {
    let root: URL
    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("mig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: root) }
    func url(_ name: String) -> URL { root.appendingPathComponent(name) }
}

enum Fixtures {
    static let password = "迁移密码 migration-🔑"

    static func options(mediaBytes: Int64, stories: Int = 40, categories: Int = 8, broken: Int = 0, zeroByte: Bool = false) -> SampleStore.Options {
        var o = SampleStore.Options()
        o.mediaBytes = mediaBytes
        o.stories = stories
        o.categories = categories
        o.brokenMedia = broken
        o.zeroByteFiles = zeroByte
        return o
    }

    static var packOptions: Packer.Options {
        var o = Packer.Options()
        o.iterations = 1000
        o.segmentSize = 1 << 14
        return o
    }

    static var restoreOptions: Restorer.Options {
        var o = Restorer.Options()
        o.policy = EnvelopePolicy(iterations: 1000...10_000_000)
        return o
    }

    @discardableResult
    static func pack(_ store: DeviceStore, to url: URL, seed: UInt8 = 3) throws -> Packer.Result {
        var random = ScriptedBytes(Array(repeating: seed, count: 39))
        return try Packer.pack(store, to: url, password: password, options: packOptions, now: 1_747_300_000, random: &random)
    }
}

@Suite("Pack and restore round trips", .serialized)
struct RoundTripTests {
    @Test(arguments: [
        ("empty", Fixtures.options(mediaBytes: 0, stories: 0, categories: 0)),
        ("tiny", Fixtures.options(mediaBytes: 40_000, stories: 3, categories: 2)),
        ("zero-byte-files", Fixtures.options(mediaBytes: 10_000, stories: 5, zeroByte: true)),
        ("broken-media", Fixtures.options(mediaBytes: 200_000, broken: 2)),
        ("larger", Fixtures.options(mediaBytes: 6 << 20, stories: 200, categories: 30)),
    ])
    func restoredStoreEqualsTheSendersStore(name: String, options: SampleStore.Options) throws {
        for seed: UInt64 in [1, 2, 3] {
            let scratch = try Scratch()
            let sender = DeviceStore(scratch.url("sender"))
            try SampleStore.generate(at: sender.root, seed: seed, options: options)
            let package = scratch.url("backup.enc")
            let packed = try Fixtures.pack(sender, to: package)
            #expect(packed.brokenMedia == options.brokenMedia)
            let receiver = DeviceStore(scratch.url("receiver"))
            try SampleStore.generate(at: receiver.root, seed: seed + 100, options: Fixtures.options(mediaBytes: 5000, stories: 2))
            _ = try Restorer.restore(package, password: Fixtures.password, into: receiver, options: Fixtures.restoreOptions)
            #expect(try receiver.inventory() == sender.inventory(), "\(name) seed \(seed)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.root.path).sorted()
            #expect(leftovers == ["backup.enc", "receiver", "sender"], "\(name): \(leftovers)")
        }
    }

    @Test func packingIsReproducible() throws {
        let scratch = try Scratch()
        let store = DeviceStore(scratch.url("store"))
        try SampleStore.generate(at: store.root, seed: 9, options: Fixtures.options(mediaBytes: 100_000))
        try Fixtures.pack(store, to: scratch.url("a.enc"))
        try Fixtures.pack(store, to: scratch.url("b.enc"))
        #expect(try Data(contentsOf: scratch.url("a.enc")) == Data(contentsOf: scratch.url("b.enc")))
    }

    @Test func keepPreviousAndRollback() throws {
        let scratch = try Scratch()
        let sender = DeviceStore(scratch.url("sender"))
        try SampleStore.generate(at: sender.root, seed: 5, options: Fixtures.options(mediaBytes: 50_000))
        try Fixtures.pack(sender, to: scratch.url("backup.enc"))
        let receiver = DeviceStore(scratch.url("receiver"))
        try SampleStore.generate(at: receiver.root, seed: 6, options: Fixtures.options(mediaBytes: 30_000))
        let old = try receiver.inventory()
        var options = Fixtures.restoreOptions
        options.keepPrevious = true
        _ = try Restorer.restore(scratch.url("backup.enc"), password: Fixtures.password, into: receiver, options: options)
        #expect(try receiver.inventory() == sender.inventory())
        #expect(try DeviceStore(receiver.backupBeforeMigration).inventory() == old)
        try Restorer.rollback(receiver)
        #expect(try receiver.inventory() == old)
        #expect(!FileManager.default.fileExists(atPath: receiver.backupBeforeMigration.path))
    }
}

/// The deterministic mode reproduces the committed golden package byte for byte (Vectors/README.md).
@Suite("Golden package")
struct GoldenPackageTests {
    @Test func deterministicPackReproducesTheGoldenFile() throws {
        let scratch = try Scratch()
        var options = SampleStore.Options()
        options.mediaBytes = 64 << 10
        options.stories = 5
        options.categories = 3
        options.brokenMedia = 1
        try SampleStore.generate(at: scratch.url("store"), seed: 11, options: options)
        var pack = Packer.Options()
        pack.iterations = 1000
        pack.segmentSize = 4096
        var random = GeneratorBytes(SplitMix64(seed: 11))
        _ = try Packer.pack(
            DeviceStore(scratch.url("store")), to: scratch.url("golden.enc"), password: "correct horse 电池 staple", options: pack,
            now: 1_747_300_000, random: &random)
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Vectors/migration/envelope/golden-pack.enc")
        #expect(try Data(contentsOf: scratch.url("golden.enc")) == Data(contentsOf: golden))
    }
}
