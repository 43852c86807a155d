import Foundation
import Records
import Reference
import WireCore

/// `conformance check` on Xcode's Core Data model files: an `.xcdatamodeld` folder (its current
/// version, and the evolution from the version before it), an `.xcdatamodel` folder or its
/// `contents` file. What cannot be read as a model is a usage error, never a violation.
public enum ModelFileChecker {
    public struct Unreadable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Whether `url` names a model file this checker reads.
    public static func handles(_ url: URL) -> Bool {
        ["xcdatamodeld", "xcdatamodel"].contains(url.pathExtension) || url.lastPathComponent == "contents"
    }

    /// `previous` (the XML text of a model, or the JSON form) replaces the folder's own previous
    /// version: `check --previous`.
    /// `firstMirrored` names the first version of an `.xcdatamodeld` that reached CloudKit: a
    /// previous version before it binds nothing (REC-EVOL-*), so it is not compared.
    public static func check(_ url: URL, previous override: JSONValue? = nil, firstMirrored: String? = nil) throws(Unreadable) -> DocumentChecker.Result {
        let (current, previous, name) = try load(url, firstMirrored: firstMirrored)
        if let override {
            return try check(current, previous: override, name: "\(url.lastPathComponent) (against --previous)", location: url.path)
        }
        return try check(current, previous: previous.map { .string(String(decoding: $0, as: UTF8.self)) }, name: name, location: url.path)
    }

    /// A model's `contents` given as bytes (standard input with `--kind xcdatamodel`); `previous`
    /// as `context.previous` holds it (XML text, or the JSON form).
    public static func check(_ current: [UInt8], previous: JSONValue? = nil, name: String, location: String) throws(Unreadable) -> DocumentChecker.Result {
        var context = JSONObject()
        if let previous { context["previous"] = previous }
        // Read here first: a file that is not a model is the user's mistake, not the model's.
        do {
            _ = try CoreDataModelXML.read(current)
            if case .string(let text)? = previous { _ = try CoreDataModelXML.read(Array(text.utf8)) }
        } catch {
            throw Unreadable(description: "\(location): \(error)")
        }
        switch RecordsFamily().validate(kind: "xcdatamodel", document: current, context: .object(context)) {
        case .accept(let canonical):
            return DocumentChecker.Result(name: name, kind: "xcdatamodel", violations: [], canonical: canonical)
        case .reject(let violations, _):
            return DocumentChecker.Result(
                name: name, kind: "xcdatamodel", violations: violations.map { v in
                    var copy = v
                    copy.subject = name
                    return copy
                }, canonical: nil)
        case .unsupported(let reason), .invalidRequest(let reason):
            throw Unreadable(description: "\(location): \(reason)")
        case .trace:
            throw Unreadable(description: "\(location): not a model")
        }
    }

    /// A model for `context.model` (`check --model`): an Xcode model file's current version as
    /// its XML text, or a file in the JSON model form parsed.
    public static func contextModel(_ url: URL) throws(Unreadable) -> JSONValue {
        if handles(url) {
            let (current, _, _) = try load(url)
            do {
                _ = try CoreDataModelXML.read(current)
            } catch {
                throw Unreadable(description: "\(url.path): \(error)")
            }
            return .string(String(decoding: current, as: UTF8.self))
        }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw Unreadable(description: "cannot read \(url.path)") }
        do throws(Violation) {
            let model = try JSONParser.parse([UInt8](data))
            _ = try MirroredRecordTypes.derive(from: model)
            return model
        } catch {
            throw Unreadable(description: "\(url.path) is neither an Xcode model nor a model in the JSON form: \(error.description)")
        }
    }

    /// The current version's `contents`, the previous version's if any, and a name for reports.
    public static func load(_ url: URL, firstMirrored: String? = nil) throws(Unreadable) -> ([UInt8], [UInt8]?, String) {
        func read(_ file: URL) throws(Unreadable) -> [UInt8] {
            guard let data = FileManager.default.contents(atPath: file.path) else { throw Unreadable(description: "cannot read \(file.path)") }
            return [UInt8](data)
        }
        switch url.pathExtension {
        case "xcdatamodeld":
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0.hasSuffix(".xcdatamodel") }
            guard !names.isEmpty else { throw Unreadable(description: "\(url.path) holds no .xcdatamodel version") }
            var files: [(name: String, contents: [UInt8])] = []
            for name in names { files.append((name, try read(url.appendingPathComponent(name).appendingPathComponent("contents")))) }
            let plist = FileManager.default.contents(atPath: url.appendingPathComponent(".xccurrentversion").path)
            let bundle = CoreDataModelBundle(files: files, currentName: plist.flatMap { CoreDataModelBundle.currentName(plist: [UInt8]($0)) })
            var (current, previous) = bundle.currentAndPrevious
            let currentName = bundle.versions[bundle.current].name
            var mirroredFrom: Int?
            if let firstMirrored {
                let wanted = firstMirrored.hasSuffix(".xcdatamodel") ? firstMirrored : firstMirrored + ".xcdatamodel"
                guard let i = bundle.versions.firstIndex(where: { $0.name == wanted }) else {
                    throw Unreadable(
                        description: "--first-mirrored-version \(firstMirrored): \(url.path) has no such version (it has \(bundle.versions.map(\.name).joined(separator: ", ")))")
                }
                mirroredFrom = i
            }
            let against: String
            if bundle.versions.count > 1, !bundle.isOrdered {
                // Said, not guessed, wherever the current version sorts: comparing with an
                // arbitrary version would report wrong findings, and none would pass silently.
                against = "; the version names (\(bundle.versions.map(\.name).joined(separator: ", "))) do not say which came before it: no evolution check; name the previous version with --previous"
            } else if bundle.current == 0 {
                against = ""
            } else if let mirroredFrom, bundle.isOrdered, bundle.current - 1 < mirroredFrom {
                previous = nil
                against = "; \(bundle.versions[bundle.current - 1].name) came before the first mirrored version, \(bundle.versions[mirroredFrom].name): no evolution check"
            } else {
                against = " against " + bundle.versions[bundle.current - 1].name
            }
            return (current, previous, "\(url.lastPathComponent) (\(currentName)\(against))")
        case "xcdatamodel":
            return (try read(url.appendingPathComponent("contents")), nil, url.lastPathComponent)
        default:
            return (try read(url), nil, url.path)
        }
    }
}
