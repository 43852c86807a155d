import Foundation
import WireCore

/// CloudKit field types, as CloudKit Web Services names them.
public enum FieldType: String, CaseIterable, Sendable {
    case string = "STRING"
    case int64 = "INT64"
    case double = "DOUBLE"
    case timestamp = "TIMESTAMP"
    case bytes = "BYTES"
    case reference = "REFERENCE"
    case assetID = "ASSETID"
    case location = "LOCATION"
    case stringList = "STRING_LIST"
    case int64List = "INT64_LIST"
    case doubleList = "DOUBLE_LIST"
    case timestampList = "TIMESTAMP_LIST"
    case bytesList = "BYTES_LIST"
    case referenceList = "REFERENCE_LIST"
    case assetIDList = "ASSETID_LIST"
    case locationList = "LOCATION_LIST"

    /// The type a wire name spells, byte for byte. `init(rawValue:)` compares under canonical
    /// equivalence through a string switch, which was a percent of validating a record.
    public static func named(_ name: String) -> FieldType? {
        wireOrder.first { $0.rawValue.bytesEqual(name) }
    }

    /// Made once: `allCases` builds a new array at every call.
    private static let wireOrder = allCases

    /// The element type of a list type.
    public var element: FieldType? {
        switch self {
        case .stringList: return .string
        case .int64List: return .int64
        case .doubleList: return .double
        case .timestampList: return .timestamp
        case .bytesList: return .bytes
        case .referenceList: return .reference
        case .assetIDList: return .assetID
        case .locationList: return .location
        default: return nil
        }
    }
}

/// A decoded field value: its type and its value, checked against the type (REC-REC-003).
public struct FieldValue: Sendable, Hashable {
    public var type: FieldType
    public var value: JSONValue
    /// Sent as `ENCRYPTED_<type>`: CloudKit's `encryptedValues` (CKTool JS's encrypted field
    /// values), which carry the same value shape as the plain type.
    public var cloudEncrypted: Bool

    public init(type: FieldType, value: JSONValue, cloudEncrypted: Bool = false) {
        self.type = type
        self.value = value
        self.cloudEncrypted = cloudEncrypted
    }

    /// The type as it travels: `STRING`, or `ENCRYPTED_STRING` for a CloudKit-encrypted one.
    public var typeName: String { (cloudEncrypted ? "ENCRYPTED_" : "") + type.rawValue }

    /// Apple encrypts neither references (kept readable for the server) nor assets (encrypted
    /// anyway), so these have no `ENCRYPTED_` form.
    static func encryptable(_ type: FieldType) -> Bool {
        ![.reference, .referenceList, .assetID, .assetIDList].contains(type)
    }

    public var string: String? { value.stringValue }
    public var int64: Int64? { if case .number(let n) = value { return n.int64 } else { return nil } }
    public var bytes: Data? { value.stringValue.flatMap { Data(base64Encoded: $0) } }
    public var referenceName: String? { value["recordName"]?.stringValue }

    /// Members built directly: the dictionary literal cost a second array per field.
    public var json: JSONValue { .object(JSONObject([.init(key: "value", value: value), .init(key: "type", value: .string(typeName))])) }

    /// Reads `{value, type}` at `path`.
    static func decode(_ json: JSONValue, at path: JSONPointer) throws(Violation) -> FieldValue {
        let r = try ObjectReader(document: json, path: path)
        let typeName = try r.string("type")
        let plainName = typeName.droppingBytePrefix("ENCRYPTED_")
        let encrypted = plainName != nil
        guard let type = FieldType.named(plainName ?? typeName), !encrypted || encryptable(type) else {
            throw Violation(
                rule: RecordRule.fieldValue, path: r.pointer("type"),
                expected: "a CloudKit type (STRING, INT64, DOUBLE, TIMESTAMP, BYTES, REFERENCE, ASSETID, LOCATION, or a _LIST; ENCRYPTED_ before any but REFERENCE and ASSETID)",
                found: JSONSerializer.quoted(typeName))
        }
        let value = try r.required("value", expecting: "the value")
        if let element = type.element {
            for (i, item) in try asArray(value, at: r.pointer("value")).enumerated() {
                try check(item, as: element, at: r.pointer("value") / i)
            }
        } else {
            try check(value, as: type, at: r.pointer("value"))
        }
        return FieldValue(type: type, value: declared(value, as: type), cloudEncrypted: encrypted)
    }

    /// The members CloudKit Web Services defines for each dictionary value; any other is ignored
    /// and left out of the canonical form (CORE-MEMBER-001, REC-REC-003).
    /// A switch, not a dictionary: a `String`-backed enum hashes its raw value, and this is asked
    /// for every field of every record.
    static func dictionaryMembers(_ type: FieldType) -> [String]? {
        switch type {
        case .reference: return ["recordName", "action"]
        case .assetID: return ["fileChecksum", "size", "referenceChecksum", "wrappingKey", "receipt", "downloadURL"]
        case .location: return ["latitude", "longitude", "horizontalAccuracy", "verticalAccuracy", "altitude", "speed", "course", "timestamp"]
        default: return nil
        }
    }

    /// A checked value with only its declared members.
    static func declared(_ value: JSONValue, as type: FieldType) -> JSONValue {
        if let element = type.element, case .array(let items) = value { return .array(items.map { declared($0, as: element) }) }
        guard case .object(let object) = value, let keys = dictionaryMembers(type) else { return value }
        return .object(JSONObject(object.members.filter { keys.contains($0.key) }))
    }

    static func check(_ value: JSONValue, as type: FieldType, at lazyPath: @autoclosure () -> JSONPointer) throws(Violation) {
        // Built only where a reader needs it or a check fails.
        var path: JSONPointer { lazyPath() }
        switch type {
        case .string:
            _ = try asString(value, at: path)
        case .int64:
            _ = try asInteger(value, at: path)
        case .double:
            guard case .number = value else {
                throw Violation(rule: CoreRule.type, path: path, expected: "number", found: value.brief)
            }
        case .timestamp:
            let ms = try asInteger(value, at: path)
            guard (1_000_000_000_000..<10_000_000_000_000).contains(ms) else {
                throw Violation(rule: RecordRule.timestamp, path: path, expected: "epoch milliseconds in [10^12, 10^13)", found: "\(ms)")
            }
        case .bytes:
            let text = try asString(value, at: path)
            guard Data(base64Encoded: text) != nil else {
                throw Violation(rule: RecordRule.fieldValue, path: path, expected: "standard base64", found: "not base64")
            }
        case .reference:
            let r = try ObjectReader(document: value, path: path)
            try checkRecordName(try r.string("recordName"), at: r.pointer("recordName"))
            if let action = try r.optionalString("action"), !["NONE", "DELETE_SELF", "VALIDATE"].contains(action) {
                throw Violation(rule: RecordRule.fieldValue, path: r.pointer("action"), expected: "NONE, DELETE_SELF or VALIDATE", found: JSONSerializer.quoted(action))
            }
        case .assetID:
            let r = try ObjectReader(document: value, path: path)
            _ = try r.string("fileChecksum")
            let size = try r.integer("size")
            guard size >= 0 else {
                throw Violation(rule: RecordRule.fieldValue, path: r.pointer("size"), expected: "a size ≥ 0", found: "\(size)")
            }
        case .location:
            let r = try ObjectReader(document: value, path: path)
            for (key, limit) in [("latitude", 90.0), ("longitude", 180.0)] {
                let v = try r.required(key, expecting: "number")
                guard case .number(let n) = v, let d = n.double else {
                    throw Violation(rule: CoreRule.type, path: r.pointer(key), expected: "number", found: v.brief)
                }
                guard abs(d) <= limit else {
                    throw Violation(rule: RecordRule.fieldValue, path: r.pointer(key), expected: "within ±\(Int(limit))", found: "\(d)")
                }
            }
        default:
            break
        }
    }
}

/// CloudKit record names: 1 to 255 printable ASCII characters, not starting with `_` (REC-REC-001).
func checkRecordName(_ name: String, at path: JSONPointer) throws(Violation) {
    let bytes = Array(name.utf8)
    guard !bytes.isEmpty, bytes.count <= 255, bytes.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }), bytes.first != UInt8(ascii: "_") else {
        throw Violation(
            rule: RecordRule.recordName, path: path, expected: "1 to 255 printable ASCII characters, not starting with _",
            found: JSONSerializer.quoted(name))
    }
}
