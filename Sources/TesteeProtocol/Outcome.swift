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
    /// When the machine next needs the time (its `nextDeadline`): an integer, `null` for no
    /// deadline, nil when the step does not say (a vector says it for every machine that keeps
    /// time; testee-protocol.md, "Machine cases").
    public var deadline: JSONValue?

    public init(state: JSONValue, actions: [JSONValue], deadline: JSONValue? = nil) {
        self.state = state
        self.actions = actions
        self.deadline = deadline
    }

    public var json: JSONValue {
        var o = JSONObject(["state": state, "actions": .array(actions)])
        if let deadline { o["deadline"] = deadline }
        return .object(o)
    }

    /// A step as a vector's `expect` or a testee's trace gives it: `state`, `actions` and an
    /// optional `deadline` (an integer or null).
    public static func read(_ r: ObjectReader) throws(Violation) -> MachineStep {
        var deadline: JSONValue?
        switch r.raw("deadline") {
        case nil: deadline = nil
        case .null?: deadline = .null
        default: deadline = .number(JSONNumber(try r.integer("deadline")))
        }
        return MachineStep(state: try r.required("state", expecting: "object"), actions: try r.array("actions"), deadline: deadline)
    }
}
