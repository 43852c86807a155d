import Foundation
import Migration

/// A folder that stands in for the app on disk (seed 000 §2.1, §4.2):
///
///     STORE/Data/<export>.json                      the Core Data entities, in the export shape
///     STORE/Documents/Media/{Images,Videos}/YYYY/MM the encrypted media files (MediaStorageService)
///     STORE/Keychain/MyStory.MasterKey              the Keychain item
///
/// Siblings used while restoring: `STORE.staging`, `STORE.incoming`, `STORE.previous`,
/// `STORE.journal`, `STORE.transfer` (a package arriving), and `STORE.BackupBeforeMigration` when the old data is kept.
public struct DeviceStore: Sendable {
    public let root: URL

    public init(_ root: URL) {
        self.root = root.standardizedFileURL
    }

    public var data: URL { root.appendingPathComponent("Data") }
    public var media: URL { root.appendingPathComponent("Documents/Media") }
    public var masterKey: URL { root.appendingPathComponent("Keychain/MyStory.MasterKey") }
    public func export(_ kind: ExportKind) -> URL { data.appendingPathComponent(kind.fileName) }

    func sibling(_ suffix: String) -> URL {
        root.deletingLastPathComponent().appendingPathComponent(root.lastPathComponent + "." + suffix)
    }

    var staging: URL { sibling("staging") }
    var incoming: URL { sibling("incoming") }
    var previous: URL { sibling("previous") }
    var journal: URL { sibling("journal") }
    /// Where a package arrives over the network: `backup-{id}.enc.tmp` and its resume journal.
    public var transfer: URL { sibling("transfer") }
    /// The old store, kept by `--keep-previous` for `rollback` (seed 000 §7.3).
    public var backupBeforeMigration: URL { sibling("BackupBeforeMigration") }

    /// A file's size and modification time, and the digest read when it had them.
    public struct Stamp: Sendable, Equatable {
        var size: Int
        var modified: Date
        var sha256: String
    }

    /// Every entry under `root` as MIG-REST-001 compares a store: regular files by SHA-256; a
    /// symbolic link (never followed) or another special file by a digest no file has, its path
    /// saying what it is. An absent folder is an empty store. A file whose size and modification
    /// time are those `stamps` holds keeps its digest: a store polled while a receiver restores
    /// is hashed once, not on every look.
    public static func contents(of root: URL, stamps: inout [String: Stamp]) throws -> [RestoredStore.File] {
        let manager = FileManager.default
        guard manager.fileExists(atPath: root.path) else { return [] }
        let keys: [URLResourceKey] = [.isRegularFileKey, .isSymbolicLinkKey, .isDirectoryKey, .fileSizeKey, .contentModificationDateKey]
        guard let enumerator = manager.enumerator(at: root, includingPropertiesForKeys: keys) else { return [] }
        let base = root.standardizedFileURL.path
        var files: [RestoredStore.File] = []
        for case let url as URL in enumerator {
            let values = try url.resourceValues(forKeys: Set(keys))
            if values.isDirectory == true && values.isSymbolicLink != true { continue }
            let relative = url.standardizedFileURL.path.droppingBytePrefix(base + "/") ?? url.lastPathComponent
            if values.isRegularFile == true, values.isSymbolicLink != true {
                let (size, modified) = (values.fileSize ?? -1, values.contentModificationDate ?? .distantPast)
                var stamp = stamps[relative]
                if stamp?.size != size || stamp?.modified != modified {
                    stamp = Stamp(size: size, modified: modified, sha256: try FileSystem.sha256(of: url))
                    stamps[relative] = stamp
                }
                files.append(RestoredStore.File(path: relative, sha256: stamp?.sha256 ?? ""))
            } else if values.isSymbolicLink == true {
                let target = (try? manager.destinationOfSymbolicLink(atPath: url.path)) ?? "?"
                files.append(RestoredStore.File(path: relative + " (a symbolic link to \(target))", sha256: "symbolic link"))
            } else {
                files.append(RestoredStore.File(path: relative + " (not a regular file)", sha256: "special file"))
            }
        }
        return files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    /// Every regular file of the store, relative to its root, sorted: what "identical stores" compares.
    public func inventory() throws -> [String: String] {
        var result: [String: String] = [:]
        for path in try FileSystem.files(under: root) {
            result[path] = try FileSystem.sha256(of: root.appendingPathComponent(path))
        }
        return result
    }
}
