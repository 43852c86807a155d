import Crypto
import Foundation
import WireCore

/// The rule catalog, `Spec/catalog.json`: every rule id with its chapter, level and title.
public struct Catalog: Sendable {
    public struct Rule: Sendable, Hashable {
        public let id: RuleID
        public let chapter: String
        public let level: String
        public let title: String
        public let source: String
        /// `accepting-only` for rules that constrain answers, never documents (CORE-MEMBER-001).
        public var vectors: String? = nil
    }

    public let rules: [Rule]

    public init(rules: [Rule]) {
        self.rules = rules
    }

    public func rule(_ id: RuleID) -> Rule? { rules.first { $0.id == id } }

    public static func load(_ url: URL) throws -> Catalog {
        let bytes = try [UInt8](Data(contentsOf: url))
        do throws(Violation) {
            let reader = try ObjectReader(document: try JSONParser.parse(bytes))
            var rules: [Rule] = []
            for (i, value) in try reader.array("rules").enumerated() {
                let r = try ObjectReader(document: value, path: reader.pointer("rules") / i)
                rules.append(
                    Rule(
                        id: RuleID(try r.string("id")), chapter: try r.string("chapter"), level: try r.string("level"),
                        title: try r.string("title"), source: try r.string("source"), vectors: try r.optionalString("vectors")))
            }
            return Catalog(rules: rules)
        } catch {
            throw VectorFileError(file: url.path, problem: error.description)
        }
    }
}

/// Where the kit finds `Vectors/` and `Spec/`: an explicit folder, else the data a bundled binary
/// carries, else the nearest folder at or above the working directory that has both, else the
/// checkout this binary was built from.
public struct Repository: Sendable {
    public let root: URL

    public var vectors: URL { root.appendingPathComponent("Vectors") }
    public var catalogFile: URL { root.appendingPathComponent("Spec/catalog.json") }

    public init(root: URL) {
        self.root = root
    }

    public static func locate(explicit: String? = nil, workingDirectory: String = FileManager.default.currentDirectoryPath) -> Repository? {
        if let explicit {
            return Repository(root: URL(fileURLWithPath: explicit))
        }
        // A bundled binary trusts only the data it carries: a `Vectors/` planted in an ancestor
        // of the working directory (say /tmp) must not decide what it judges (issue 24.5).
        if EmbeddedData.isBundled { return EmbeddedData.repository().map(Repository.init(root:)) }
        var dir = URL(fileURLWithPath: workingDirectory)
        while true {
            if isRoot(dir) { return Repository(root: dir) }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            dir = parent
        }
        // Sources/ConformanceKit/Vectors/Catalog.swift -> the checkout's root.
        let built = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return isRoot(built) ? Repository(root: built) : nil
    }

    /// A digest of the vector set: every file under `Vectors/` and the catalog, by path and
    /// content, in path order. Two kits with the same digest judge alike.
    public var vectorSetDigest: String {
        var hash = SHA256()
        var files = (FileManager.default.enumerator(atPath: vectors.resolvingSymlinksInPath().path)?.compactMap { $0 as? String } ?? [])
            .filter { !$0.hasPrefix(".") }.map { "Vectors/" + $0 }
        files.append("Spec/catalog.json")
        for path in files.sorted() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path)
            else { continue }
            hash.update(data: Data(path.utf8))
            hash.update(data: Data([0]))
            hash.update(data: data)
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static func isRoot(_ dir: URL) -> Bool {
        let fm = FileManager.default
        return fm.fileExists(atPath: dir.appendingPathComponent("Vectors").path)
            && fm.fileExists(atPath: dir.appendingPathComponent("Spec/catalog.json").path)
    }
}
