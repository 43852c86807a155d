import Foundation
import Migration
import MigrationPackage
import Testing
import WireCore

/// The receiver's side without a package file (Spec migration.md §5.5): the envelope unpacked as
/// its pieces arrive, resumed after a crash from its checkpoint, and judged as the file-first
/// restore judges it.
@Suite("A package restored as its pieces arrive", .serialized)
struct StreamedRestoreTests {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Feeds `envelope` from `from` in pieces of `piece` bytes, a checkpoint after each; with
    /// `crashAfter`, stops after that many pieces having written one more piece than it saved.
    static func feed(_ restore: StreamedRestore, _ envelope: [UInt8], piece: Int, crashAfter: Int? = nil) throws {
        var offset = Int(restore.consumed)
        var pieces = 0
        while offset < envelope.count {
            let end = min(envelope.count, offset + piece)
            try envelope[offset..<end].withUnsafeBytes { try restore.consume($0) }
            if let crashAfter, pieces == crashAfter { return }
            try restore.checkpoint()
            offset = end
            pieces += 1
        }
    }

    static func stream(_ envelope: [UInt8], into store: DeviceStore, state: URL, backupId: String, piece: Int = 5_000) throws -> Restorer.Result {
        let restore = try StreamedRestore(into: store, state: state, backupId: backupId, password: Fixtures.password, options: Fixtures.restoreOptions)
        try feed(restore, envelope, piece: piece)
        #expect(restore.isComplete)
        return try restore.finish()
    }

    @Test(arguments: [
        ("empty", Fixtures.options(mediaBytes: 0, stories: 0, categories: 0)),
        ("zero-byte-files", Fixtures.options(mediaBytes: 10_000, stories: 5, zeroByte: true)),
        ("broken-media", Fixtures.options(mediaBytes: 200_000, broken: 2)),
        ("larger", Fixtures.options(mediaBytes: 3 << 20, stories: 200, categories: 30)),
    ])
    func restoredStoreEqualsTheSendersStore(name: String, options: SampleStore.Options) throws {
        let scratch = try Scratch()
        try SampleStore.generate(at: scratch.url("old"), seed: 9, options: options)
        let packed = try Fixtures.pack(DeviceStore(scratch.url("old")), to: scratch.url("package.enc"))
        let envelope = [UInt8](try Data(contentsOf: scratch.url("package.enc")))
        let result = try Self.stream(envelope, into: DeviceStore(scratch.url("new")), state: scratch.url("transfer"), backupId: packed.backupId)
        #expect(result.backupId == packed.backupId)
        #expect(try DeviceStore(scratch.url("old")).inventory() == DeviceStore(scratch.url("new")).inventory())
        #expect(!FileManager.default.fileExists(atPath: scratch.url("new.staging").path))
    }

    /// Killed after every few pieces, with bytes written past its last checkpoint, and started
    /// again over the same folder: the restore goes on from the checkpoint and ends identical.
    @Test func crashesAnywhereResumeToAnIdenticalStore() throws {
        let scratch = try Scratch()
        try SampleStore.generate(at: scratch.url("old"), seed: 10, options: Fixtures.options(mediaBytes: 600_000, stories: 30))
        let packed = try Fixtures.pack(DeviceStore(scratch.url("old")), to: scratch.url("package.enc"))
        let envelope = [UInt8](try Data(contentsOf: scratch.url("package.enc")))
        let store = DeviceStore(scratch.url("new"))
        let crashes = try Self.restartUntilDone(envelope, into: store, state: scratch.url("transfer"), backupId: packed.backupId, piece: 7_001, crashAfter: 9)
        #expect(crashes > 5)
        #expect(try DeviceStore(scratch.url("old")).inventory() == store.inventory())
        #expect(!StreamedRestore.hasCheckpoint(in: scratch.url("transfer")), "the checkpoint is removed after the restore")
    }

    /// The same with deflated entries whose sizes follow them in data descriptors: a restart
    /// inflates the entry under way again from its kept input, in pieces small enough that
    /// crashes land inside the deflate data and inside the descriptors.
    @Test func crashesInsideDeflatedEntriesResumeToTheFileFirstStore() throws {
        let scratch = try Scratch()
        let zip = [UInt8](try Data(contentsOf: Self.root.appendingPathComponent("Vectors/migration/package/data-descriptors.zip")))
        var random = ScriptedBytes(Array(repeating: 6, count: 23))
        let envelope = try Envelope.seal(zip, password: Fixtures.password, segmentSize: 1 << 12, iterations: 1000, random: &random)
        try Data(envelope).write(to: scratch.url("package.enc"))
        _ = try Restorer.restore(scratch.url("package.enc"), password: Fixtures.password, into: DeviceStore(scratch.url("a")), options: Fixtures.restoreOptions)
        let store = DeviceStore(scratch.url("b"))
        let crashes = try Self.restartUntilDone(envelope, into: store, state: scratch.url("transfer"), backupId: "x", piece: 97, crashAfter: 3)
        #expect(crashes > 10)
        #expect(try DeviceStore(scratch.url("a")).inventory() == store.inventory())
    }

    /// Starts the restore again and again over `state`, each run crashing after `crashAfter`
    /// pieces, until one completes; returns the crashes.
    static func restartUntilDone(_ envelope: [UInt8], into store: DeviceStore, state: URL, backupId: String, piece: Int, crashAfter: Int) throws -> Int {
        var crashes = 0
        while true {
            let restore = try StreamedRestore(into: store, state: state, backupId: backupId, password: Fixtures.password, options: Fixtures.restoreOptions)
            if crashes > 0 { #expect(restore.envelopeSHA256 == nil, "a resumed stream has no running digest") }
            try feed(restore, envelope, piece: piece, crashAfter: crashAfter)
            if restore.consumed == envelope.count, restore.isComplete {
                _ = try restore.finish()
                return crashes
            }
            crashes += 1
            guard crashes < 10_000 else { throw PackageError.io("no progress") }
        }
    }

    /// Uninterrupted, the running digest is the envelope's SHA-256.
    @Test func theRunningDigestIsTheEnvelopes() throws {
        let scratch = try Scratch()
        try SampleStore.generate(at: scratch.url("old"), seed: 11, options: Fixtures.options(mediaBytes: 50_000, stories: 5))
        let packed = try Fixtures.pack(DeviceStore(scratch.url("old")), to: scratch.url("package.enc"))
        let envelope = [UInt8](try Data(contentsOf: scratch.url("package.enc")))
        let restore = try StreamedRestore(
            into: DeviceStore(scratch.url("new")), state: scratch.url("transfer"), backupId: packed.backupId, password: Fixtures.password, options: Fixtures.restoreOptions)
        try Self.feed(restore, envelope, piece: 4096)
        #expect(restore.envelopeSHA256 == (try FileSystem.sha256(of: scratch.url("package.enc"))))
    }

    /// Every package vector, sealed and streamed, is judged as the file-first restore judges it:
    /// both accept with identical stores, or both refuse on the same rule. A streamed restore
    /// that refuses leaves the store as it was and staging gone.
    @Test func everyPackageVectorIsJudgedAsTheFileFirstRestoreJudgesIt() throws {
        let file = try JSONParser.parse([UInt8](try Data(contentsOf: Self.root.appendingPathComponent("Vectors/migration/package.json"))))
        var compared = 0
        for testCase in file["cases"]?.arrayValue ?? [] {
            guard let input = testCase["inputFile"]?.stringValue, let id = testCase["id"]?.stringValue else { continue }
            let zip = [UInt8](try Data(contentsOf: Self.root.appendingPathComponent("Vectors/migration/" + input)))
            let scratch = try Scratch()
            var random = ScriptedBytes(Array(repeating: 5, count: 23))
            let envelope = try Envelope.seal(zip, password: Fixtures.password, segmentSize: 1 << 12, iterations: 1000, random: &random)
            try Data(envelope).write(to: scratch.url("package.enc"))
            let fileFirst = Result { try Restorer.restore(scratch.url("package.enc"), password: Fixtures.password, into: DeviceStore(scratch.url("a")), options: Fixtures.restoreOptions) }
            try SampleStore.generate(at: scratch.url("b"), seed: 1, options: Fixtures.options(mediaBytes: 1000, stories: 1, categories: 1))
            let before = try DeviceStore(scratch.url("b")).inventory()
            let streamed = Result { try Self.stream(envelope, into: DeviceStore(scratch.url("b")), state: scratch.url("transfer"), backupId: "unused", piece: 3_000) }
            switch (fileFirst, streamed) {
            case (.success, .success):
                #expect(try DeviceStore(scratch.url("a")).inventory() == DeviceStore(scratch.url("b")).inventory(), "\(id)")
            case (.failure(let a), .failure(let b)):
                #expect((a as? PackageError)?.violation?.rule == (b as? PackageError)?.violation?.rule, "\(id): file-first \(a), streamed \(b)")
                #expect(try DeviceStore(scratch.url("b")).inventory() == before, "\(id): the store is as it was")
            default:
                Issue.record("\(id): file-first \(fileFirst), streamed \(streamed)")
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.url("b.staging").path), "\(id)")
            compared += 1
        }
        #expect(compared > 40)
    }
}
