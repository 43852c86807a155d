import Foundation
import Testing
import WireCore
import ZIPFoundation

@testable import MigrationPackage

/// The zip writer against two outsiders: ZIPFoundation, whose `addEntry` output it must equal
/// byte for byte (the golden package was written by it), and Python's `zipfile`, which must read
/// its ZIP64 records (reached here with lowered limits instead of 4 GiB of data).
@Suite("Stored zip layout")
struct StoredZipTests {
    /// Entries with their bytes, the names in sorted order as `PackageWriter` puts them.
    static func sample(seed: UInt64, count: Int) -> [(name: String, bytes: [UInt8])] {
        var rng = SplitMix64(seed: seed)
        let names = ["coredata/stories.json", "media/Images/2025/05/é 照片.jpg", "manifest.json", "security/master_key.bin", "a", String(repeating: "d/", count: 60) + "deep"]
        return (0..<count).map { i in
            let size = [0, 1, 17, 1000, 70_000][Int(rng.next() % 5)]
            return ("Backup-x/\(i)-" + names[i % names.count], (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
    }

    static func ours(_ entries: [(name: String, bytes: [UInt8])], modified: Int64, limits: StoredZip.Limits = .init()) -> [UInt8] {
        let layout = StoredZip(entries.map { StoredZip.Entry(name: Array($0.name.utf8), size: Int64($0.bytes.count)) }, modified: modified, limits: limits)
        var out: [UInt8] = []
        var crcs: [UInt32] = []
        for (index, entry) in entries.enumerated() {
            var crc = CRC32()
            crc.update(entry.bytes)
            crcs.append(crc.value)
            #expect(out.count == layout.offsets[index])
            out += layout.localHeader(index, crc: crc.value) + entry.bytes
        }
        #expect(out.count == layout.centralDirectoryOffset)
        layout.centralDirectory(crcs: crcs) { out += $0 }
        #expect(out.count == layout.length)
        return out
    }

    /// Seeds, entry counts and times: empty, 1970 (clamped to 1980), the last second of 2100
    /// (clamped to 2099), the last second of 1999, a leap day.
    static let cases: [(UInt64, Int, Int64)] = [(1, 0, 1_747_300_000), (2, 1, 0), (3, 7, 4_133_980_799), (4, 40, 946_684_799), (5, 12, 1_709_164_801)]

    @Test(arguments: cases)
    func equalsZIPFoundationByteForByte(seed: UInt64, count: Int, modified: Int64) throws {
        let entries = Self.sample(seed: seed, count: count)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("storedzip-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: url) }
        let archive = try Archive(url: url, accessMode: .create)
        for entry in entries {
            let data = Data(entry.bytes)
            try archive.addEntry(
                with: entry.name, type: .file, uncompressedSize: Int64(data.count), modificationDate: Date(timeIntervalSince1970: TimeInterval(modified)),
                permissions: 0o644, compressionMethod: .none
            ) { position, size in data.subdata(in: Int(position)..<Int(position) + size) }
        }
        let theirs = [UInt8](try Data(contentsOf: url))
        let mine = Self.ours(entries, modified: modified)
        #expect(mine.count == theirs.count)
        let first = mine.indices.first { $0 < theirs.count && mine[$0] != theirs[$0] }
        #expect(first == nil, "first difference at byte \(first ?? -1)")
    }

    /// Sizes, offsets, the directory's offset and the entry count all past their limits: every
    /// ZIP64 field and record is written, and both readers get every entry back intact.
    @Test func zip64RecordsAreReadBack() throws {
        let entries = Self.sample(seed: 9, count: 6).map { ($0.name, $0.bytes + [UInt8](repeating: 7, count: 300)) }
        var limits = StoredZip.Limits()
        limits.field = 200
        limits.count = 4
        let bytes = Self.ours(entries, modified: 1_747_300_000, limits: limits)
        #expect(bytes.count > 6 * 300)

        let archive = try Archive(data: Data(bytes), accessMode: .read)
        var read: [String: [UInt8]] = [:]
        for entry in archive {
            var content = Data()
            _ = try archive.extract(entry) { content.append($0) }  // the CRC-32 is checked
            read[entry.path] = [UInt8](content)
        }
        #expect(read == Dictionary(uniqueKeysWithValues: entries.map { ($0.0, $0.1) }))

        let url = FileManager.default.temporaryDirectory.appendingPathComponent("storedzip64-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(bytes).write(to: url)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            for i in z.infolist():
                print(i.filename, i.file_size, i.header_offset)
            """, url.path,
        ]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        let layout = StoredZip(entries.map { StoredZip.Entry(name: Array($0.0.utf8), size: Int64($0.1.count)) }, modified: 0, limits: limits)
        let expected = zip(entries, layout.offsets).map { "\($0.0.0) \($0.0.1.count) \($0.1)" }
        #expect(output.split(separator: "\n").map(String.init) == expected)
    }
}
