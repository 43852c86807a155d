import WireCore

/// A package's files as found on disk: path (relative to `Backup-{id}/`) → size and SHA-256.
public typealias FileInventory = [String: (size: Int64, sha256: String)]

/// The cross-file rules (Spec migration.md §3.4): what no single document can show.
/// Runs after every document passed on its own; the first failing check is reported, with a
/// pointer whose first token is the file (`/manifest.json/...`, `/coredata/media.json/3/storyId`).
public enum PackageConsistency {
    public static func check(manifest: Manifest, exports: [ExportKind: Export], files: FileInventory) throws(Violation) {
        let manifestPath = JSONPointer.root / PackagePath.manifest
        func exportPath(_ kind: ExportKind) -> JSONPointer { .root / "coredata" / kind.fileName }

        // MIG-PKG-007: the master key travels, non-empty and bounded.
        guard let key = files[PackagePath.masterKey] else {
            throw Violation(rule: MigrationRule.masterKey, path: .root / "security" / "master_key.bin", expected: "the master key file", found: "absent")
        }
        guard key.size >= 1 && key.size <= 4096 else {
            throw Violation(rule: MigrationRule.masterKey, path: .root / "security" / "master_key.bin", expected: "1 to 4096 bytes", found: "\(key.size) bytes")
        }

        // MIG-PKG-005: the listed files are exactly the files, with their sizes and digests.
        let listed = Dictionary(uniqueKeysWithValues: manifest.files.enumerated().map { ($1.path, ($0, $1)) })
        for (path, found) in files.sorted(by: { $0.key < $1.key }) {
            guard let (i, entry) = listed[path] else {
                throw Violation(rule: MigrationRule.files, path: .root / "files" / path, expected: "listed in manifest integrity.files", found: "an unlisted file")
            }
            let at = manifestPath / "integrity" / "files" / i
            guard entry.size == found.size else {
                throw Violation(rule: MigrationRule.files, path: at / "size", expected: "\(found.size) (the file's size)", found: "\(entry.size)")
            }
            guard entry.sha256 == found.sha256 else {
                throw Violation(rule: MigrationRule.files, path: at / "sha256", expected: found.sha256 + " (the file's digest)", found: entry.sha256)
            }
        }
        for (i, entry) in manifest.files.enumerated() where files[entry.path] == nil {
            throw Violation(rule: MigrationRule.files, path: manifestPath / "integrity" / "files" / i / "path", expected: "a file in the package", found: "absent: " + entry.path)
        }
        for kind in ExportKind.allCases where files[PackagePath.export(kind)] == nil {
            throw Violation(rule: MigrationRule.files, path: exportPath(kind), expected: "the export file", found: "absent")
        }

        // MIG-PKG-001: the statistics are the counts of what is there.
        for kind in ExportKind.allCases {
            guard let name = kind.entityName, let export = exports[kind] else { continue }
            let stated = manifest.entityCounts[name] ?? -1
            guard stated == Int64(export.count) else {
                throw Violation(
                    rule: MigrationRule.counts, path: manifestPath / "entityStats" / name / "count",
                    expected: "\(export.count) (elements of \(kind.fileName))", found: "\(stated)")
            }
        }
        let mediaFiles = files.filter { $0.key.hasBytePrefix(PackagePath.mediaPrefix) }
        guard manifest.totalFiles == Int64(mediaFiles.count) else {
            throw Violation(rule: MigrationRule.counts, path: manifestPath / "mediaStats" / "totalFiles", expected: "\(mediaFiles.count) (files under media/)", found: "\(manifest.totalFiles)")
        }
        let bytes = mediaFiles.values.reduce(Int64(0)) { $0 + $1.size }
        guard manifest.totalBytes == bytes else {
            throw Violation(rule: MigrationRule.counts, path: manifestPath / "mediaStats" / "totalBytes", expected: "\(bytes) (bytes under media/)", found: "\(manifest.totalBytes)")
        }

        // MIG-PKG-002: the three statements about broken media agree.
        let media = exports[.media]?.media ?? []
        let mediaIndex = Dictionary(media.enumerated().map { ($1.id.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        guard manifest.hasBrokenMedia == (manifest.brokenMediaCount > 0) else {
            throw Violation(
                rule: MigrationRule.brokenConsistency, path: manifestPath / "options" / "hasBrokenMedia",
                expected: "\(manifest.brokenMediaCount > 0) (brokenMediaCount is \(manifest.brokenMediaCount))", found: "\(manifest.hasBrokenMedia)")
        }
        guard manifest.brokenMediaCount == Int64(manifest.brokenMedia.count) else {
            throw Violation(
                rule: MigrationRule.brokenConsistency, path: manifestPath / "options" / "brokenMediaCount",
                expected: "\(manifest.brokenMedia.count) (entries of brokenMedia)", found: "\(manifest.brokenMediaCount)")
        }
        var broken: Set<String> = []
        for (i, b) in manifest.brokenMedia.enumerated() {
            guard let m = mediaIndex[b.mediaId.lowercased()] else {
                throw Violation(rule: MigrationRule.brokenConsistency, path: manifestPath / "brokenMedia" / i / "mediaId", expected: "an id of media.json", found: b.mediaId)
            }
            guard b.fileName.bytesEqual(media[m].fileName) else {
                throw Violation(rule: MigrationRule.brokenConsistency, path: manifestPath / "brokenMedia" / i / "fileName", expected: media[m].fileName, found: b.fileName)
            }
            broken.insert(b.mediaId.lowercased())
        }

        // MIG-PKG-003: every reference names an element that exists.
        let categories = exports[.categories]?.categories ?? []
        let categoryIndex = Dictionary(categories.enumerated().map { ($1.id.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        let storyIDs = Set((exports[.stories]?.stories ?? []).map { $0.id.lowercased() })
        for (i, c) in categories.enumerated() {
            if let parent = c.parentId, categoryIndex[parent.lowercased()] == nil {
                throw Violation(rule: MigrationRule.references, path: exportPath(.categories) / i / "parentId", expected: "an id of categories.json", found: parent)
            }
        }
        for (i, m) in media.enumerated() {
            if let story = m.storyId, !storyIDs.contains(story.lowercased()) {
                throw Violation(rule: MigrationRule.references, path: exportPath(.media) / i / "storyId", expected: "an id of stories.json", found: story)
            }
        }
        for (i, rel) in (exports[.relations]?.relations ?? []).enumerated() {
            guard storyIDs.contains(rel.storyId.lowercased()) else {
                throw Violation(rule: MigrationRule.references, path: exportPath(.relations) / i / "storyId", expected: "an id of stories.json", found: rel.storyId)
            }
            guard categoryIndex[rel.categoryId.lowercased()] != nil else {
                throw Violation(rule: MigrationRule.references, path: exportPath(.relations) / i / "categoryId", expected: "an id of categories.json", found: rel.categoryId)
            }
        }

        // MIG-PKG-004: the category tree: roots at level 1, children one level below their parent, no cycle.
        for (i, c) in categories.enumerated() {
            let expectedLevel: Int64
            if let parent = c.parentId, let p = categoryIndex[parent.lowercased()] {
                var seen: Set<Int> = [i]
                var cursor: Int? = p
                while let at = cursor {
                    guard seen.insert(at).inserted else {
                        throw Violation(rule: MigrationRule.categoryTree, path: exportPath(.categories) / i / "parentId", expected: "a tree", found: "a cycle through \(parent)")
                    }
                    cursor = categories[at].parentId.flatMap { categoryIndex[$0.lowercased()] }
                }
                expectedLevel = categories[p].level + 1
            } else {
                expectedLevel = 1
            }
            guard c.level == expectedLevel else {
                throw Violation(rule: MigrationRule.categoryTree, path: exportPath(.categories) / i / "level", expected: "\(expectedLevel)", found: "\(c.level)")
            }
        }

        // MIG-PKG-005 (media): every sound media file is where its record says, with its size.
        for (i, m) in media.enumerated() where !broken.contains(m.id.lowercased()) {
            let path = PackagePath.mediaPrefix + m.folder + "/" + m.fileName
            guard let file = files[path] else {
                throw Violation(rule: MigrationRule.files, path: exportPath(.media) / i / "fileName", expected: "the file " + path, found: "absent (and not listed as broken)")
            }
            guard file.size == m.fileSize else {
                throw Violation(rule: MigrationRule.files, path: exportPath(.media) / i / "fileSize", expected: "\(file.size) (the file's size)", found: "\(m.fileSize)")
            }
            if let thumb = m.thumbnailFileName, files[PackagePath.mediaPrefix + m.folder + "/" + thumb] == nil {
                throw Violation(
                    rule: MigrationRule.files, path: exportPath(.media) / i / "thumbnailFileName", expected: "the file media/\(m.folder)/\(thumb)", found: "absent")
            }
        }
        for id in broken {
            guard let m = mediaIndex[id] else { continue }
            let path = PackagePath.mediaPrefix + media[m].folder + "/" + media[m].fileName
            if files[path] != nil {
                throw Violation(rule: MigrationRule.brokenConsistency, path: exportPath(.media) / m / "fileName", expected: "absent (listed as broken)", found: "present: " + path)
            }
        }
    }
}
