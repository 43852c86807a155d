import Foundation
import Migration
@testable import MigrationPackage
import Testing
import WireCore
import ZIPFoundation

/// Packages built to fill the disk or to be restored under another name (security review).
@Suite("Hostile packages", .serialized)
struct HostilePackageTests {
    /// A small package with a large file its manifest does not list: refused before a byte of it
    /// is written (a 3 MB package once wrote 600 MB to staging before the listing check).
    @Test func anUnlistedFileIsRefusedBeforeItIsWritten() throws {
        let scratch = try Scratch()
        let (sender, _, package) = try FailureTests.setUp(scratch)
        let zip = scratch.url("package.zip")
        _ = try EnvelopeFile.open(package, to: zip, password: Fixtures.password, policy: Fixtures.restoreOptions.policy)
        let archive = try Archive(url: zip, accessMode: .update)
        let folder = try #require(archive.makeIterator().next()?.path.split(separator: "/").first.map(String.init))
        let unlisted = 50 << 20
        try archive.addEntry(with: folder + "/media/unlisted.bin", type: .file, uncompressedSize: Int64(unlisted), compressionMethod: .none) { _, count in
            Data(count: count)
        }
        let staging = scratch.url("staging")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        do {
            var bytes = try PlainZip(zip)
            _ = try Restorer.unpack(&bytes, to: staging, limits: .init(), supportedSchemaVersion: 1)
            Issue.record("an unlisted file must be refused")
        } catch let error as PackageError {
            #expect(error.violation?.rule == MigrationRule.files)
            #expect(error.violation?.path.description == "/files/media~1unlisted.bin")
        }
        let written = try FileSystem.files(under: staging).reduce(Int64(0)) { $0 + (try FileSystem.size(of: staging.appendingPathComponent($1))) }
        let listed = try FileSystem.files(under: sender.root).reduce(Int64(0)) { $0 + (try FileSystem.size(of: sender.root.appendingPathComponent($1))) }
        #expect(written <= listed + (1 << 20), "staging holds \(written) bytes for a package that lists \(listed)")
        #expect(!FileManager.default.fileExists(atPath: staging.appendingPathComponent("media/unlisted.bin").path))
    }

    /// MIG-XFER-004: the package restored after a transfer is the one BackupMeta announced.
    @Test func theManifestMustCarryTheAnnouncedBackupId() throws {
        let scratch = try Scratch()
        let (_, receiver, package) = try FailureTests.setUp(scratch)
        let old = try receiver.inventory()
        var options = Fixtures.restoreOptions
        options.expectedBackupId = "00000000-0000-4000-8000-000000000000"
        do {
            _ = try Restorer.restore(package, password: Fixtures.password, into: receiver, options: options)
            Issue.record("another backupId must be refused")
        } catch let error as PackageError {
            #expect(error.violation?.rule == MigrationRule.finalDigest)
            #expect(error.violation?.path.description == "/manifest.json/backupId")
        }
        #expect(try receiver.inventory() == old)
    }
}

extension HostilePackageTests {
    /// An export over the document limit is refused by its size, before it is read: this one is
    /// a sparse file of 1 TiB, which a read into memory would not survive.
    @Test func anExportOverTheLimitIsRefusedUnread() throws {
        let scratch = try Scratch()
        let root = scratch.url("Backup-x")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("coredata"), withIntermediateDirectories: true)
        let url = root.appendingPathComponent("coredata/stories.json")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 1 << 40)
        try handle.close()
        do {
            _ = try Restorer.document(root, "coredata/stories.json")
            Issue.record("a 1 TiB export was accepted")
        } catch PackageError.invalid(let violation) {
            #expect(violation.rule == CoreRule.size)
            #expect(violation.path.description == "/coredata/stories.json")
            #expect(violation.found == "1099511627776 bytes")
        }
    }
}
