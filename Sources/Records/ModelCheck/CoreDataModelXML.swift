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
        // libxml2 recovers from some errors (content after the root element) and `parse()` still
        // returns true: an error reported on the way fails the read too.
        let parsed = parser.parse()
        if let (code, line) = reader.firstError ?? (parsed ? nil : ((parser.parserError as NSError?)?.code ?? 1, parser.lineNumber)) {
            throw Problem(description: "not XML: \(libxml2Error(code)) at line \(line)")
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
        guard String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes) else {
            throw Problem(description: "not UTF-8 text (Xcode writes model files in UTF-8)")
        }
        if bytes.contains(0) { throw Problem(description: "a NUL character, which XML does not allow") }
        // Searched as bytes, as libxml2 reads them: as Characters, `?` followed by a combining
        // mark (U+093E) is one unit, and `<?` was not found while libxml2 saw a processing
        // instruction with no data (a crash in Foundation: issue 24.2).
        if bytes.firstRange(of: Array("<!DOCTYPE".utf8)) != nil || bytes.firstRange(of: Array("<!ENTITY".utf8)) != nil {
            throw Problem(description: "a document type declaration (Xcode's model files have none)")
        }
        // Foundation on Linux reads a processing instruction's data with strlen, and libxml2 passes
        // none for `<?x?>`: a null pointer. Xcode writes one, the XML declaration, first.
        let declaration = bytes.starts(with: Array("<?xml".utf8)) && bytes.count > 5 && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[5])
        if bytes.ranges(of: Array("<?".utf8)).count > (declaration ? 1 : 0) {
            throw Problem(description: "a processing instruction (Xcode's model files have none but the XML declaration)")
        }
        // The prolog may name only UTF-8: libxml2 would transcode anything else.
        if declaration, let end = bytes.firstRange(of: Array("?>".utf8)) {
            let prolog = bytes[..<end.lowerBound].map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
            if let at = prolog.firstRange(of: Array("encoding".utf8)) {
                let rest = prolog[at.upperBound...].drop { $0 == 0x20 || $0 == 0x3D || $0 == 0x22 || $0 == 0x27 }
                guard rest.starts(with: Array("utf-8".utf8)) || rest.starts(with: Array("utf8".utf8)) else {
                    throw Problem(description: "an encoding other than UTF-8 in the XML declaration")
                }
            }
        }
    }

    /// libxml2's error codes (`xmlParserErrors`), which Foundation passes on raw and describes
    /// only as "the operation could not be completed".
    static func libxml2Error(_ code: Int) -> String {
        switch code {
        case 4: return "an empty document"
        case 5: return "content after the root element"
        case 39, 41: return "an attribute without a quoted value"
        case 73: return "'>' expected"
        case 76: return "a closing tag that does not match its element"
        case 77: return "an element that is not closed"
        default: return "libxml2 error \(code)"
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
        /// libxml2 recovers from errors (a mismatched tag, content after the root element) and
        /// `parse()` still returns true: the first error reported fails the read.
        var firstError: (code: Int, line: Int)?
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
                // Xcode writes a Date's default as seconds since 2001 in its own attribute.
                if let value = a["defaultValueString"] ?? a["defaultDateTimeInterval"] { o["defaultValue"] = .string(value) }
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

        func parser(_ parser: XMLParser, parseErrorOccurred error: Error) {
            if firstError == nil { firstError = ((error as NSError).code, parser.lineNumber) }
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

    /// The current version and the one before it, if any: none when the names do not order the
    /// versions (two without a number, `Model` and `ModelV2`: Xcode keeps no other order).
    public var currentAndPrevious: (current: [UInt8], previous: [UInt8]?) {
        (versions[current].contents, current > 0 && isOrdered ? versions[current - 1].contents : nil)
    }

    /// Whether Xcode's numbering orders every version: no two share a number.
    public var isOrdered: Bool {
        let numbers = versions.map { Self.order($0.name).0 }
        return Set(numbers).count == numbers.count
    }

    /// The `_XCCurrentVersionName` of an `.xccurrentversion` property list.
    public static func currentName(plist bytes: [UInt8]) -> String? {
        guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any] else { return nil }
        return object["_XCCurrentVersionName"] as? String
    }
}
