import Foundation
import WireCore

/// `manifest.json` (seed 000 §5, with the Spec's decisions on integrity: migration.md §3).
public struct Manifest: Sendable, Hashable {
    public struct FileEntry: Sendable, Hashable {
        public var path: String
        public var size: Int64
        public var sha256: String
    }

    public struct BrokenMedia: Sendable, Hashable {
        public var mediaId: String
        public var fileName: String
        public var reason: String
    }

    public var backupId: String
    public var appVersion: String
    public var schemaVersion: Int64
    public var createdAt: Int64
    public var entityCounts: [String: Int64]
    public var totalFiles: Int64
    public var totalBytes: Int64
    public var files: [FileEntry]
    public var hasBrokenMedia: Bool
    public var brokenMediaCount: Int64
    public var brokenMedia: [BrokenMedia]
    public var canonical: JSONValue

    public static let entityNames = ["CategoryEntity", "StoryEntity", "MediaEntity", "SettingEntity"]
    public static let brokenReasons = ["FILE_NOT_FOUND", "READ_ERROR"]

    /// `supportedSchemaVersion`: the newest export schema this receiver can import (MIG-MAN-003).
    /// Throws the first violation; `check` reports them all.
    public static func decode(_ document: JSONValue, supportedSchemaVersion: Int64 = 1) throws(Violation) -> Manifest {
        switch check(document, supportedSchemaVersion: supportedSchemaVersion) {
        case .success(let manifest): return manifest
        case .failure(let list): throw list.first
        }
    }

    /// Every member group is checked on its own (backupId, appVersion, schemaVersion, createdAt,
    /// entityStats, mediaStats, integrity, options, each brokenMedia element), so one run reports
    /// every independent violation, in document order.
    public static func check(_ document: JSONValue, supportedSchemaVersion: Int64 = 1) -> Result<Manifest, ViolationList> {
        let r: ObjectReader
        do throws(Violation) {
            r = try ObjectReader(document: document)
        } catch {
            return .failure(ViolationList([error]))
        }
        var checks = IndependentChecks()
        let backupId = checks.check { () throws(Violation) in try MigrationFields.uuid(r, "backupId") }
        let appVersion = checks.check { () throws(Violation) in try MigrationFields.nonBlank(r, "appVersion", rule: MigrationRule.appVersion) }
        let schemaVersion = checks.check { () throws(Violation) -> Int64 in
            let schemaVersion = try r.integer("schemaVersion")
            guard schemaVersion >= 1, schemaVersion <= supportedSchemaVersion else {
                throw Violation(
                    rule: MigrationRule.schemaVersion, path: r.pointer("schemaVersion"),
                    expected: "1...\(supportedSchemaVersion) (update the app to import newer backups)", found: "\(schemaVersion)")
            }
            return schemaVersion
        }
        let createdAt = checks.check { () throws(Violation) in try MigrationFields.seconds(r, "createdAt") }
        let counts = checks.check { () throws(Violation) -> [String: Int64] in
            let stats = try r.objectReader("entityStats")
            var counts: [String: Int64] = [:]
            for name in entityNames {
                counts[name] = try MigrationFields.nonNegative(try stats.objectReader(name), "count", rule: MigrationRule.entityStats)
            }
            if let extra = stats.object.keys.first(where: { !entityNames.contains($0) }) {
                throw Violation(rule: MigrationRule.entityStats, path: stats.pointer(extra), expected: "only " + entityNames.joined(separator: ", "), found: extra)
            }
            return counts
        }
        let totals = checks.check { () throws(Violation) -> (Int64, Int64) in
            let media = try r.objectReader("mediaStats")
            return (
                try MigrationFields.nonNegative(media, "totalFiles", rule: MigrationRule.mediaStats),
                try MigrationFields.nonNegative(media, "totalBytes", rule: MigrationRule.mediaStats)
            )
        }
        let files = checks.check { () throws(Violation) in try integrityFiles(try r.objectReader("integrity")) }
        let flags = checks.check { () throws(Violation) -> (Bool, Int64) in
            let options = try r.objectReader("options")
            return (try options.bool("hasBrokenMedia"), try MigrationFields.nonNegative(options, "brokenMediaCount", rule: MigrationRule.brokenMedia))
        }
        var broken: [BrokenMedia] = []
        if let list = checks.check({ () throws(Violation) in try r.optionalArray("brokenMedia") ?? [] }) {
            for (i, value) in list.enumerated() {
                if let entry = checks.check({ () throws(Violation) in try brokenEntry(value, at: r.pointer("brokenMedia") / i) }) { broken.append(entry) }
            }
        }
        return checks.result { () throws(Violation) in
            guard let backupId, let appVersion, let schemaVersion, let createdAt, let counts, let totals, let files, let flags else {
                throw Violation(rule: MigrationRule.backupID, path: .root, expected: "a checked manifest", found: "an unchecked member")
            }
            return Manifest(
                backupId: backupId, appVersion: appVersion, schemaVersion: schemaVersion, createdAt: createdAt, entityCounts: counts,
                totalFiles: totals.0, totalBytes: totals.1, files: files, hasBrokenMedia: flags.0, brokenMediaCount: flags.1,
                brokenMedia: broken,
                canonical: r.givenMembers(["backupId", "appVersion", "schemaVersion", "createdAt", "entityStats", "mediaStats", "integrity", "options", "brokenMedia"]))
        }
    }

    static func brokenEntry(_ value: JSONValue, at path: JSONPointer) throws(Violation) -> BrokenMedia {
        let b = try ObjectReader(document: value, path: path)
        let mediaId = try MigrationFields.uuid(b, "mediaId")
        let fileName = try b.string("fileName")
        let reason = try b.string("reason")
        guard brokenReasons.contains(reason) else {
            throw Violation(
                rule: MigrationRule.brokenMedia, path: b.pointer("reason"), expected: brokenReasons.joined(separator: " or "),
                found: JSONSerializer.quoted(reason))
        }
        return BrokenMedia(mediaId: mediaId, fileName: fileName, reason: reason)
    }

    /// MIG-MAN-006: digests of every file in the package; the zip's own digest cannot live inside it.
    static func integrityFiles(_ integrity: ObjectReader) throws(Violation) -> [FileEntry] {
        for key in ["zipSize", "zipSHA256"] where integrity.raw(key) != nil {
            throw Violation(
                rule: MigrationRule.integrity, path: integrity.pointer(key),
                expected: "absent: a zip's digest cannot be stored inside the zip (it travels in BackupMeta)", found: "present")
        }
        let algorithm = try integrity.string("hashAlgorithm")
        guard algorithm == "SHA256" else {
            throw Violation(rule: MigrationRule.integrity, path: integrity.pointer("hashAlgorithm"), expected: "\"SHA256\"", found: JSONSerializer.quoted(algorithm))
        }
        var files: [FileEntry] = []
        var seen: [String: String] = [:]
        let manifestKey = PackagePath.collisionKey(PackagePath.manifest)
        for (i, value) in try integrity.array("files").enumerated() {
            let f = try ObjectReader(document: value, path: integrity.pointer("files") / i)
            let path = try f.string("path")
            guard PackagePath.isSafe(path), PackagePath.collisionKey(path) != manifestKey else {
                throw Violation(rule: MigrationRule.integrity, path: f.pointer("path"), expected: "a confined package path other than manifest.json", found: JSONSerializer.quoted(path))
            }
            guard PackagePath.isNFC(path) else {
                throw Violation(rule: MigrationRule.integrity, path: f.pointer("path"), expected: "a path in Unicode NFC", found: JSONSerializer.quoted(path))
            }
            // Unique as a case-insensitive volume sees them: `Case.bin` and `case.bin` are one file there.
            if let other = seen.updateValue(path, forKey: PackagePath.collisionKey(path)) {
                let found = other.utf8.elementsEqual(path.utf8) ? "a second \(JSONSerializer.quoted(path))" : "\(JSONSerializer.quoted(path)) beside \(JSONSerializer.quoted(other))"
                throw Violation(rule: MigrationRule.integrity, path: f.pointer("path"), expected: "each path listed once, also ignoring case", found: found)
            }
            let size = try MigrationFields.nonNegative(f, "size", rule: MigrationRule.integrity)
            let digest = try f.string("sha256")
            guard digest.utf8.count == 64, digest.utf8.allSatisfy({ Hex.isDigit($0) && !($0 >= 0x41 && $0 <= 0x46) }) else {
                throw Violation(rule: MigrationRule.integrity, path: f.pointer("sha256"), expected: "64 lower-case hex digits", found: JSONSerializer.quoted(digest))
            }
            files.append(FileEntry(path: path, size: size, sha256: digest))
        }
        return files
    }
}

/// The JSON documents of a package (manifest, exports): at most 256 MiB each (Spec migration.md).
public enum PackageDocument {
    public static let maxBytes = 256 << 20
    public static var limits: JSONLimits { JSONLimits(maxBytes: maxBytes, maxDepth: 64) }
}

/// Paths inside a package, relative to its `Backup-{backupId}/` folder (MIG-PKG-006).
public enum PackagePath {
    public static let manifest = "manifest.json"
    public static let masterKey = "security/master_key.bin"
    public static let mediaPrefix = "media/"
    public static func export(_ kind: ExportKind) -> String { "coredata/" + kind.fileName }
    public static func folder(backupId: String) -> String { "Backup-\(backupId)" }

    /// Relative, `/`-separated, no empty, `.` or `..` segment (nor one of only dots and spaces,
    /// which Windows reads as `..`), no backslash, colon or control character, at most 1024
    /// bytes: a path that cannot leave its folder on any platform. Split on the byte `/`, as the
    /// file system splits it: a Swift `Character` joins `/` with a following combining mark.
    public static func isSafe(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= 1024, bytes[0] != slash else { return false }
        if path.unicodeScalars.contains(where: { $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F || $0 == ":" }) { return false }
        return bytes.split(separator: slash, omittingEmptySubsequences: false).allSatisfy { segment in
            // Empty, ".", "..", and "...", ". ", ".. " that Windows trims to one of them.
            !segment.allSatisfy { $0 == 0x2E || $0 == 0x20 }
        }
    }

    /// Whether `path` is in Unicode Normalization Form C (MIG-PKG-006): canonically equivalent
    /// names are then equal byte for byte, so no two of them name one file on a volume that
    /// normalizes (APFS, HFS+) while a byte-wise reader counts two.
    public static func isNFC(_ path: String) -> Bool {
        path.precomposedStringWithCanonicalMapping.utf8.elementsEqual(path.utf8)
    }

    /// The name a case-insensitive volume (APFS and NTFS by default, FAT) sees: two paths with one
    /// key would be one file there (MIG-PKG-006). Unicode default case folding, then NFC.
    public static func collisionKey(_ path: String) -> String {
        path.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }

    /// The first segment of `path` (`Backup-<id>` for `Backup-<id>/media/x`), split on the byte `/`.
    public static func topFolder(_ path: String) -> String {
        String(decoding: path.utf8.prefix { $0 != slash }, as: UTF8.self)
    }

    /// `path` below `folder`: the bytes after `folder/`, or nil when it does not begin with them.
    public static func relative(_ path: String, below folder: String) -> String? {
        path.droppingBytePrefix(folder + "/")
    }

    /// `path` without one trailing `/` byte (a folder entry's name).
    public static func trimmingFolderSlash(_ path: String) -> String {
        path.utf8.last == slash ? String(decoding: path.utf8.dropLast(), as: UTF8.self) : path
    }

    public static func endsWithSlash(_ path: String) -> Bool { path.utf8.last == slash }

    private static let slash = UInt8(ascii: "/")
}
