import TesteeProtocol
import WireCore

/// One machine as the kit knows it: its name, how a vector plays it, and how its Spec table
/// names its states and events. The families list these; the runner, `families.json`, the
/// transition-table and deadline tests and the robustness tests read them, so adding a machine
/// is its file in the protocol target, its table in the Spec and this value, no test file.
public struct MachineRegistration: Sendable {
    typealias Play = @Sendable (_ context: JSONValue, _ events: [JSONValue]) throws(ContextReader.Problem) -> [MachineStep]

    /// The name vectors and testees use (`sender`, `flow-b`).
    public let name: String
    /// The state a vector starts from, as the table names it.
    public let initialState: String
    let play: Play
    let label: @Sendable (JSONValue) -> String
    let derivedState: (@Sendable (JSONValue) -> String)?

    /// - Parameters:
    ///   - label: a vector event as the table names it (`message ChunkAck ok`); by default its `event`.
    ///   - derivedState: for a machine whose state is plain data (no `name`), the name the
    ///     table's text derives from it.
    init(
        _ name: String, initial: String, play: @escaping Play, label: (@Sendable (JSONValue) -> String)? = nil,
        derivedState: (@Sendable (JSONValue) -> String)? = nil
    ) {
        self.name = name
        self.initialState = initial
        self.play = play
        self.label = label ?? Self.eventName
        self.derivedState = derivedState
    }

    /// Plays `events` from `context`: a trace, or a refused request naming what is missing.
    public func run(context: JSONValue, events: [JSONValue]) -> Outcome {
        do throws(ContextReader.Problem) {
            return .trace(try play(context, events))
        } catch {
            return .invalidRequest(reason: error.message)
        }
    }

    /// A vector event as the machine's Spec table names it.
    public func tableLabel(_ event: JSONValue) -> String { label(event) }

    /// A step's state as the machine's Spec table names it.
    public func tableState(_ state: JSONValue) -> String {
        if let name = state["name"]?.stringValue { return name }
        return derivedState?(state) ?? "?"
    }

    static let eventName: @Sendable (JSONValue) -> String = { $0["event"]?.stringValue ?? "?" }

    /// How many members (array, object) or what count (number) a state's `key` holds.
    static func count(_ state: JSONValue, _ key: String) -> Int64 {
        switch state[key] {
        case .array(let items)?: return Int64(items.count)
        case .object(let object)?: return Int64(object.members.count)
        case .number(let n)?: return n.int64 ?? 0
        default: return 0
        }
    }
}

extension ConformanceFamily {
    public var machines: [String] { machineRegistrations.map(\.name) }

    public func machine(named name: String) -> MachineRegistration? { machineRegistrations.first { $0.name == name } }

    public func runMachine(_ machine: String, context: JSONValue, events: [JSONValue]) -> Outcome {
        guard let registration = self.machine(named: machine) else { return .unsupported(reason: "the \(name) family has no machine \(machine)") }
        return registration.run(context: context, events: events)
    }
}
