import TesteeProtocol
import WireCore

/// One golden vector case (format: `Vectors/README.md`).
public struct VectorCase: Sendable {
    public enum Body: Sendable {
        case document(kind: String, input: [UInt8], expected: DocumentExpectation)
        case machine(name: String, events: [JSONValue], expected: [MachineStep])
    }

    public var id: String
    public var family: String
    public var comment: String
    public var flags: [String]
    /// Rules the case exercises.
    public var rules: [RuleID]
    /// Machine cases: rules whose enforcement the case demonstrates.
    public var triggers: [RuleID]
    /// The file's context with the case's members laid over it.
    public var context: JSONValue
    public var body: Body
    /// The file the case came from, relative to the vectors root.
    public var file: String

    public init(
        id: String, family: String, comment: String, flags: [String], rules: [RuleID], triggers: [RuleID], context: JSONValue, body: Body,
        file: String
    ) {
        self.id = id
        self.family = family
        self.comment = comment
        self.flags = flags
        self.rules = rules
        self.triggers = triggers
        self.context = context
        self.body = body
        self.file = file
    }

    /// The kind or machine name, for grouping in reports.
    public var subject: String {
        switch body {
        case .document(let kind, _, _): return kind
        case .machine(let name, _, _): return name
        }
    }

    /// The rules this case rejects on: its expected violations, or its triggers.
    public var rejectingRules: [RuleID] {
        switch body {
        case .document(_, _, .reject(let expected)): return expected.map(\.rule)
        case .document: return []
        case .machine: return triggers
        }
    }

    /// The rules this case accepts under: those it exercises without being rejected on them.
    public var acceptingRules: [RuleID] {
        switch body {
        case .document(_, _, .accept): return rules
        case .document: return []
        case .machine: return rules
        }
    }
}

public enum DocumentExpectation: Sendable, Hashable {
    case accept(canonical: JSONValue)
    case reject([ExpectedViolation])
}
