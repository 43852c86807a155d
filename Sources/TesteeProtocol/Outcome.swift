import WireCore

/// What an implementation answered for one case (in-process or over the testee protocol).
public enum Outcome: Sendable, Hashable {
    /// The document is valid; its canonical form.
    case accept(canonical: JSONValue)
    /// The document is invalid; the violations in the order the Spec's checks produce them, at
    /// most `ViolationList.maxListed`, and how many more were found and not kept.
    case reject([Violation], omitted: Int = 0)
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
