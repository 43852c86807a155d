import Foundation
import Migration
import Testing
import WireCore
import ZIPFoundation

@testable import MigrationPackage

/// The receiver's own zip reader (central directory, one-pass unpacker) against ZIPFoundation,
/// which read packages before it, and against archives built by hand to break it. The package
/// vectors (Python-made: deflated, data descriptors, ZIP64, comment, and the refusals) hold it to
/// other archivers; these hold it to the byte.
@Suite("Zip reader")
struct ZipReaderTests {
    /// Every layout the writer makes, ZIP64 records included (lowered limits): the entries, their
    /// sizes and their contents are what ZIPFoundation reads.
    @Test(arguments: [false, true])
    func readsWhatZIPFoundationReads(zip64: Bool) throws {
        var limits = StoredZip.Limits()
        if zip64 {
            limits.field = 200
            limits.count = 4
        }
        let entries = StoredZipTests.sample(seed: 9, count: 13).map { ($0.name, $0.bytes + [UInt8](repeating: 7, count: 300)) }
        let bytes = StoredZipTests.ours(entries, modified: 1_747_300_000, limits: limits)
        var theirs: [String: [UInt8]] = [:]
        let archive = try Archive(data: Data(bytes), accessMode: .read)
        for entry in archive {
            var content = Data()
            _ = try archive.extract(entry) { content.append($0) }
            theirs[entry.path] = [UInt8](content)
        }
        let (checked, read) = try unpack(bytes)
        #expect(checked.folder == "Backup-x")
        #expect(checked.files.map(\.path) == entries.map(\.0))
        #expect(read == theirs)
    }

    /// A comment may hold the end record's signature, or a whole record (of an empty archive):
    /// the end record is the one whose comment ends the file. (Python's zipfile takes the other.)
    @Test func anEndRecordInTheCommentIsNotTheEndRecord() throws {
        let entries = StoredZipTests.sample(seed: 3, count: 4)
        var bytes = StoredZipTests.ours(entries, modified: 1_747_300_000)
        let comment: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18) + Array("备份".utf8)
        bytes[bytes.count - 2] = UInt8(comment.count)
        bytes += comment
        let (checked, read) = try unpack(bytes)
        #expect(checked.files.count == 4)
        #expect(read == Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.bytes) }))
    }

    /// Names without the UTF-8 flag are code page 437 (Python's `cp437` codec gives the same
    /// for every byte from 0x80: `pythonAgreesOnCodePage437`).
    @Test func namesWithoutTheUTF8FlagAreCodePage437() {
        #expect(CodePage437.decode(Array("Backup-x/a.jpg".utf8)) == "Backup-x/a.jpg")
        #expect(CodePage437.decode([0x82, 0x8A, 0xE1, 0xF4, 0xFF]) == "éèß⌠\u{A0}")
    }

    @Test func pythonAgreesOnCodePage437() throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import sys; sys.stdout.buffer.write(bytes(range(128, 256)).decode('cp437').encode())"]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        #expect(CodePage437.decode(Array(128...255)) == String(decoding: output, as: UTF8.self))
    }

    /// A raw deflate stream of one stored block (RFC 1951 3.2.4): valid input for inflate,
    /// built without a compressor.
    static func deflated(_ data: [UInt8]) -> [UInt8] {
        let n = UInt16(data.count)
        return [0x01, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)] + data
    }

    static let content = [UInt8](repeating: 0x41, count: 4000)

    /// Deflated entries: how their data can lie, and what each lie is called.
    @Test(arguments: [
        (deflated(content), 4000, ""),
        (deflated(content), 3000, "at most its declared 3000 bytes"),
        (deflated(content), 5000, "its declared 5000 bytes"),
        (Array(deflated(content).dropLast(100)), 4000, "deflate data of its declared 4000 bytes"),
        (deflated(content) + [0, 0], 4000, "deflate data of its declared 4000 bytes"),
        ([0x07, 1, 2, 3], 10, "deflate data of its declared 10 bytes"),
    ])
    func deflatedDataIsHeldToItsDeclaredSize(data: [UInt8], declared: Int, expected: String) throws {
        let bytes = HandZip([.init(name: "Backup-x/a.bin", data: data, method: 8, size: declared)]).bytes
        do {
            let (_, read) = try unpack(bytes)
            #expect(expected == "", "accepted")
            #expect(read["Backup-x/a.bin"] == Self.content)
        } catch PackageError.invalid(let violation) {
            #expect(violation.rule == MigrationRule.archive)
            #expect(violation.path.description == "/entries/Backup-x~1a.bin")
            #expect(violation.expected == expected)
        }
    }

    /// The archive's structure, broken where a reader trusts it: each refusal is MIG-PKG-006 at
    /// the entry, or at "" when no directory can be read; none crashes.
    @Test(arguments: [
        ("local header signature", "/entries/Backup-x~1b.bin", "a local file header at offset 47"),
        ("directory past the end", "", "a readable zip archive"),
        ("no end record", "", "a readable zip archive"),
        ("too many entries", "", "at most 1 entry"),
        ("ZIP64 sizes of 2^64 - 1", "/entries/Backup-x~1a.bin", "at most 1099511627776 bytes unpacked"),
        ("entry past the directory", "/entries/Backup-x~1b.bin", "an entry whose local header lies before the central directory"),
        ("data into the directory", "/entries/Backup-x~1b.bin", "entries that do not overlap"),
    ])
    func aBrokenStructureIsRefusedAtItsPlace(break what: String, path: String, expected: String) throws {
        var zip = HandZip([
            .init(name: "Backup-x/a.bin", data: [1, 2, 3], method: 0, size: 3),
            .init(name: "Backup-x/b.bin", data: [4, 5, 6, 7], method: 0, size: 4),
        ])
        var limits = PackageArchive.Limits()
        switch what {
        case "local header signature": zip.bytes[zip.offsets[1]] = 0x51
        case "directory past the end": zip.patch(zip.end + 16, UInt32(zip.bytes.count))
        case "no end record": zip.bytes[zip.end] = 0
        case "too many entries": limits.maxEntries = 1
        case "ZIP64 sizes of 2^64 - 1":
            // Both sizes overflow into a ZIP64 field that holds UInt64.max.
            zip = HandZip([.init(name: "Backup-x/a.bin", data: [1, 2, 3], method: 0, size: 3, zip64Extra: UInt64.max)])
        case "entry past the directory": zip.patch(zip.directory + 46 + 14 + 42, UInt32(zip.directory))
        default:
            // b.bin declares 100 bytes, stored: they would run into the directory.
            zip.patch(zip.directory + 46 + 14 + 20, UInt32(100))
            zip.patch(zip.directory + 46 + 14 + 24, UInt32(100))
        }
        do {
            _ = try unpack(zip.bytes, limits: limits)
            Issue.record("\(what) was accepted")
        } catch PackageError.invalid(let violation) {
            #expect(violation.rule == MigrationRule.archive, "\(what)")
            #expect(violation.path.description == path, "\(what): \(violation)")
            #expect(violation.expected == expected, "\(what)")
        }
    }

    /// Checks and unpacks a whole zip in one pass, as `conformance check` does.
    func unpack(_ bytes: [UInt8], limits: PackageArchive.Limits = .init()) throws -> (PackageArchive.Checked, [String: [UInt8]]) {
        let scratch = try Scratch()
        let url = scratch.url("in.zip")
        try Data(bytes).write(to: url)
        var zip = try PlainZip(url)
        let checked = try PackageArchive.inspect(&zip, limits: limits)
        let out = scratch.url("out")
        let inventory = try PackageArchive.extract(checked.files, folder: checked.folder, from: &zip, to: out, whole: true)
        var read: [String: [UInt8]] = [:]
        for path in inventory.keys {
            read[checked.folder + "/" + path] = [UInt8](try Data(contentsOf: out.appendingPathComponent(path)))
        }
        return (checked, read)
    }
}

/// A zip written field by field, so that a test can make it say anything.
struct HandZip {
    struct Entry {
        var name: String
        var data: [UInt8]
        var method: UInt16
        var size: Int
        /// Sizes as 0xFFFFFFFF with this value in a ZIP64 field of the directory record.
        var zip64Extra: UInt64?
    }

    var bytes: [UInt8] = []
    var offsets: [Int] = []
    var directory = 0
    var end = 0

    init(_ entries: [Entry]) {
        for entry in entries {
            offsets.append(bytes.count)
            append(UInt32(0x0403_4B50), UInt16(20), UInt16(0x800), entry.method, UInt32(0), UInt32(0))
            append(UInt32(entry.data.count), UInt32(entry.size), UInt16(entry.name.utf8.count), UInt16(0))
            bytes += Array(entry.name.utf8) + entry.data
        }
        directory = bytes.count
        for (entry, offset) in zip(entries, offsets) {
            let extra = entry.zip64Extra.map { _ in 20 } ?? 0
            let sizes = entry.zip64Extra.map { _ in (UInt32.max, UInt32.max) } ?? (UInt32(entry.data.count), UInt32(entry.size))
            append(UInt32(0x0201_4B50), UInt16(0x031E), UInt16(20), UInt16(0x800), entry.method, UInt32(0), UInt32(0))
            append(sizes.0, sizes.1, UInt16(entry.name.utf8.count), UInt16(extra), UInt16(0), UInt16(0), UInt16(0))
            append(UInt32(0o100644) << 16, UInt32(offset))
            bytes += Array(entry.name.utf8)
            if let value = entry.zip64Extra { append(UInt16(1), UInt16(16), value, value) }
        }
        end = bytes.count
        append(UInt32(0x0605_4B50), UInt16(0), UInt16(0), UInt16(entries.count), UInt16(entries.count))
        append(UInt32(end - directory), UInt32(directory), UInt16(0))
    }

    mutating func patch(_ at: Int, _ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(at..<(at + 4), with: $0) }
    }

    private mutating func append(_ values: any FixedWidthInteger...) {
        for value in values {
            switch value {
            case let v as UInt16: withUnsafeBytes(of: v.littleEndian) { bytes += $0 }
            case let v as UInt32: withUnsafeBytes(of: v.littleEndian) { bytes += $0 }
            case let v as UInt64: withUnsafeBytes(of: v.littleEndian) { bytes += $0 }
            default: fatalError("a field of \(type(of: value))")
            }
        }
    }
}
