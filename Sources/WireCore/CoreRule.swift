/// Rules of the core chapter (`Spec/core.md`): the wire profile every JSON document
/// of every family obeys, and the typed-field rules that every decoder applies.
public enum CoreRule {
    /// The document is well-formed JSON text (RFC 8259): one value, nothing after it.
    public static let syntax: RuleID = "CORE-JSON-001"
    /// The document is valid UTF-8 and every `\u` escape forms a Unicode scalar value.
    public static let unicode: RuleID = "CORE-JSON-002"
    /// No object has two members with the same name.
    public static let duplicateKey: RuleID = "CORE-JSON-003"
    /// The document is no larger than the family's size limit.
    public static let size: RuleID = "CORE-JSON-004"
    /// Arrays and objects nest no deeper than the depth limit.
    public static let depth: RuleID = "CORE-JSON-005"
    /// Every number is finite as an IEEE 754 double.
    public static let numberRange: RuleID = "CORE-JSON-006"

    /// A required member is present.
    public static let required: RuleID = "CORE-TYPE-001"
    /// A member that is not nullable is not `null`.
    public static let notNull: RuleID = "CORE-TYPE-002"
    /// A member has its declared JSON type.
    public static let type: RuleID = "CORE-TYPE-003"
    /// An integer member is an integer literal (no fraction, no exponent) within ±(2^53 − 1).
    public static let integer: RuleID = "CORE-TYPE-004"

    /// A document's `type` (or the requested kind) names a kind some family defines.
    public static let knownKind: RuleID = "CORE-KIND-001"

    /// Undeclared members are ignored and dropped from the canonical form.
    public static let unknownMembers: RuleID = "CORE-MEMBER-001"

    public static let all: [RuleID] = [
        syntax, unicode, duplicateKey, size, depth, numberRange, required, notNull, type, integer, knownKind, unknownMembers,
    ]
}
