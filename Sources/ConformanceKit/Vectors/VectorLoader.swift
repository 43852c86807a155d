import Crypto
import Foundation
import Migration
import TesteeProtocol
import WireCore

/// A vector file that does not follow `Vectors/README.md`.
public struct VectorFileError: Error, CustomStringConvertible {
    public let file: String
    public let problem: String
    public var description: String { "\(file): \(problem)" }
}

/// Loads every vector file under a root folder, with the same JSON parser the codecs use.
public enum VectorLoader {
    public static func load(root: URL) throws -> [VectorCase] {
        // A linked Vectors/ is read where it leads (the walk below does not follow a link: a
        // linked root once listed no case at all).
        let root = root.resolvingSymlinksInPath()
        let files = try vectorFiles(under: root)
        var cases: [VectorCase] = []
        var seen: Set<String> = []
        for file in files {
            let relative = String(file.path.dropFirst(root.path.count).drop(while: { $0 == "/" }))
            for c in try loadFile(file, relativePath: relative, folder: file.deletingLastPathComponent()) {
                guard seen.insert(c.id).inserted else {
                    throw VectorFileError(file: relative, problem: "case id \(c.id) is used twice")
                }
                cases.append(c)
            }
        }
        return cases
    }

    static func vectorFiles(under root: URL) throws -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            throw VectorFileError(file: root.path, problem: "not a readable folder")
        }
        var files: [URL] = []
        for case let url as URL in enumerator {
            let relative = String(url.path.dropFirst(root.path.count).drop(while: { $0 == "/" }))
            let type = (try? FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType) ?? nil
            if type == .typeSymbolicLink {
                // Not followed, and not skipped without a word: a linked folder's vectors were
                // missing from the set, a linked file could name a FIFO or /dev/zero.
                throw VectorFileError(file: relative, problem: "a symbolic link; vector files and folders are read only as they are (link the whole Vectors folder instead)")
            }
            guard url.pathExtension == "json" else { continue }
            guard type == .typeRegular else { throw VectorFileError(file: relative, problem: "not a regular file") }
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    public static func loadFile(_ url: URL, relativePath: String, folder: URL) throws -> [VectorCase] {
        let bytes = try [UInt8](Data(contentsOf: url))
        do throws(Violation) {
            let root = try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 128))
            return try parseFile(root, file: relativePath, folder: folder)
        } catch {
            throw VectorFileError(file: relativePath, problem: error.description)
        }
    }

    static func parseFile(_ root: JSONValue, file: String, folder: URL) throws(Violation) -> [VectorCase] {
        let reader = try ObjectReader(document: root)
        let family = try reader.string("family")
        let kind = try reader.optionalString("kind")
        let machine = try reader.optionalString("machine")
        guard (kind == nil) != (machine == nil) else {
            throw Violation(rule: CoreRule.required, path: .root, expected: "exactly one of \"kind\" and \"machine\"", found: "both or neither")
        }
        let fileContext = reader.optional("context") ?? .object(JSONObject())
        var cases: [VectorCase] = []
        for (i, value) in try reader.array("cases").enumerated() {
            let c = try ObjectReader(document: value, path: reader.pointer("cases") / i)
            let context = try merge(fileContext, c.optional("context"), at: c.pointer("context"))
            let body: VectorCase.Body
            if let kind {
                body = .document(
                    kind: kind, input: try input(of: c, folder: folder), expected: try documentExpectation(c.objectReader("expected")))
            } else {
                let (events, steps) = try machineSteps(c)
                body = .machine(name: machine ?? "", events: events, expected: steps)
            }
            let id = try c.string("id")
            let comment = try c.optionalString("comment") ?? ""
            let flags = try strings(c, "flags")
            let rules = try strings(c, "rules").map { RuleID($0) }
            let triggers = try strings(c, "triggers").map { RuleID($0) }
            cases.append(
                VectorCase(
                    id: id, family: family, comment: comment, flags: flags, rules: rules, triggers: triggers,
                    context: context, body: body, file: file))
        }
        return cases
    }

    static func strings(_ reader: ObjectReader, _ key: String) throws(Violation) -> [String] {
        var result: [String] = []
        for (i, v) in (try reader.optionalArray(key) ?? []).enumerated() {
            result.append(try asString(v, at: reader.pointer(key) / i))
        }
        return result
    }

    static func merge(_ base: JSONValue, _ override: JSONValue?, at path: JSONPointer) throws(Violation) -> JSONValue {
        guard let override else { return base }
        guard case .object(var merged) = base, case .object(let o) = override else {
            throw Violation(rule: CoreRule.type, path: path, expected: "object", found: override.typeName)
        }
        for member in o.members { merged[member.key] = member.value }
        return .object(merged)
    }

    /// The exact bytes of the case's document, from whichever `input*` member it has.
    static func input(of c: ObjectReader, folder: URL) throws(Violation) -> [UInt8] {
        let present = ["input", "inputText", "inputBase64", "inputSegments", "inputFile"].filter { c.raw($0) != nil }
        guard present.count == 1 else {
            throw Violation(rule: CoreRule.required, path: c.path, expected: "exactly one input member", found: present.description)
        }
        switch present[0] {
        case "input":
            return Array(JSONSerializer.compact(c.raw("input") ?? .null).utf8)
        case "inputText":
            return Array(try c.string("inputText").utf8)
        case "inputFile":
            return try inputFile(c, folder: folder)
        case "inputBase64":
            guard let data = Data(base64Encoded: try c.string("inputBase64")) else {
                throw Violation(rule: CoreRule.type, path: c.pointer("inputBase64"), expected: "base64", found: "invalid base64")
            }
            return [UInt8](data)
        default:
            var bytes: [UInt8] = []
            for (i, segment) in try c.array("inputSegments").enumerated() {
                let s = try ObjectReader(document: segment, path: c.pointer("inputSegments") / i)
                let text = Array(try s.string("text").utf8)
                let times = try s.optionalInteger("repeat") ?? 1
                guard times >= 0, times <= 1 << 24 else {
                    throw Violation(rule: CoreRule.integer, path: s.pointer("repeat"), expected: "0 to 2^24", found: "\(times)")
                }
                for _ in 0..<times { bytes += text }
            }
            return bytes
        }
    }

    /// A binary input beside the vector file, pinned by its SHA-256 so a changed file is noticed.
    static func inputFile(_ c: ObjectReader, folder: URL) throws(Violation) -> [UInt8] {
        let name = try c.string("inputFile")
        let digest = try c.string("inputSHA256")
        guard !name.hasBytePrefix("/"), PackagePath.isSafe(name) else {
            throw Violation(rule: CoreRule.type, path: c.pointer("inputFile"), expected: "a path inside the vectors folder", found: name)
        }
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            throw Violation(rule: CoreRule.required, path: c.pointer("inputFile"), expected: "a readable file", found: name)
        }
        let actual = SHA256.hash(data: data).hexEncoded
        guard actual == digest.lowercased() else {
            throw Violation(rule: CoreRule.type, path: c.pointer("inputSHA256"), expected: digest, found: actual)
        }
        return [UInt8](data)
    }

    static func documentExpectation(_ e: ObjectReader) throws(Violation) -> DocumentExpectation {
        switch try e.string("outcome") {
        case "accept":
            return .accept(canonical: try e.required("canonical", expecting: "object or array"))
        case "reject":
            var expected: [ExpectedViolation] = []
            for (i, v) in try e.array("violations").enumerated() {
                expected.append(try ExpectedViolation.read(ObjectReader(document: v, path: e.pointer("violations") / i)))
            }
            return .reject(expected)
        case let other:
            throw Violation(rule: CoreRule.type, path: e.pointer("outcome"), expected: "\"accept\" or \"reject\"", found: other)
        }
    }

    static func machineSteps(_ c: ObjectReader) throws(Violation) -> ([JSONValue], [MachineStep]) {
        var events: [JSONValue] = []
        var steps: [MachineStep] = []
        for (i, value) in try c.array("steps").enumerated() {
            let step = try ObjectReader(document: value, path: c.pointer("steps") / i)
            events.append(try step.required("event", expecting: "object"))
            let expect = try step.objectReader("expect")
            steps.append(try MachineStep.read(expect))
        }
        return (events, steps)
    }
}
