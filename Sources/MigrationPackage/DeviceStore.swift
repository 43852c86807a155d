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

    /// Every regular file of the store, relative to its root, sorted: what "identical stores" compares.
    public func inventory() throws -> [String: String] {
        var result: [String: String] = [:]
        for path in try FileSystem.files(under: root) {
            result[path] = try FileSystem.sha256(of: root.appendingPathComponent(path))
        }
        return result
    }
}
