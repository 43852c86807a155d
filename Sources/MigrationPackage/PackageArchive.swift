import Foundation
import Migration
import WireCore

/// Reading the zip inside the envelope (seed 000 §4.1): every entry is checked before anything is
/// written, then the files are written in one pass. (`PackageWriter` and `StoredZip` write it.)
public enum PackageArchive {
    /// Bounds a receiver applies before unpacking (MIG-PKG-006).
    public struct Limits: Sendable {
        public var maxEntries = 1_000_000
        public var maxTotalBytes: Int64 = 1 << 40
        public init() {}
    }

    /// A checked archive: the package folder every entry lies in, and its file entries in the
    /// order of the central directory.
    struct Checked {
        var folder: String
        var files: [ZipEntry]
    }

    /// Checks every entry (MIG-PKG-006) from the central directory alone, without writing anything.
    static func inspect(_ bytes: inout some ZipBytes, limits: Limits = Limits()) throws -> Checked {
        let directory = try ZipDirectory.read(&bytes, maxEntries: limits.maxEntries)
        var folder: String?
        var names = Names()
        var total: Int64 = 0
        for entry in directory.entries {
            let path = entry.path
            let at = JSONPointer.root / "entries" / path
            guard entry.kind != .symlink else { throw invalid("files and folders only", "a symbolic link", at: at) }
            let trimmed = entry.kind == .directory ? PackagePath.trimmingFolderSlash(path) : path
            guard PackagePath.isSafe(trimmed) else {
                throw invalid("a relative path that stays inside the package", JSONSerializer.quoted(path), at: at)
            }
            let top = PackagePath.topFolder(trimmed)
            guard top.hasBytePrefix("Backup-"), folder == nil || folder!.bytesEqual(top) else {
                throw invalid("every entry inside one Backup-{backupId}/ folder", JSONSerializer.quoted(path), at: at)
            }
            folder = top
            try names.admit(trimmed, at: at)
            total = total.addingReportingOverflow(entry.size).partialValue
            guard entry.size >= 0, total >= 0, total <= limits.maxTotalBytes else {
                throw invalid("at most \(limits.maxTotalBytes) bytes unpacked", "\(total)", at: at)
            }
            guard entry.kind == .file else { continue }
            // A deflated entry may expand at most 1000-fold: zip bombs stop here, before a byte is written.
            let bound = entry.compressedSize.multipliedReportingOverflow(by: 1000)
            if !bound.overflow, entry.size > bound.partialValue + (1 << 20) {
                throw invalid("a compression ratio of at most 1000", "\(entry.size) from \(entry.compressedSize) bytes", at: at)
            }
            guard !entry.encrypted else { throw invalid("an entry that is not encrypted", "the encryption flag", at: at) }
            guard entry.method == 0 || entry.method == 8 else {
                throw invalid("an entry stored (method 0) or deflated (method 8)", "method \(entry.method)", at: at)
            }
            // Only a deflate stream marks its own end: stored data followed by a data descriptor
            // cannot be read from the front (a streaming receiver, java.util.zip.ZipInputStream).
            guard entry.method == 8 || entry.flags & (1 << 3) == 0 else {
                throw invalid("a stored entry whose local header states its sizes", "a data descriptor (flag bit 3)", at: at)
            }
            guard entry.method == 8 || entry.compressedSize == entry.size else {
                throw invalid("a stored entry whose two sizes are equal", "\(entry.compressedSize) stored for \(entry.size)", at: at)
            }
        }
        guard let folder else { throw invalid("a Backup-{backupId}/ folder", "an empty archive", at: .root) }
        // Each entry's header and data end before the next entry begins: a zip whose entries share
        // bytes (a known zip bomb) cannot be read front to back, and no archiver writes one. The
        // entry named is the one that begins inside another, or the last, running into the directory.
        let byOffset = directory.entries.indices.sorted {
            (directory.entries[$0].localHeaderOffset, $0) < (directory.entries[$1].localHeaderOffset, $1)
        }.map { directory.entries[$0] }
        for (index, entry) in byOffset.enumerated() {
            let dataEnd = entry.localHeaderOffset + 30 + Int64(entry.nameLength) + min(entry.compressedSize, directory.offset)
            if index + 1 < byOffset.count, dataEnd > byOffset[index + 1].localHeaderOffset {
                let later = byOffset[index + 1]
                throw invalid("entries that do not overlap", "its local header inside the data of \(entry.path)", at: .root / "entries" / later.path)
            }
            if index + 1 == byOffset.count, dataEnd > directory.offset {
                throw invalid("entries that do not overlap", "its data running into the central directory", at: .root / "entries" / entry.path)
            }
        }
        return Checked(folder: folder, files: directory.entries.filter { $0.kind == .file })
    }

    /// Writes `entries` (checked) below `destination`, in one pass over the whole zip, or over
    /// only as much as they need (`whole: false`: the manifest, read ahead of the rest). Returns
    /// the inventory relative to the package folder.
    static func extract(_ entries: [ZipEntry], folder: String, from bytes: inout some ZipBytes, to destination: URL, whole: Bool) throws -> FileInventory {
        let plan = entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        let lane = HashLane()
        defer { lane.stop() }
        if whole {
            var unpacker = ZipUnpacker(plan, folder: folder, to: destination, lane: lane)
            try bytes.streamHeld { try unpacker.consume($0, release: $1) }
            try unpacker.finish()
            return unpacker.inventory
        }
        guard let start = plan.first?.localHeaderOffset else { return [:] }
        var unpacker = ZipUnpacker(plan, folder: folder, to: destination, from: start, lane: lane)
        var position = start
        while !unpacker.isDone, position < bytes.length {
            let chunk = try bytes.read(position..<min(bytes.length, position + (1 << 20)))
            try chunk.withUnsafeBytes { try unpacker.consume($0) }
            position += Int64(chunk.count)
        }
        try unpacker.finish()
        return unpacker.inventory
    }

    /// The names of one package: each in NFC, none equal to another after case folding
    /// (`Case.bin` and `case.bin` are one file on APFS, NTFS and FAT; MIG-PKG-006).
    struct Names {
        private var seen: [String: String] = [:]

        mutating func admit(_ path: String, at pointer: JSONPointer) throws {
            guard PackagePath.isNFC(path) else { throw invalid("a name in Unicode NFC", JSONSerializer.quoted(path), at: pointer) }
            if let other = seen.updateValue(path, forKey: PackagePath.collisionKey(path)) {
                let found = other.bytesEqual(path) ? "a second \(path)" : "\(JSONSerializer.quoted(path)) beside \(JSONSerializer.quoted(other))"
                throw invalid("each path once, also ignoring case", found, at: pointer)
            }
        }
    }

    static func invalid(_ expected: String, _ found: String, at path: JSONPointer) -> PackageError {
        .invalid(Violation(rule: MigrationRule.archive, path: path, expected: expected, found: found))
    }

    /// The zip's structure cannot be read: the archive as a whole is refused.
    static func unreadable(_ found: String) -> PackageError {
        invalid("a readable zip archive", found, at: .root)
    }
}
