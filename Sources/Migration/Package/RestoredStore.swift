import WireCore

/// MIG-REST-001 (Spec migration.md §4): what a receiver's store holds once a session ended.
/// After a package it verified, exactly the package's files, compared by content (where each
/// file lives is the app's layout; the manifest may be kept or not); after any other ending,
/// byte for byte what it held before. The kind `restored-store` judges a document that lists the
/// three inventories; the receiver role judges the store it is pointed at (`--store`) the same way.
public enum RestoredStore {
    /// One file: its path (relative to the package's folder or to the store) and SHA-256.
    public struct File: Sendable, Hashable {
        public var path: String
        public var sha256: String
        public init(path: String, sha256: String) {
            self.path = path
            self.sha256 = sha256
        }
    }

    /// How the session ended for the receiver: it verified the package (so it restores it), or not.
    public enum Outcome: String, Sendable { case verified, refused }

    /// The violations of MIG-REST-001, each at the file of the inventory that shows it.
    /// `package` is every file of the package, `manifest.json` (at the folder's top) included.
    public static func judge(outcome: Outcome, package: [File], before: [File], after: [File]) -> [Violation] {
        switch outcome {
        case .verified: return restored(package: package, after: after)
        case .refused: return unchanged(before: before, after: after)
        }
    }

    /// Content for content: each package file's digest as often as the package holds it, and no
    /// other file (one copy of the manifest allowed).
    static func restored(package: [File], after: [File]) -> [Violation] {
        var wanted: [String: [Int]] = [:]
        var manifest: String?
        for (i, file) in package.enumerated() {
            if file.path.bytesEqual(PackagePath.manifest) {
                manifest = file.sha256
            } else {
                wanted[file.sha256, default: []].append(i)
            }
        }
        var violations: [Violation] = []
        var manifestKept = false
        for (j, file) in after.enumerated() {
            if var waiting = wanted[file.sha256], !waiting.isEmpty {
                waiting.removeFirst()
                wanted[file.sha256] = waiting
            } else if let manifest, file.sha256 == manifest, !manifestKept {
                manifestKept = true
            } else {
                violations.append(
                    Violation(
                        rule: MigrationRule.restore, path: .root / "after" / j, expected: "only the package's files once it is verified",
                        found: "\(JSONSerializer.quoted(file.path)), which the package does not hold (sha256 \(file.sha256.prefix(12))…)"))
            }
        }
        let missing = wanted.values.flatMap { $0 }.sorted()
        let listed = package.count - (manifest == nil ? 0 : 1)
        if listed > 1, missing.count == listed {
            // Nothing of the package at all: one finding, not one per file.
            violations.append(
                Violation(
                    rule: MigrationRule.restore, path: .root / "package", expected: "the package's \(listed) files in the store once it is verified",
                    found: "none of them"))
        } else {
            for i in missing {
            violations.append(
                Violation(
                    rule: MigrationRule.restore, path: .root / "package" / i,
                    expected: "a file of the store with the content of \(JSONSerializer.quoted(package[i].path)) once the package is verified",
                    found: "none"))
            }
        }
        return violations.sorted { ($0.path.description.utf8.count, $0.path.description) < ($1.path.description.utf8.count, $1.path.description) }
    }

    /// Path for path, digest for digest: what the store held before, and nothing more.
    static func unchanged(before: [File], after: [File]) -> [Violation] {
        var now: [ByteString: (index: Int, sha256: String)] = [:]
        for (j, file) in after.enumerated() { now[ByteString(file.path)] = (j, file.sha256) }
        var violations: [Violation] = []
        for (i, file) in before.enumerated() {
            let key = ByteString(file.path)
            guard let found = now.removeValue(forKey: key) else {
                violations.append(
                    Violation(rule: MigrationRule.restore, path: .root / "before" / i, expected: "the store as it was, since the session restored nothing", found: "removed"))
                continue
            }
            if found.sha256 != file.sha256 {
                violations.append(
                    Violation(
                        rule: MigrationRule.restore, path: .root / "after" / found.index, expected: "the store as it was, since the session restored nothing",
                        found: "\(JSONSerializer.quoted(file.path)) changed (sha256 \(found.sha256.prefix(12))…, was \(file.sha256.prefix(12))…)"))
            }
        }
        for (_, added) in now.sorted(by: { $0.value.index < $1.value.index }) {
            violations.append(
                Violation(
                    rule: MigrationRule.restore, path: .root / "after" / added.index, expected: "the store as it was, since the session restored nothing",
                    found: "\(JSONSerializer.quoted(after[added.index].path)) added"))
        }
        return violations
    }

    /// The kind `restored-store`: `{outcome, package, before, after}`, each inventory an array of
    /// `{path, sha256}` (lowercase hex). The canonical form is the document's declared members.
    public static func check(_ document: JSONValue) throws(Violation) -> (canonical: JSONValue, violations: [Violation]) {
        let reader = try ObjectReader(document: document)
        let outcomeText = try reader.string("outcome")
        guard let outcome = Outcome(rawValue: outcomeText) else {
            throw Violation(rule: MigrationRule.restore, path: reader.pointer("outcome"), expected: "\"verified\" or \"refused\"", found: JSONSerializer.quoted(outcomeText))
        }
        func inventory(_ key: String) throws(Violation) -> [File] {
            var files: [File] = []
            for (i, item) in try reader.array(key).enumerated() {
                let file = try ObjectReader(document: item, path: reader.pointer(key) / i)
                let path = try file.string("path")
                let digest = try file.string("sha256")
                guard digest.utf8.count == 64, digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                    throw Violation(rule: MigrationRule.restore, path: file.pointer("sha256"), expected: "64 lowercase hex digits", found: JSONSerializer.quoted(digest))
                }
                files.append(File(path: path, sha256: digest))
            }
            return files
        }
        let package = try inventory("package"), before = try inventory("before"), after = try inventory("after")
        return (reader.givenMembers(["outcome", "package", "before", "after"]), judge(outcome: outcome, package: package, before: before, after: after))
    }
}
