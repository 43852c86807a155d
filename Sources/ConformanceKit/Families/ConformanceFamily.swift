import WireCore

/// What an implementation answered for one case (in-process or over the testee protocol).
public enum Outcome: Sendable, Hashable {
    /// The document is valid; its canonical form.
    case accept(canonical: JSONValue)
    /// The document is invalid; the violations in the order the Spec's checks produce them.
    case reject([Violation])
    /// A machine run: per event, the state after it and the actions it emitted.
    case trace([MachineStep])
    /// The implementation does not implement this kind or machine.
    case unsupported(reason: String)
    /// The request itself was unusable (a malformed vector or request); never a verdict on a document.
    case invalidRequest(reason: String)
}

public struct MachineStep: Sendable, Hashable {
    public var state: JSONValue
    public var actions: [JSONValue]

    public init(state: JSONValue, actions: [JSONValue]) {
        self.state = state
        self.actions = actions
    }

    public var json: JSONValue { ["state": state, "actions": .array(actions)] }
}

/// One protocol family as the kit sees it: its kinds and machines, driven through JSON so the
/// same requests reach the reference in-process and another implementation over stdio.
public protocol ConformanceFamily: Sendable {
    var name: String { get }
    /// Document kinds, e.g. `desktop-pairing`.
    var kinds: [String] { get }
    var machines: [String] { get }
    var rules: [RuleID] { get }
    /// The kind a document's `type` member names, if this family defines it.
    func kind(forType type: String) -> String?
    func validate(kind: String, document: [UInt8], context: JSONValue) -> Outcome
    func runMachine(_ machine: String, context: JSONValue, events: [JSONValue]) -> Outcome
}

/// The families the reference implements.
public enum Families {
    public static let all: [any ConformanceFamily] = [CoreFamily(), PairingFamily(), MigrationFamily(), RecordsFamily()]

    public static func named(_ name: String) -> (any ConformanceFamily)? {
        all.first { $0.name == name }
    }

    /// The family defining `kind`, if any (`auto` is not a kind a document can be checked as).
    public static func defining(kind: String) -> (any ConformanceFamily)? {
        all.first { $0.name != "core" && $0.kinds.contains(kind) }
    }

    public static var allKinds: [String] { all.filter { $0.name != "core" }.flatMap(\.kinds) }

    /// The largest document any kind accepts (the migration family's exports and manifests).
    public static let maxDocumentBytes = MigrationFamily.maxDocumentBytes
}
