import Foundation
import WireCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the `contents` file of an `.xcdatamodel` (the XML Xcode writes) into the kit's JSON
/// model form (Spec records.md 7), with Core Data's own defaults: an attribute or relationship
/// is required unless `optional="YES"`, `elementID` is the renaming identifier, type names are
/// Xcode's ("Integer 16" is `Integer16`), and configurations say which entities CloudKit mirrors.
public enum CoreDataModelXML {
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The model as the checker reads it, or why the bytes are not a Core Data model.
    public static func read(_ bytes: [UInt8]) throws(Problem) -> JSONValue {
        try screen(bytes)
        let reader = Reader()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = reader
        parser.shouldResolveExternalEntities = false
        guard parser.parse() else {
            throw Problem(description: "not XML: \(parser.parserError.map { "\($0.localizedDescription)" } ?? "a parse error") at line \(parser.lineNumber)")
        }
        guard reader.sawModel else { throw Problem(description: "XML without a <model> element: not a Core Data model") }
        return reader.model
    }

    /// What Foundation's XMLParser must never see. On Linux it force-unwraps every element,
    /// attribute and comment name as UTF-8, so a name with invalid UTF-8 (which libxml2's
    /// recovery mode passes on) traps the process, and an empty processing instruction crashes
    /// it (found by Conformance/fuzz); a DTD could expand entities. Xcode writes
    /// UTF-8 without a DTD, so anything else is not one of its model files.
    static func screen(_ bytes: [UInt8]) throws(Problem) {
        // Decoding repairs invalid sequences: the text differs from the bytes exactly when they are not UTF-8.
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else {
            throw Problem(description: "not UTF-8 text (Xcode writes model files in UTF-8)")
        }
        if bytes.contains(0) { throw Problem(description: "a NUL character, which XML does not allow") }
        if text.contains("<!DOCTYPE") || text.contains("<!ENTITY") {
            throw Problem(description: "a document type declaration (Xcode's model files have none)")
        }
        // Foundation on Linux reads a processing instruction's data with strlen, and libxml2 passes
        // none for `<?x?>`: a null pointer. Xcode writes one, the XML declaration, first.
        let declaration = text.hasPrefix("<?xml ") || text.hasPrefix("<?xml\t") || text.hasPrefix("<?xml\n")
        if text.components(separatedBy: "<?").count - 1 > (declaration ? 1 : 0) {
            throw Problem(description: "a processing instruction (Xcode's model files have none but the XML declaration)")
        }
        // The prolog may name only UTF-8: libxml2 would transcode anything else.
        if text.hasPrefix("<?xml"), let end = text.range(of: "?>") {
            let prolog = text[..<end.lowerBound].lowercased()
            if let at = prolog.range(of: "encoding") {
                let rest = prolog[at.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
                guard rest.hasPrefix("utf-8") || rest.hasPrefix("utf8") else {
                    throw Problem(description: "an encoding other than UTF-8 in the XML declaration")
                }
            }
        }
    }

    /// Xcode's attribute type names, as the JSON form spells them.
    static func typeName(_ xml: String) -> String {
        switch xml {
        case "Integer 16": return "Integer16"
        case "Integer 32": return "Integer32"
        case "Integer 64": return "Integer64"
        case "Object ID": return "ObjectID"
        default: return xml
        }
    }

    /// Collects elements as they come; one entity (and its attributes, relationships,
    /// constraints) at a time.
    final class Reader: NSObject, XMLParserDelegate {
        var entities: [JSONValue] = []
        var configurations: [JSONValue] = []
        var sawModel = false
        private var entity: JSONObject?
        private var attributes: [JSONValue] = []
        private var relationships: [JSONValue] = []
        private var constraints: [JSONValue] = []
        private var constraint: [JSONValue]?
        private var configuration: JSONObject?
        private var members: [JSONValue] = []

        var model: JSONValue {
            var o = JSONObject(["entities": .array(entities)])
            if !configurations.isEmpty { o["configurations"] = .array(configurations) }
            return .object(o)
        }

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes a: [String: String] = [:]
        ) {
            func yes(_ key: String) -> Bool { a[key] == "YES" }
            switch element {
            case "model":
                sawModel = true
            case "entity":
                entity = JSONObject(["name": .string(a["name"] ?? "")])
                if let parent = a["parentEntity"] { entity?["parent"] = .string(parent) }
                attributes = []
                relationships = []
                constraints = []
            case "attribute":
                var o = JSONObject([
                    "name": .string(a["name"] ?? ""), "type": .string(CoreDataModelXML.typeName(a["attributeType"] ?? "Undefined")),
                    "optional": .bool(yes("optional")),
                ])
                if let value = a["defaultValueString"] { o["defaultValue"] = .string(value) }
                if yes("derived") { o["derived"] = true }
                if let id = a["elementID"] { o["renamingIdentifier"] = .string(id) }
                if let name = a["valueTransformerName"] { o["valueTransformerName"] = .string(name) }
                if yes("allowsCloudEncryption") { o["allowsCloudEncryption"] = true }
                attributes.append(.object(o))
            case "relationship":
                var o = JSONObject([
                    "name": .string(a["name"] ?? ""), "destination": .string(a["destinationEntity"] ?? ""), "optional": .bool(yes("optional")),
                    "deleteRule": .string(a["deletionRule"] ?? "Nullify"),
                ])
                if yes("toMany") { o["toMany"] = true }
                if yes("ordered") { o["ordered"] = true }
                o["inverse"] = a["inverseName"].map { .string($0) } ?? .null
                if let id = a["elementID"] { o["renamingIdentifier"] = .string(id) }
                relationships.append(.object(o))
            case "uniquenessConstraint":
                constraint = []
            case "constraint":
                if let value = a["value"] { constraint?.append(.string(value)) }
            case "configuration":
                configuration = JSONObject(["name": .string(a["name"] ?? ""), "cloudKit": .bool(yes("usedWithCloudKit"))])
                members = []
            case "memberEntity":
                if let name = a["name"] { members.append(.string(name)) }
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            switch element {
            case "entity":
                guard var e = entity else { return }
                e["attributes"] = .array(attributes)
                if !relationships.isEmpty { e["relationships"] = .array(relationships) }
                if !constraints.isEmpty { e["uniquenessConstraints"] = .array(constraints) }
                entities.append(.object(e))
                entity = nil
            case "uniquenessConstraint":
                if let constraint { constraints.append(.array(constraint)) }
                constraint = nil
            case "configuration":
                guard var c = configuration else { return }
                c["entities"] = .array(members)
                configurations.append(.object(c))
                configuration = nil
            default:
                break
            }
        }
    }
}

/// An `.xcdatamodeld` folder's versions, oldest first, and which is current.
public struct CoreDataModelBundle: Sendable {
    public var versions: [(name: String, contents: [UInt8])]
    public var current: Int

    /// `files`: each version's name (`Model 2.xcdatamodel`) with its `contents`; `currentName` from
    /// `.xccurrentversion` (nil: the newest). Versions are ordered as Xcode numbers them
    /// (`Model`, `Model 2`, `Model 3`, ..., compared numerically).
    public init(files: [(name: String, contents: [UInt8])], currentName: String?) {
        versions = files.sorted { Self.order($0.name) < Self.order($1.name) }
        current = versions.firstIndex { $0.name == currentName } ?? max(versions.count - 1, 0)
    }

    static func order(_ name: String) -> (Int, String) {
        let base = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
        let number = base.split(separator: " ").last.flatMap { Int($0) } ?? 1
        return (number, base)
    }

    /// The current version and the one before it, if any.
    public var currentAndPrevious: (current: [UInt8], previous: [UInt8]?) {
        (versions[current].contents, current > 0 ? versions[current - 1].contents : nil)
    }

    /// The `_XCCurrentVersionName` of an `.xccurrentversion` property list.
    public static func currentName(plist bytes: [UInt8]) -> String? {
        guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any] else { return nil }
        return object["_XCCurrentVersionName"] as? String
    }
}
