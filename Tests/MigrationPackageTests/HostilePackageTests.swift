import Foundation
import Migration
@testable import MigrationPackage
import Testing
import WireCore
import ZIPFoundation
import Crypto

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

extension HostilePackageTests {
    /// Issue 24.1: `..` then `/` with a combining mark (U+0301) is one Swift Character, so a
    /// split by Characters saw no `..` segment, while the file system splits on the byte `/`.
    /// The entry is listed in the manifest with its true size and digest, so only the path
    /// check stands between it and the folder above the staging one.
    @Test(arguments: ["../\u{301}planted", "../\u{200D}planted", "../\u{93E}planted"])
    func aClimbHiddenBehindACombiningMarkIsRefused(relative: String) throws {
        let scratch = try Scratch()
        let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Vectors/migration/package/complete.zip")
        let source = try Archive(url: vectors, accessMode: .read)
        let folder = try #require(source.makeIterator().next()?.path.split(separator: "/").first.map(String.init))
        let zip = scratch.url("hostile.zip")
        let hostile = try Archive(url: zip, accessMode: .create)
        let planted = Data("planted\n".utf8)
        for entry in source {
            var data = Data()
            _ = try source.extract(entry, consumer: { data.append($0) })
            if entry.path == folder + "/manifest.json" {
                var manifest = try JSONParser.parse(Array(data))
                let listing: JSONValue = [
                    "path": .string(relative), "size": .number(JSONNumber(Int64(planted.count))),
                    "sha256": .string(SHA256.hash(data: planted).map { String(format: "%02x", $0) }.joined()),
                ]
                let files = (manifest["integrity"]?["files"]?.arrayValue ?? []) + [listing]
                manifest = try #require(JSONPointer("/integrity/files")?.replacing(in: manifest, with: .array(files)))
                data = Data(JSONSerializer.compact(manifest).utf8)
            }
            try hostile.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) { at, count in
                data.subdata(in: Int(at)..<(Int(at) + count))
            }
        }
        let name = folder + "/" + relative
        try hostile.addEntry(with: name, type: .file, uncompressedSize: Int64(planted.count), compressionMethod: .none) { at, count in
            planted.subdata(in: Int(at)..<(Int(at) + count))
        }
        let staging = scratch.url("area/staging")
        do {
            _ = try Restorer.check(zip: zip, scratch: staging)
            Issue.record("a climbing entry was accepted")
        } catch let error as PackageError {
            #expect(error.violation?.rule == MigrationRule.archive)
            #expect(error.violation?.path == JSONPointer.root / "entries" / name)
        }
        // Nothing beside the staging folder, nor above it.
        let area = try FileManager.default.contentsOfDirectory(atPath: scratch.url("area").path)
        #expect(area.isEmpty, "written beside staging: \(area)")
        let top = try FileManager.default.contentsOfDirectory(atPath: scratch.url("").path).filter { $0.unicodeScalars.contains { $0.value >= 0x300 } }
        #expect(top.isEmpty, "written above staging: \(top)")
    }
}
