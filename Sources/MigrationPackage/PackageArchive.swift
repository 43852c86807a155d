import Crypto
import Foundation
import Migration
import WireCore
import ZIPFoundation

/// Reading the zip inside the envelope (seed 000 §4.1): every entry is checked before anything is
/// written. (`PackageWriter` and `StoredZip` write it.)
public enum PackageArchive {
    /// Bounds a receiver applies before unpacking (MIG-PKG-006).
    public struct Limits: Sendable {
        public var maxEntries = 1_000_000
        public var maxTotalBytes: Int64 = 1 << 40
        public init() {}
    }

    /// Checks every entry (MIG-PKG-006) and returns the package's top folder, without writing anything.
    public static func inspect(_ zip: URL, limits: Limits = Limits()) throws -> String {
        let archive: Archive
        do {
            archive = try Archive(url: zip, accessMode: .read)
        } catch {
            throw PackageError.invalid(violation("a readable zip archive", "\(error)", at: .root))
        }
        var folder: String?
        var seen: Set<String> = []
        var total: Int64 = 0
        var count = 0
        for entry in archive {
            count += 1
            let path = entry.path
            let at = JSONPointer.root / "entries" / path
            guard count <= limits.maxEntries else { throw PackageError.invalid(violation("at most \(limits.maxEntries) entries", "more", at: .root)) }
            guard entry.type != .symlink else { throw PackageError.invalid(violation("files and folders only", "a symbolic link", at: at)) }
            let trimmed = path.hasSuffix("/") && entry.type == .directory ? String(path.dropLast()) : path
            guard PackagePath.isSafe(trimmed) else {
                throw PackageError.invalid(violation("a relative path that stays inside the package", JSONSerializer.quoted(path), at: at))
            }
            let top = String(trimmed.prefix(while: { $0 != "/" }))
            guard top.hasPrefix("Backup-"), folder == nil || folder == top else {
                throw PackageError.invalid(violation("every entry inside one Backup-{backupId}/ folder", JSONSerializer.quoted(path), at: at))
            }
            folder = top
            guard seen.insert(trimmed).inserted else { throw PackageError.invalid(violation("each path once", "a second \(path)", at: at)) }
            total += Int64(entry.uncompressedSize)
            guard total <= limits.maxTotalBytes else {
                throw PackageError.invalid(violation("at most \(limits.maxTotalBytes) bytes unpacked", "\(total)", at: at))
            }
            // A deflated entry may expand at most 1000-fold: zip bombs stop here, before a byte is written.
            if entry.type == .file, Int64(entry.uncompressedSize) > 1000 * Int64(entry.compressedSize) + (1 << 20) {
                throw PackageError.invalid(violation("a compression ratio of at most 1000", "\(entry.uncompressedSize) from \(entry.compressedSize) bytes", at: at))
            }
        }
        guard let folder else { throw PackageError.invalid(violation("a Backup-{backupId}/ folder", "an empty archive", at: .root)) }
        return folder
    }

    /// Extracts the file entries `select` picks below `destination` (already inspected), writing
    /// no more bytes than each entry declares; `admit` sees each entry's path and declared size
    /// before a byte of it is written, and may refuse it. Returns the inventory relative to the
    /// package folder.
    static func extract(
        _ zip: URL, folder: String, to destination: URL, select: (String) -> Bool = { _ in true },
        admit: (String, Int64) throws -> Void = { _, _ in }
    ) throws -> FileInventory {
        let archive = try Archive(url: zip, accessMode: .read)
        var inventory: FileInventory = [:]
        for entry in archive where entry.type == .file {
            let relative = String(entry.path.dropFirst(folder.count + 1))
            guard select(relative) else { continue }
            try admit(relative, Int64(entry.uncompressedSize))
            let target = destination.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            let out = try FileWriter(creating: target)
            var hasher = SHA256()
            var written: Int64 = 0
            // The SHA-256 of every file is checked against the manifest; the slow CRC-32 adds nothing.
            // 1 MiB chunks: one write(2) each (see EnvelopeFile.open).
            _ = try archive.extract(entry, bufferSize: 1 << 20, skipCRC32: true) { chunk in
                written += Int64(chunk.count)
                guard written <= Int64(entry.uncompressedSize) else {
                    throw PackageError.invalid(violation("at most its declared \(entry.uncompressedSize) bytes", "more", at: .root / "entries" / entry.path))
                }
                hasher.update(data: chunk)
                try out.write(chunk)
            }
            inventory[relative] = (written, hasher.finalize().hexEncoded)
        }
        return inventory
    }

    static func violation(_ expected: String, _ found: String, at path: JSONPointer) -> Violation {
        Violation(rule: MigrationRule.archive, path: path, expected: expected, found: found)
    }
}
