import WireCore

/// A violation as vectors and testees state it: where and which rule.
public struct ExpectedViolation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var path: JSONPointer
    public var rule: RuleID

    public init(path: JSONPointer, rule: RuleID) {
        self.path = path
        self.rule = rule
    }

    public init(_ violation: Violation) {
        self.init(path: violation.path, rule: violation.rule)
    }

    public static func < (a: ExpectedViolation, b: ExpectedViolation) -> Bool {
        (a.rule, a.path) < (b.rule, b.path)
    }

    public var description: String { "\(rule) at \"\(path)\"" }

    public var json: JSONValue { ["path": .string(path.description), "rule": .string(rule.rawValue)] }

    /// Reads `{"path": ..., "rule": ...}`, the form vectors and testee answers share.
    public static func read(_ reader: ObjectReader) throws(Violation) -> ExpectedViolation {
        let pathText = try reader.string("path")
        guard let path = JSONPointer(pathText) else {
            throw Violation(rule: CoreRule.type, path: reader.pointer("path"), expected: "an RFC 6901 pointer", found: pathText)
        }
        return ExpectedViolation(path: path, rule: RuleID(try reader.string("rule")))
    }
}
