/// A JSON value that keeps what `Codable` loses: the exact text of every number,
/// member order, and (in `JSONObject`) every member even when a name repeats.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name used in violations ("string", "integer", "number", ...).
    /// A number written without fraction or exponent reports "integer".
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number(let n): return n.isIntegerLiteral ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// A short rendering of the value for "found" fields of violations.
    public var brief: String {
        let text: String
        switch self {
        case .string(let s): text = JSONSerializer.quoted(s)
        case .array(let a): text = "array of \(a.count)"
        case .object(let o): text = "object with \(o.members.count) members"
        default: text = JSONSerializer.compact(self)
        }
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// An integer literal that fits in Int64, or nil.
    public var integerValue: Int64? {
        if case .number(let n) = self { return n.int64 }
        return nil
    }

    /// The member `key` of an object (the first one if the name repeats), or nil.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// Strings are equal when their bytes are (RFC 8259 8.3): Swift's `==` on String would make
    /// `"é"` equal `"e\u{301}"`, and a canonical form a testee normalized would pass unseen.
    /// (The synthesized hash stays valid: byte-equal strings hash alike.)
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x.bytesEqual(y)
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        default: return false
        }
    }
}

/// A JSON number, kept as its literal text.
public struct JSONNumber: Sendable, Hashable {
    /// The literal exactly as written in the document, e.g. `1`, `1.0`, `-0`, `1e3`.
    public let literal: String

    public init(literal: String) {
        self.literal = literal
    }

    public init(_ value: Int64) {
        self.literal = String(value)
    }

    /// True when the literal has no fraction and no exponent.
    public var isIntegerLiteral: Bool {
        // Over the bytes in place: grapheme iteration, then a generic scan of the UTF-8 view,
        // were each a noticeable part of records validation.
        var text = literal
        return text.withUTF8 { bytes in
            !bytes.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        }
    }

    /// The value as an exact integer when the literal is an integer literal that fits in Int64.
    public var int64: Int64? {
        isIntegerLiteral ? Int64(literal) : nil
    }

    public var double: Double? {
        Double(literal)
    }
}

/// An ordered list of members. Lookups return the first member with a name; the parser
/// rejects documents with repeated names (CORE-JSON-003), so after parsing there is only one.
public struct JSONObject: Sendable, Hashable {
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }

        /// Member names compare byte for byte, as in `JSONValue`.
        public static func == (a: Member, b: Member) -> Bool { a.key.bytesEqual(b.key) && a.value == b.value }
    }

    public var members: [Member]

    public init(_ members: [Member] = []) {
        self.members = members
    }

    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        self.members = pairs.map { Member(key: $0.key, value: $0.value) }
    }

    public subscript(key: String) -> JSONValue? {
        get { members.first(where: { $0.key.bytesEqual(key) })?.value }
        set {
            if let i = members.firstIndex(where: { $0.key.bytesEqual(key) }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    public var keys: [String] { members.map(\.key) }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
}
