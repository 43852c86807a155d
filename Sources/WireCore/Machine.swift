/// What a machine made of one event (swift-nio-http2's `StateMachineResult`): an edge acts on
/// the actions; a judge also learns whether the event counted, and if not, why.
public enum MachineOutcome: Sendable, Hashable {
    /// The event moved the machine or made it act.
    case applied
    /// The event means nothing in this state (a pause while nothing is sent, a frame after the
    /// end): nothing changed, and this says why.
    case ignored(String)
    /// The event broke a rule of the peer's: the machine reports it (its actions say how).
    case refused(Violation)
}

/// One event's actions and outcome. An array literal is an applied step with those actions.
public struct Step<Action: Sendable>: Sendable, ExpressibleByArrayLiteral {
    public var actions: [Action]
    public var outcome: MachineOutcome

    public init(_ actions: [Action], _ outcome: MachineOutcome = .applied) {
        self.actions = actions
        self.outcome = outcome
    }

    public init(arrayLiteral actions: Action...) { self.init(actions) }

    /// Nothing changed: the event means nothing in this state, for `why`.
    public static func ignored(_ why: String) -> Step { Step([], .ignored(why)) }

    /// The actions that report `violation` against the peer.
    public static func refused(_ violation: Violation, _ actions: [Action]) -> Step { Step(actions, .refused(violation)) }
}

/// The contract every protocol machine here keeps (quinn-proto, swift-nio-http2): events in, a
/// step out (actions and an outcome), no I/O and no clock. Every (state, event) pair is answered:
/// a step that changes nothing says so with `.ignored(why)`.
public protocol Machine: Sendable {
    associatedtype Event: Sendable
    associatedtype Action: Sendable

    mutating func step(_ event: Event) -> Step<Action>
}

extension Machine {
    /// The step's actions alone, for an edge that acts on them.
    public mutating func handle(_ event: Event) -> [Action] { step(event).actions }
}

/// A machine that keeps time (quinn-proto's `handle_timeout` and `poll_timeout`). Each event
/// that depends on time carries it; the machine states when it next needs to hear the time
/// (`nextDeadline`), and its edge then delivers `tick(at:)`. No machine asks for a timer, so an
/// edge has one alarm, set to `nextDeadline` after every step.
public protocol TimedMachine: Machine {
    /// The earliest time at which a tick changes anything; nil when no tick can in this state.
    /// A tick before it is answered, and changes nothing.
    var nextDeadline: EpochMillis? { get }

    /// The event that tells the machine the time.
    static func tick(at time: EpochMillis) -> Event
}
