/// Reads typed members out of a JSON object and turns every type problem into the core
/// rule that names it (CORE-TYPE-001 to 004) at the member's JSON Pointer. Validators of
/// every family read through it, so "missing", "null" and "wrong type" mean the same
/// everywhere. Errors are thrown: a validator that reads its fields in the Spec's order
/// reports the first failing check, as the Spec requires.
public struct ObjectReader: Sendable {
    public let object: JSONObject
    public let path: JSONPointer
    /// Where each member is, for an object with many: a lookup is then a hash, not a scan (a
    /// peer's record of a million fields, each looked up by name, was quadratic).
    private let positions: [ByteString: Int]?

    /// Objects with more members than this are indexed when read.
    static let indexedFrom = 16

    public init(object: JSONObject, path: JSONPointer) {
        self.object = object
        self.path = path
        if object.members.count > Self.indexedFrom {
            var positions: [ByteString: Int] = [:]
            positions.reserveCapacity(object.members.count)
            for (i, member) in object.members.enumerated() where positions[ByteString(member.key)] == nil { positions[ByteString(member.key)] = i }
            self.positions = positions
        } else {
            positions = nil
        }
    }

    /// The document itself as an object, or CORE-TYPE-003 at the root.
    public init(document: JSONValue, path: JSONPointer = .root) throws(Violation) {
        guard case .object(let o) = document else {
            throw Violation(rule: CoreRule.type, path: path, expected: "object", found: document.typeName)
        }
        self.init(object: o, path: path)
    }

    public func pointer(_ key: String) -> JSONPointer { path / key }

    /// The raw member; nil when absent. `null` is returned as `.null`.
    public func raw(_ key: String) -> JSONValue? {
        guard let positions else { return object[key] }
        return positions[ByteString(key)].map { object.members[$0].value }
    }

    /// The member, required and not null.
    public func required(_ key: String, expecting type: String) throws(Violation) -> JSONValue {
        guard let value = raw(key) else {
            throw Violation(rule: CoreRule.required, path: pointer(key), expected: "\(type) member \"\(key)\"", found: "absent")
        }
        if case .null = value {
            throw Violation(rule: CoreRule.notNull, path: pointer(key), expected: type, found: "null")
        }
        return value
    }

    /// The member, where absent and `null` both mean "not given" (the Spec's rule for optional members).
    public func optional(_ key: String) -> JSONValue? {
        guard let value = raw(key) else { return nil }
        if case .null = value { return nil }
        return value
    }

    /// The declared members among `keys` that are given (not absent, not null), values as
    /// received: the canonical form of every document whose members are copied as they came
    /// (exports, the manifest, local documents, a record's stamps; Spec core.md "Canonical form").
    public func givenMembers(_ keys: [String]) -> JSONValue {
        var o = JSONObject()
        o.members.reserveCapacity(keys.count)
        for key in keys {
            if let value = optional(key) { o[key] = value }
        }
        return .object(o)
    }

    public func string(_ key: String) throws(Violation) -> String {
        try asString(required(key, expecting: "string"), at: pointer(key))
    }

    public func optionalString(_ key: String) throws(Violation) -> String? {
        guard let value = optional(key) else { return nil }
        return try asString(value, at: pointer(key))
    }

    public func integer(_ key: String) throws(Violation) -> Int64 {
        try asInteger(required(key, expecting: "integer"), at: pointer(key))
    }

    public func optionalInteger(_ key: String) throws(Violation) -> Int64? {
        guard let value = optional(key) else { return nil }
        return try asInteger(value, at: pointer(key))
    }

    public func bool(_ key: String) throws(Violation) -> Bool {
        let value = try required(key, expecting: "boolean")
        guard case .bool(let b) = value else {
            throw Violation(rule: CoreRule.type, path: pointer(key), expected: "boolean", found: value.typeName)
        }
        return b
    }

    public func objectReader(_ key: String) throws(Violation) -> ObjectReader {
        try ObjectReader(document: required(key, expecting: "object"), path: pointer(key))
    }

    public func optionalObjectReader(_ key: String) throws(Violation) -> ObjectReader? {
        guard let value = optional(key) else { return nil }
        return try ObjectReader(document: value, path: pointer(key))
    }

    public func array(_ key: String) throws(Violation) -> [JSONValue] {
        try asArray(required(key, expecting: "array"), at: pointer(key))
    }

    public func optionalArray(_ key: String) throws(Violation) -> [JSONValue]? {
        guard let value = optional(key) else { return nil }
        return try asArray(value, at: pointer(key))
    }
}

/// The paths of these three are built only when they fail: building them on the way to a valid
/// document cost records validation about 6 % of its speed (`bench --records`).
public func asString(_ value: JSONValue, at path: @autoclosure () -> JSONPointer) throws(Violation) -> String {
    guard case .string(let s) = value else {
        throw Violation(rule: CoreRule.type, path: path(), expected: "string", found: value.brief)
    }
    return s
}

public func asArray(_ value: JSONValue, at path: @autoclosure () -> JSONPointer) throws(Violation) -> [JSONValue] {
    guard case .array(let a) = value else {
        throw Violation(rule: CoreRule.type, path: path(), expected: "array", found: value.typeName)
    }
    return a
}

/// The largest integer every JSON implementation represents exactly (2^53 − 1).
public let maxSafeInteger: Int64 = (1 << 53) - 1

/// An integer per CORE-TYPE-004: an integer literal within ±(2^53 − 1). A string such as
/// `"1747300000000"` is CORE-TYPE-003 (wrong type), `1.0` or `1e3` is CORE-TYPE-004.
public func asInteger(_ value: JSONValue, at path: @autoclosure () -> JSONPointer) throws(Violation) -> Int64 {
    guard case .number(let n) = value else {
        throw Violation(rule: CoreRule.type, path: path(), expected: "integer", found: value.brief)
    }
    guard n.isIntegerLiteral else {
        throw Violation(rule: CoreRule.integer, path: path(), expected: "an integer literal (no fraction, no exponent)", found: n.literal)
    }
    guard let i = Int64(n.literal), i >= -maxSafeInteger, i <= maxSafeInteger else {
        throw Violation(rule: CoreRule.integer, path: path(), expected: "an integer within ±(2^53 − 1)", found: n.literal)
    }
    return i
}
