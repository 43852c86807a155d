/// A stable rule identifier such as `PAIR-CODE-001`. The rule catalog
/// (`Spec/catalog.json`) holds its title and level; the Spec chapter holds its text.
public struct RuleID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// Byte for byte: a testee's `MIG-P\u{212A}G-006` (KELVIN SIGN) is not `MIG-PKG-006`.
    public static func == (a: RuleID, b: RuleID) -> Bool { a.rawValue.bytesEqual(b.rawValue) }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    public var description: String { rawValue }

    /// The id's family prefix: `CORE`, `PAIR`, ...
    public var family: String {
        String(rawValue.prefix(while: { $0 != "-" }))
    }

    public static func < (lhs: RuleID, rhs: RuleID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One broken contract rule: where (JSON Pointer, or byte offset for binary and
/// unparsable input), which rule, what was expected and what was found.
/// The single violation type of every family, codec, machine and report.
public struct Violation: Error, Sendable, Hashable, CustomStringConvertible {
    public var rule: RuleID
    public var path: JSONPointer
    public var byteOffset: Int?
    public var expected: String
    public var found: String
    /// The vector case or document the violation belongs to; set by whoever knows it.
    public var subject: String?
    /// What `path` points at in the document's own words (`Solve.date` for
    /// `/entities/6/attributes/1/optional`), when the checker knows; reports show it beside the path.
    public var names: String?
    /// Where the source declared what `path` points at (`Models/Idea.swift:24`), when the
    /// document was read from source; reports show it beside the names.
    public var location: String?
    /// Later violations this one explains (a live case: what the same connection got wrong after
    /// its first failure), listed under it and not failed again (h2spec's and Autobahn's way).
    public var consequences: [Violation] = []
    /// How many times one cause broke the rule at the path (a live case counts a repeat once).
    public var count = 1

    public init(
        rule: RuleID, path: JSONPointer, byteOffset: Int? = nil, expected: String, found: String,
        subject: String? = nil
    ) {
        self.rule = rule
        self.path = path
        self.byteOffset = byteOffset
        self.expected = Violation.capped(expected)
        self.found = Violation.capped(found)
        self.subject = subject
    }

    /// Quoted values longer than this are cut: a 50 MB string in a document must not come back
    /// whole in every report (and every copy of the violation).
    public static let maxQuoteBytes = 512

    /// `text` cut to `maxQuoteBytes` at a character boundary, saying how long it was: for
    /// anything quoted from outside (a document, a testee's words).
    public static func capped(_ text: String) -> String {
        guard text.utf8.count > maxQuoteBytes else { return text }
        let bytes = Array(text.utf8.prefix(maxQuoteBytes + 1))
        // Cut before the character that straddles the limit, never inside its UTF-8 sequence.
        var end = maxQuoteBytes
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self) + "… (\(text.utf8.count) bytes)"
    }


    /// The violation moved under `prefix`, for documents nested inside other documents.
    public func nested(under prefix: JSONPointer) -> Violation {
        var copy = self
        copy.path = path.nested(under: prefix)
        return copy
    }

    public var description: String {
        let at = byteOffset.map { " (byte \($0))" } ?? ""
        return "\(rule) at \"\(path)\"\(namesNote)\(at): expected \(expected), found \(found)"
    }

    /// ` (Solve.date)` when `names` is known, ` (Idea.id, Idea.swift:5)` with a location, else
    /// empty: what reports put after the path.
    public var namesNote: String {
        switch (names, location) {
        case let (names?, location?): " (\(names), \(location))"
        case let (names?, nil): " (\(names))"
        case let (nil, location?): " (\(location))"
        case (nil, nil): ""
        }
    }
}
