import Foundation
import Migration
import MigrationPackage
import Reference
import WireCore

/// `conformance check` on whole migration packages: an `.enc` (with its password), a `.zip`,
/// or an unpacked `Backup-{backupId}/` folder. Streams from disk; never loads a package whole.
public enum PackageChecker {

    public static func check(_ url: URL, password: String?, policy: EnvelopePolicy = .standard) -> DocumentChecker.Result {
        let name = url.path
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        do {
            let manifest: Manifest
            if isDirectory.boolValue {
                manifest = try Restorer.check(folder: url)
            } else if url.pathExtension == "zip" {
                manifest = try Restorer.check(zip: url, scratch: scratch())
            } else {
                guard let password else {
                    return failure(name, "envelope", Violation(rule: MigrationRule.envelopePassword, path: .root, expected: "a password (--password-file)", found: "none"))
                }
                manifest = try Restorer.check(envelope: url, password: password, policy: policy, scratch: scratch())
            }
            return DocumentChecker.Result(name: name, kind: "package", violations: [], canonical: ["backupId": .string(manifest.backupId)])
        } catch let error as PackageError {
            if let violation = error.violation { return failure(name, "package", violation) }
            return failure(name, "package", Violation(rule: MigrationRule.archive, path: .root, expected: "a readable package", found: error.description))
        } catch {
            return failure(name, "package", Violation(rule: MigrationRule.archive, path: .root, expected: "a readable package", found: "\(error)"))
        }
    }

    static func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("conformance-check-\(UUID().uuidString)")
    }

    static func failure(_ name: String, _ kind: String, _ violation: Violation) -> DocumentChecker.Result {
        var v = violation
        v.subject = name
        return DocumentChecker.Result(name: name, kind: kind, violations: [v], canonical: nil)
    }
}
