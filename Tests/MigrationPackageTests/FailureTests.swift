import Foundation
import Migration
@testable import MigrationPackage
import Testing
import WireCore

struct SimulatedCrash: Error {}

@Suite("Restore failures and crashes leave the old store or the new one", .serialized)
struct FailureTests {
    /// Sender store, its package, and a receiver with different data.
    static func setUp(_ scratch: Scratch) throws -> (sender: DeviceStore, receiver: DeviceStore, package: URL) {
        let sender = DeviceStore(scratch.url("sender"))
        try SampleStore.generate(at: sender.root, seed: 21, options: Fixtures.options(mediaBytes: 120_000, broken: 1))
        let package = scratch.url("backup.enc")
        try Fixtures.pack(sender, to: package)
        let receiver = DeviceStore(scratch.url("receiver"))
        try SampleStore.generate(at: receiver.root, seed: 22, options: Fixtures.options(mediaBytes: 20_000))
        return (sender, receiver, package)
    }

    static let checkpoints = [
        "checked", "extracted", "validated", "built", "new-store-synced", "journal-written", "old-store-moved-aside",
        "new-store-in-place", "switch-synced", "switch-recorded", "previous-store-handled",
    ]

    /// A restore passes every step, in this order: the new store is synced before the journal
    /// may roll it forward, the switch before the old store is deleted (a power cut is a crash).
    @Test func aRestoreReachesEveryStepInOrder() throws {
        let scratch = try Scratch()
        let (_, receiver, package) = try Self.setUp(scratch)
        var reached: [String] = []
        _ = try Restorer.restore(package, password: Fixtures.password, into: receiver, options: Fixtures.restoreOptions) { reached.append($0) }
        #expect(reached == Self.checkpoints)
    }

    @Test(arguments: checkpoints, [false, true])
    func crashAtEveryStepThenRecover(at point: String, keepPrevious: Bool) throws {
        let scratch = try Scratch()
        let (sender, receiver, package) = try Self.setUp(scratch)
        let old = try receiver.inventory()
        let new = try sender.inventory()
        var options = Fixtures.restoreOptions
        options.keepPrevious = keepPrevious
        #expect(throws: SimulatedCrash.self) {
            _ = try Restorer.restore(package, password: Fixtures.password, into: receiver, options: options) { reached in
                if reached == point { throw SimulatedCrash() }
            }
        }
        // The process is gone; the next start recovers.
        try StoreTransaction.recover(receiver)
        let after = try receiver.inventory()
        // Once the old store is aside, the verified new one is rolled forward; before that, rolled back.
        let committed = Self.checkpoints.firstIndex(of: point)! >= Self.checkpoints.firstIndex(of: "old-store-moved-aside")!
        #expect(after == (committed ? new : old), "crash at \(point)")
        let siblings = try FileManager.default.contentsOfDirectory(atPath: scratch.root.path).sorted()
        let kept = committed && keepPrevious ? ["receiver.BackupBeforeMigration"] : []
        #expect(siblings == (["backup.enc", "receiver"] + kept + ["sender"]).sorted(), "crash at \(point): \(siblings)")
        if !kept.isEmpty { #expect(try DeviceStore(receiver.backupBeforeMigration).inventory() == old) }
    }

    @Test func wrongPasswordLeavesTheStoreUntouched() throws {
        let scratch = try Scratch()
        let (_, receiver, package) = try Self.setUp(scratch)
        let old = try receiver.inventory()
        do {
            _ = try Restorer.restore(package, password: "wrong", into: receiver, options: Fixtures.restoreOptions)
            Issue.record("a wrong password must fail")
        } catch let error as PackageError {
            #expect(error.violation?.rule == MigrationRule.envelopePassword)
        }
        #expect(try receiver.inventory() == old)
    }

    /// Random byte changes anywhere in a package: each is rejected with an envelope error, and
    /// the target store is untouched.
    @Test func randomChangesAreRejectedAndTheStoreIsUntouched() throws {
        let scratch = try Scratch()
        let (_, receiver, package) = try Self.setUp(scratch)
        let old = try receiver.inventory()
        let original = try Data(contentsOf: package)
        var rng = SplitMix64(seed: 77)
        for _ in 0..<1000 {
            var bytes = [UInt8](original)
            let offset = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[offset] ^= UInt8.random(in: 1...255, using: &rng)
            let mutated = scratch.url("mutated.enc")
            try Data(bytes).write(to: mutated)
            do {
                _ = try Restorer.restore(mutated, password: Fixtures.password, into: receiver, options: Fixtures.restoreOptions)
                Issue.record("a change at byte \(offset) was accepted")
            } catch let error as PackageError {
                #expect(error.violation?.rule.rawValue.hasPrefix("MIG-ENV-") == true, "byte \(offset): \(error)")
            }
        }
        #expect(try receiver.inventory() == old)
    }

    /// The central directory is read from the envelope's last segments first, but a failure is
    /// reported as a reader going front to back meets it: the first broken segment in the file.
    @Test(arguments: [[2, -1], [-1]])
    func anEnvelopeFailureIsTheFirstBrokenSegment(broken: [Int]) throws {
        let scratch = try Scratch()
        let (_, receiver, package) = try Self.setUp(scratch)
        let old = try receiver.inventory()
        var bytes = [UInt8](try Data(contentsOf: package))
        let frame = EnvelopeHeader.frameOverhead + Int(Fixtures.packOptions.segmentSize)
        let segments = (bytes.count - EnvelopeHeader.length + frame - 1) / frame
        #expect(segments > 4)
        let indices = broken.map { $0 < 0 ? segments + $0 : $0 }
        for index in indices { bytes[EnvelopeHeader.length + index * frame + 10] ^= 0x40 }
        let mutated = scratch.url("mutated.enc")
        try Data(bytes).write(to: mutated)
        do {
            _ = try Restorer.restore(mutated, password: Fixtures.password, into: receiver, options: Fixtures.restoreOptions)
            Issue.record("a broken segment was accepted")
        } catch let error as PackageError {
            #expect(error.violation?.rule == MigrationRule.envelopeSegment)
            #expect(error.violation?.path.description == "/segments/\(indices[0])")
        }
        #expect(try receiver.inventory() == old)
        #expect(!FileManager.default.fileExists(atPath: receiver.staging.path))
    }

    /// The envelope changing on disk after its tail was read and checked (checkpoint "checked")
    /// and before the in-order pass: that pass reads and authenticates every segment again, so
    /// the change fails the restore on the changed segment, even the last one (already opened
    /// once for the central directory); the files written so far go with the staging folder.
    @Test(arguments: [2, -1])
    func anEnvelopeChangingAfterItsTailWasCheckedIsCaught(segment: Int) throws {
        let scratch = try Scratch()
        let (_, receiver, package) = try Self.setUp(scratch)
        let old = try receiver.inventory()
        let frame = EnvelopeHeader.frameOverhead + Int(Fixtures.packOptions.segmentSize)
        let segments = (Int(try FileSystem.size(of: package)) - EnvelopeHeader.length + frame - 1) / frame
        #expect(segments > 4)
        let index = segment < 0 ? segments + segment : segment
        var changed = false
        do {
            _ = try Restorer.restore(package, password: Fixtures.password, into: receiver, options: Fixtures.restoreOptions) { reached in
                guard reached == "checked" else { return }
                let handle = try FileHandle(forUpdating: package)
                defer { try? handle.close() }
                let offset = UInt64(EnvelopeHeader.length + index * frame + 10)
                try handle.seek(toOffset: offset)
                let byte = try #require(try handle.read(upToCount: 1)?.first)
                try handle.seek(toOffset: offset)
                try handle.write(contentsOf: [byte ^ 0x40])
                changed = true
            }
            Issue.record("a segment changed after the checks was accepted")
        } catch let error as PackageError {
            #expect(error.violation?.rule == MigrationRule.envelopeSegment)
            #expect(error.violation?.path.description == "/segments/\(index)")
        }
        #expect(changed)
        #expect(try receiver.inventory() == old)
        #expect(!FileManager.default.fileExists(atPath: receiver.staging.path))
    }

    /// A file written to while it is packed (here: right after its bytes were read, before the
    /// snapshot check) fails the pack with storeChanged, and no package is written.
    @Test func aFileChangingWhilePackedIsDetected() throws {
        let scratch = try Scratch()
        let store = DeviceStore(scratch.url("store"))
        try SampleStore.generate(at: store.root, seed: 4, options: Fixtures.options(mediaBytes: 300_000))
        var random = ScriptedBytes(Array(repeating: 3, count: 39))
        var touched: URL?
        do {
            _ = try Packer.pack(store, to: scratch.url("out.enc"), password: Fixtures.password, options: Fixtures.packOptions, now: 1_747_300_000, random: &random) { file in
                guard touched == nil, file.path.contains("Documents/Media") else { return }
                touched = file
                if let handle = try? FileHandle(forWritingTo: file) {
                    _ = try? handle.seekToEnd()
                    try? handle.write(contentsOf: Data([1, 2, 3]))
                    try? handle.close()
                }
            }
            Issue.record("a file changed during packing must fail the pack")
        } catch let error as PackageError {
            guard case .storeChanged(let path) = error else {
                Issue.record("expected storeChanged, got \(error)")
                return
            }
            #expect(path == touched?.path)
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.url("out.enc").path))
    }

    /// A file that shrinks or grows after packing began, while an earlier one is being sealed:
    /// whichever thread reads it first (the digesting one or the sealing one), the pack fails with
    /// storeChanged naming that file, and no package is written.
    @Test(arguments: [-1, 4])
    func aFileChangingBeforeItIsReadIsDetected(by change: Int) throws {
        let scratch = try Scratch()
        let store = DeviceStore(scratch.url("store"))
        try SampleStore.generate(at: store.root, seed: 5, options: Fixtures.options(mediaBytes: 600_000))
        let media = try FileSystem.files(under: store.media).map { store.media.appendingPathComponent($0) }
            .filter { try FileSystem.size(of: $0) > 1 }
        try #require(media.count >= 3)
        let victim = media[2]
        let size = try FileSystem.size(of: victim)
        var random = ScriptedBytes(Array(repeating: 3, count: 39))
        do {
            _ = try Packer.pack(store, to: scratch.url("out.enc"), password: Fixtures.password, options: Fixtures.packOptions, now: 1_747_300_000, random: &random) { file in
                guard file == media[0] else { return }
                let handle = try? FileHandle(forWritingTo: victim)
                if change < 0 {
                    try? handle?.truncate(atOffset: UInt64(Int(size) + change))
                } else {
                    _ = try? handle?.seekToEnd()
                    try? handle?.write(contentsOf: Data(repeating: 9, count: change))
                }
                try? handle?.close()
            }
            Issue.record("a file changed after packing began must fail the pack")
        } catch PackageError.storeChanged(let path) {
            #expect(path == victim.path)
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.url("out.enc").path))
    }

    /// A FIFO where a store file belongs (an export or the master key) fails the pack at once,
    /// naming it: opening it would otherwise wait for a writer forever.
    @Test(arguments: ["Data/stories.json", "Keychain/MyStory.MasterKey"])
    func aFIFOInTheStoreIsRefused(at relative: String) throws {
        let scratch = try Scratch()
        let store = DeviceStore(scratch.url("store"))
        try SampleStore.generate(at: store.root, seed: 6, options: Fixtures.options(mediaBytes: 20_000))
        let fifo = store.root.appendingPathComponent(relative)
        try FileManager.default.removeItem(at: fifo)
        let mkfifo = try Process.run(URL(fileURLWithPath: "/usr/bin/mkfifo"), arguments: [fifo.path])
        mkfifo.waitUntilExit()
        try #require(mkfifo.terminationStatus == 0)
        var random = ScriptedBytes(Array(repeating: 3, count: 39))
        do {
            _ = try Packer.pack(store, to: scratch.url("out.enc"), password: Fixtures.password, options: Fixtures.packOptions, now: 1_747_300_000, random: &random)
            Issue.record("a FIFO in the store must fail the pack")
        } catch PackageError.io(let detail) {
            #expect(detail == "\(fifo.path) is not a regular file")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.url("out.enc").path))
    }
}
