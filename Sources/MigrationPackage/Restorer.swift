import Foundation
import Migration
import WireCore

/// The receiver's side (seed 000 §7.3): open the envelope, check the zip, unpack into staging,
/// validate everything, build the new store, verify it, then switch atomically. Any failure
/// before the switch leaves the old store untouched; a crash anywhere is repaired by
/// `StoreTransaction.recover` to the old store or the complete new one.
public enum Restorer {
    public struct Options: Sendable {
        public var keepPrevious = false
        public var policy = EnvelopePolicy.standard
        public var supportedSchemaVersion: Int64 = 1
        public var limits = PackageArchive.Limits()
        /// After a transfer: the backupId BackupMeta announced, which the manifest must carry (MIG-XFER-004).
        public var expectedBackupId: String?
        public init() {}
    }

    public struct Result: Sendable {
        public var backupId: String
        public var entityCounts: [String: Int64]
        public var mediaFiles: Int64
    }

    public static func restore(
        _ envelope: URL, password: String, into store: DeviceStore, options: Options = Options(),
        checkpoint: StoreTransaction.Checkpoint = { _ in }
    ) throws -> Result {
        try StoreTransaction.recover(store)
        let fm = FileManager.default
        if !fm.fileExists(atPath: store.root.path) {
            // A phone that never ran the app: its old store is the empty one.
            try fm.createDirectory(at: store.root, withIntermediateDirectories: true)
        }
        defer { try? FileSystem.removeIfPresent(store.staging) }
        do {
            // Opened in place: the zip is never written out decrypted (each file is written once).
            var zip = try EnvelopeZip(envelope, password: password, policy: options.policy)
            try FileSystem.removeIfPresent(store.staging)
            try fm.createDirectory(at: store.staging, withIntermediateDirectories: true)
            let (folder, files) = try unpack(&zip, to: store.staging, limits: options.limits, supportedSchemaVersion: options.supportedSchemaVersion) {
                try checkpoint("checked")
            }
            try checkpoint("extracted")
            return try commit(store, folder: folder, files: files, options: options, checkpoint: checkpoint)
        } catch let error as PackageError {
            try? cleanUpBeforeCommit(store)
            throw error
        }
    }

    /// The unpacked package in `store.staging` checked (the documents, then §3.4), built into a
    /// store and switched in: the end of every restore, file-first or streamed.
    static func commit(_ store: DeviceStore, folder: String, files: FileInventory, options: Options, checkpoint: StoreTransaction.Checkpoint) throws -> Result {
        let (manifest, _) = try validate(store.staging, folder: folder, files: files, supportedSchemaVersion: options.supportedSchemaVersion)
        if let announced = options.expectedBackupId, announced != manifest.backupId {
            throw PackageError.invalid(
                Violation(
                    rule: MigrationRule.finalDigest, path: pointer(PackagePath.manifest) / "backupId", expected: "\(announced), as BackupMeta announced",
                    found: manifest.backupId))
        }
        try checkpoint("validated")
        try build(store, from: store.staging)
        try checkpoint("built")
        try StoreTransaction.commit(store, keepPrevious: options.keepPrevious, checkpoint: checkpoint)
        return Result(backupId: manifest.backupId, entityCounts: manifest.entityCounts, mediaFiles: manifest.totalFiles)
    }

    /// Checks a package zip (MIG-PKG-006, the manifest, the exports, §3.4) by unpacking it into
    /// `scratch`, which is removed afterwards. The kit's `package` kind and `conformance check` use it.
    public static func check(zip: URL, scratch: URL, supportedSchemaVersion: Int64 = 1, limits: PackageArchive.Limits = .init()) throws -> Manifest {
        var bytes = try PlainZip(zip)
        return try check(&bytes, scratch: scratch, supportedSchemaVersion: supportedSchemaVersion, limits: limits)
    }

    /// Checks an envelope (MIG-ENV-*) and the package inside it as `check(zip:)` does, opening
    /// the envelope in place as `restore` does: no decrypted zip is written.
    public static func check(
        envelope: URL, password: String, policy: EnvelopePolicy = .standard, scratch: URL, supportedSchemaVersion: Int64 = 1,
        limits: PackageArchive.Limits = .init()
    ) throws -> Manifest {
        var bytes = try EnvelopeZip(envelope, password: password, policy: policy)
        return try check(&bytes, scratch: scratch, supportedSchemaVersion: supportedSchemaVersion, limits: limits)
    }

    private static func check(_ bytes: inout some ZipBytes, scratch: URL, supportedSchemaVersion: Int64, limits: PackageArchive.Limits) throws -> Manifest {
        defer { try? FileSystem.removeIfPresent(scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let (folder, files) = try unpack(&bytes, to: scratch, limits: limits, supportedSchemaVersion: supportedSchemaVersion)
        return try validate(scratch, folder: folder, files: files, supportedSchemaVersion: supportedSchemaVersion).0
    }

    /// Every file of an envelope's package (`manifest.json` included), relative to its folder,
    /// with size and SHA-256: checked as `check(envelope:)` checks it, unpacked into `scratch`,
    /// which is removed afterwards. What MIG-REST-001 holds a restored store to.
    public static func files(
        envelope: URL, password: String, policy: EnvelopePolicy = .standard, scratch: URL, supportedSchemaVersion: Int64 = 1,
        limits: PackageArchive.Limits = .init()
    ) throws -> FileInventory {
        var bytes = try EnvelopeZip(envelope, password: password, policy: policy)
        defer { try? FileSystem.removeIfPresent(scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let (folder, files) = try unpack(&bytes, to: scratch, limits: limits, supportedSchemaVersion: supportedSchemaVersion)
        _ = try validate(scratch, folder: folder, files: files, supportedSchemaVersion: supportedSchemaVersion)
        return files
    }

    /// Checks an unpacked `Backup-{backupId}/` folder as a receiver would check the zip's content.
    public static func check(folder: URL, supportedSchemaVersion: Int64 = 1) throws -> Manifest {
        var files: FileInventory = [:]
        var names = PackageArchive.Names()
        for path in try FileSystem.files(under: folder) {
            // A folder is held to the names a zip of it would need (a Linux folder can hold `é` twice).
            try names.admit(path, at: .root / "entries" / (folder.lastPathComponent + "/" + path))
            let url = folder.appendingPathComponent(path)
            files[path] = (try FileSystem.size(of: url), try FileSystem.sha256(of: url))
        }
        return try validate(folder, folder: folder.lastPathComponent, files: files, supportedSchemaVersion: supportedSchemaVersion).0
    }

    /// Checks every entry (MIG-PKG-006), unpacks the manifest and checks it, then checks that
    /// every other file is listed in its `integrity.files` at its listed size (MIG-PKG-005):
    /// all before a byte of them is written, so staging never holds more than the manifest
    /// declares. Then writes them in one pass over the zip. `checked` runs before that pass.
    static func unpack(
        _ zip: inout some ZipBytes, to destination: URL, limits: PackageArchive.Limits, supportedSchemaVersion: Int64,
        checked: () throws -> Void = {}
    ) throws -> (folder: String, files: FileInventory) {
        let archive = try PackageArchive.inspect(&zip, limits: limits)
        let relative = { (entry: ZipEntry) in PackagePath.relative(entry.path, below: archive.folder) ?? entry.path }
        let manifestEntries = archive.files.filter { relative($0) == PackagePath.manifest }
        let rest = archive.files.filter { relative($0) != PackagePath.manifest }
        var files = try PackageArchive.extract(manifestEntries, folder: archive.folder, from: &zip, to: destination, whole: false)
        let manifest = try decodeManifest(destination, supportedSchemaVersion: supportedSchemaVersion)
        try checkListed(rest.map { (relative($0), $0.size) }, in: manifest)
        try checked()
        files.merge(try PackageArchive.extract(rest, folder: archive.folder, from: &zip, to: destination, whole: true)) { a, _ in a }
        return (archive.folder, files)
    }

    /// Every file of the package but the manifest is listed in its `integrity.files` at its size (MIG-PKG-005).
    static func checkListed(_ files: [(path: String, size: Int64)], in manifest: Manifest) throws {
        let listed = Dictionary(manifest.files.enumerated().map { ($1.path, ($0, $1.size)) }, uniquingKeysWith: { a, _ in a })
        for (path, size) in files {
            guard let (i, listedSize) = listed[path] else {
                throw PackageError.invalid(
                    Violation(rule: MigrationRule.files, path: .root / "files" / path, expected: "listed in manifest integrity.files", found: "an unlisted file"))
            }
            guard size == listedSize else {
                throw PackageError.invalid(
                    Violation(
                        rule: MigrationRule.files, path: pointer(PackagePath.manifest) / "integrity" / "files" / i / "size",
                        expected: "\(size) (the file's size)", found: "\(listedSize)"))
            }
        }
    }

    /// Undoes a failed unpack that had not reached the switch.
    static func cleanUpBeforeCommit(_ store: DeviceStore) throws {
        if !FileManager.default.fileExists(atPath: store.journal.path) {
            try FileSystem.removeIfPresent(store.incoming)
        }
    }

    /// Every document, then every cross-file rule; the first violation stops the restore.
    static func validate(_ root: URL, folder: String, files: FileInventory, supportedSchemaVersion: Int64) throws -> (Manifest, [ExportKind: Export]) {
        let manifest = try decodeManifest(root, supportedSchemaVersion: supportedSchemaVersion)
        guard folder == PackagePath.folder(backupId: manifest.backupId) else {
            throw PackageError.invalid(
                Violation(rule: MigrationRule.backupID, path: pointer(PackagePath.manifest) / "backupId", expected: "the id in the folder name \(folder)", found: manifest.backupId))
        }
        var exports: [ExportKind: Export] = [:]
        for kind in ExportKind.importOrder {
            let path = PackagePath.export(kind)
            let value = try document(root, path)
            do {
                exports[kind] = try Export.decode(value, as: kind)
            } catch {
                throw PackageError.invalid(error.nested(under: pointer(path)))
            }
        }
        var withoutManifest = files
        withoutManifest[PackagePath.manifest] = nil
        do {
            try PackageConsistency.check(manifest: manifest, exports: exports, files: withoutManifest)
        } catch {
            throw PackageError.invalid(error)
        }
        return (manifest, exports)
    }

    static func document(_ root: URL, _ path: String) throws -> JSONValue {
        let url = root.appendingPathComponent(path)
        let absent = PackageError.invalid(Violation(rule: MigrationRule.files, path: pointer(path), expected: "the file", found: "absent"))
        guard let size = try? FileSystem.size(of: url) else { throw absent }
        // Refused by its size before it is read: a listed export may be as large as the package.
        if let tooLarge = JSONParser.sizeViolation(Int(clamping: size), limits: PackageDocument.limits) {
            throw PackageError.invalid(tooLarge.nested(under: pointer(path)))
        }
        // A folder where the document belongs is no document either.
        guard let bytes = try? FileReader.contents(of: url) else { throw absent }
        do throws(Violation) {
            return try JSONParser.parse(bytes, limits: PackageDocument.limits)
        } catch {
            throw PackageError.invalid(error.nested(under: pointer(path)))
        }
    }

    static func decodeManifest(_ root: URL, supportedSchemaVersion: Int64) throws -> Manifest {
        let value = try document(root, PackagePath.manifest)
        do {
            return try Manifest.decode(value, supportedSchemaVersion: supportedSchemaVersion)
        } catch {
            throw PackageError.invalid(error.nested(under: pointer(PackagePath.manifest)))
        }
    }

    /// `/coredata/media.json` for the file `coredata/media.json`.
    static func pointer(_ path: String) -> JSONPointer {
        JSONPointer(tokens: path.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) })
    }

    /// Moves the validated package into the shape of a store, in the seed's import order.
    static func build(_ store: DeviceStore, from staging: URL) throws {
        let fm = FileManager.default
        try FileSystem.removeIfPresent(store.incoming)
        let incoming = DeviceStore(store.incoming)
        try fm.createDirectory(at: incoming.data, withIntermediateDirectories: true)
        for kind in ExportKind.importOrder {
            try FileSystem.move(staging.appendingPathComponent(PackagePath.export(kind)), to: incoming.export(kind))
        }
        try fm.createDirectory(at: incoming.media.deletingLastPathComponent(), withIntermediateDirectories: true)
        let media = staging.appendingPathComponent("media")
        if fm.fileExists(atPath: media.path) {
            try FileSystem.move(media, to: incoming.media)
        } else {
            try fm.createDirectory(at: incoming.media, withIntermediateDirectories: true)
        }
        try fm.createDirectory(at: incoming.masterKey.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileSystem.move(staging.appendingPathComponent(PackagePath.masterKey), to: incoming.masterKey)
    }

    /// Puts `BackupBeforeMigration` back in place of the current store (seed 000 §7.3 "可选回滚").
    public static func rollback(_ store: DeviceStore, checkpoint: StoreTransaction.Checkpoint = { _ in }) throws {
        try StoreTransaction.recover(store)
        guard FileManager.default.fileExists(atPath: store.backupBeforeMigration.path) else {
            throw PackageError.io("no \(store.backupBeforeMigration.lastPathComponent) to roll back to")
        }
        // A copy keeps the kept store intact until the switch is committed.
        try FileSystem.removeIfPresent(store.incoming)
        try FileManager.default.copyItem(at: store.backupBeforeMigration, to: store.incoming)
        try checkpoint("rollback-copied")
        try StoreTransaction.commit(store, keepPrevious: false, checkpoint: checkpoint)
        try FileManager.default.removeItem(at: store.backupBeforeMigration)
    }
}
