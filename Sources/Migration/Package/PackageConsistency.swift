import WireCore

/// A package's files as found on disk: path (relative to `Backup-{id}/`) → size and SHA-256.
public typealias FileInventory = [String: (size: Int64, sha256: String)]

/// The cross-file rules (Spec migration.md §3.4): what no single document can show.
/// Runs after every document passed on its own; the first failing check is reported, with a
/// pointer whose first token is the file (`/manifest.json/...`, `/coredata/media.json/3/storyId`).
public enum PackageConsistency {
    public static func check(manifest: Manifest, exports: [ExportKind: Export], files: FileInventory) throws(Violation) {
        try masterKey(files)
        try listedFiles(manifest, files)
        try counts(manifest, exports, files)
        let media = exports[.media]?.media ?? []
        let mediaIndex = Dictionary(media.enumerated().map { ($1.id.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        let broken = try brokenMedia(manifest, media, mediaIndex)
        let categories = exports[.categories]?.categories ?? []
        let categoryIndex = Dictionary(categories.enumerated().map { ($1.id.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        try references(categories, categoryIndex, media, exports)
        try tree(categories, categoryIndex)
        try mediaFiles(media, mediaIndex, broken, files)
    }

    static let manifestPath = JSONPointer.root / PackagePath.manifest
    static func exportPath(_ kind: ExportKind) -> JSONPointer { .root / "coredata" / kind.fileName }

    /// MIG-PKG-007: the master key travels, non-empty and bounded.
    static func masterKey(_ files: FileInventory) throws(Violation) {
        guard let key = files[PackagePath.masterKey] else {
            throw Violation(rule: MigrationRule.masterKey, path: .root / "security" / "master_key.bin", expected: "the master key file", found: "absent")
        }
        guard key.size >= 1 && key.size <= 4096 else {
            throw Violation(rule: MigrationRule.masterKey, path: .root / "security" / "master_key.bin", expected: "1 to 4096 bytes", found: "\(key.size) bytes")
        }
    }

    /// MIG-PKG-005: the listed files are exactly the files, with their sizes and digests; the
    /// first in byte order of path is reported.
    static func listedFiles(_ manifest: Manifest, _ files: FileInventory) throws(Violation) {
        let listed = Dictionary(uniqueKeysWithValues: manifest.files.enumerated().map { ($1.path, ($0, $1)) })
        for (path, found) in files.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            guard let (i, entry) = listed[path] else {
                throw Violation(rule: MigrationRule.files, path: .root / "files" / path, expected: "listed in manifest integrity.files", found: "an unlisted file")
            }
            let at = manifestPath / "integrity" / "files" / i
            guard entry.size == found.size else {
                throw Violation(rule: MigrationRule.files, path: at / "size", expected: "\(found.size) (the file's size)", found: "\(entry.size)")
            }
            guard entry.sha256.bytesEqual(found.sha256) else {
                throw Violation(rule: MigrationRule.files, path: at / "sha256", expected: found.sha256 + " (the file's digest)", found: entry.sha256)
            }
        }
        for (i, entry) in manifest.files.enumerated() where files[entry.path] == nil {
            throw Violation(rule: MigrationRule.files, path: manifestPath / "integrity" / "files" / i / "path", expected: "a file in the package", found: "absent: " + entry.path)
        }
        for kind in ExportKind.allCases where files[PackagePath.export(kind)] == nil {
            throw Violation(rule: MigrationRule.files, path: exportPath(kind), expected: "the export file", found: "absent")
        }
    }

    /// MIG-PKG-001: the statistics are the counts of what is there.
    static func counts(_ manifest: Manifest, _ exports: [ExportKind: Export], _ files: FileInventory) throws(Violation) {
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
    }

    /// MIG-PKG-002: the three statements about broken media agree. The broken media's ids, in
    /// the manifest's order (a set's order changes from run to run, and so would the report).
    static func brokenMedia(_ manifest: Manifest, _ media: [MediaRecord], _ mediaIndex: [String: Int]) throws(Violation) -> [String] {
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
        var broken: [String] = []
        for (i, b) in manifest.brokenMedia.enumerated() {
            guard let m = mediaIndex[b.mediaId.lowercased()] else {
                throw Violation(rule: MigrationRule.brokenConsistency, path: manifestPath / "brokenMedia" / i / "mediaId", expected: "an id of media.json", found: b.mediaId)
            }
            guard b.fileName.bytesEqual(media[m].fileName) else {
                throw Violation(rule: MigrationRule.brokenConsistency, path: manifestPath / "brokenMedia" / i / "fileName", expected: media[m].fileName, found: b.fileName)
            }
            broken.append(b.mediaId.lowercased())
        }
        return broken
    }

    /// MIG-PKG-003: every reference names an element that exists.
    static func references(_ categories: [CategoryRecord], _ categoryIndex: [String: Int], _ media: [MediaRecord], _ exports: [ExportKind: Export]) throws(Violation) {
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
    }

    /// MIG-PKG-004: the category tree: roots at level 1, children one level below their parent,
    /// no cycle; the first category in order that breaks it is reported.
    static func tree(_ categories: [CategoryRecord], _ categoryIndex: [String: Int]) throws(Violation) {
        let cyclic = reachesCycle(categories, categoryIndex)
        for (i, c) in categories.enumerated() {
            let expectedLevel: Int64
            if let parent = c.parentId, let p = categoryIndex[parent.lowercased()] {
                guard !cyclic[i] else {
                    throw Violation(rule: MigrationRule.categoryTree, path: exportPath(.categories) / i / "parentId", expected: "a tree", found: "a cycle through \(parent)")
                }
                expectedLevel = categories[p].level + 1
            } else {
                expectedLevel = 1
            }
            guard c.level == expectedLevel else {
                throw Violation(rule: MigrationRule.categoryTree, path: exportPath(.categories) / i / "level", expected: "\(expectedLevel)", found: "\(c.level)")
            }
        }
    }

    /// For each category, whether its chain of parents comes back on itself. Each category is
    /// walked once: a walk from every category to its root was n²/2 steps for a chain of n, and a
    /// hostile package of a few hundred thousand categories in one chain held the receiver.
    static func reachesCycle(_ categories: [CategoryRecord], _ categoryIndex: [String: Int]) -> [Bool] {
        enum Mark { case unseen, walking, acyclic, cyclic }
        var marks = [Mark](repeating: .unseen, count: categories.count)
        for start in categories.indices where marks[start] == .unseen {
            var chain: [Int] = []
            var cursor: Int? = start
            var outcome = Mark.acyclic
            while let at = cursor {
                switch marks[at] {
                case .unseen:
                    marks[at] = .walking
                    chain.append(at)
                    cursor = categories[at].parentId.flatMap { categoryIndex[$0.lowercased()] }
                case .walking:
                    outcome = .cyclic
                    cursor = nil
                case .acyclic, .cyclic:
                    outcome = marks[at]
                    cursor = nil
                }
            }
            for node in chain { marks[node] = outcome }
        }
        return marks.map { $0 == .cyclic }
    }

    /// MIG-PKG-005 (media): every sound media file is where its record says, with its size; a
    /// broken one is absent.
    static func mediaFiles(_ media: [MediaRecord], _ mediaIndex: [String: Int], _ broken: [String], _ files: FileInventory) throws(Violation) {
        let brokenIDs = Set(broken)
        for (i, m) in media.enumerated() where !brokenIDs.contains(m.id.lowercased()) {
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
