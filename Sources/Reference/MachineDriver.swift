import TesteeProtocol
import WireCore

/// Plays a vector's events into a machine, one by one, and records the state and actions after
/// each (Vectors/README.md, machine files). Every family's machines go through it; a family
/// supplies how an event is read, how actions are written and how its state is named.
enum MachineDriver {
    typealias Problem = ContextReader.Problem

    /// One event of a machine case: `{event, at?, ...}` with its index for error messages.
    struct EventReader {
        let index: Int
        let object: JSONObject

        init(_ value: JSONValue, index: Int) throws(Problem) {
            guard case .object(let o) = value, case .string? = o["event"] else {
                throw Problem(message: "events[\(index)] must be an object with a string \"event\"")
            }
            self.index = index
            self.object = o
        }

        var name: String { object["event"]?.stringValue ?? "" }

        /// Event times are epoch milliseconds in 0...2^53 − 1, so no machine arithmetic overflows.
        func at() throws(Problem) -> EpochMillis {
            guard case .number(let n)? = object["at"], let i = n.int64, i >= 0, i <= maxSafeInteger else {
                throw Problem(message: "events[\(index)] (\(name)) needs an integer \"at\" in 0...2^53-1")
            }
            return i
        }

        func string(_ key: String) throws(Problem) -> String { try member(key, "a string", \.stringValue) }

        func integer(_ key: String) throws(Problem) -> Int64 {
            try member(key, "an integer") { if case .number(let n) = $0 { n.int64 } else { nil } }
        }

        func flag(_ key: String) throws(Problem) -> Bool {
            try member(key, "a boolean") { if case .bool(let b) = $0 { b } else { nil } }
        }

        private func member<T>(_ key: String, _ kind: String, _ read: (JSONValue) -> T?) throws(Problem) -> T {
            guard let value = object[key].flatMap(read) else {
                throw Problem(message: "events[\(index)] (\(name)) needs \(kind) \"\(key)\"")
            }
            return value
        }

        func document() throws(Problem) -> JSONValue {
            guard let d = object["document"] else { throw Problem(message: "events[\(index)] (\(name)) needs a \"document\"") }
            return d
        }

        var unknown: Problem { Problem(message: "events[\(index)]: unknown event \"\(name)\"") }
    }

    /// Feeds the events to a machine one by one, recording the state and actions after each.
    static func run<Machine, Event>(
        _ machine: Machine, events: [JSONValue],
        decode: (EventReader) throws(Problem) -> Event,
        handle: (inout Machine, Event) -> [JSONValue],
        state: (Machine) -> JSONValue
    ) throws(Problem) -> [MachineStep] {
        try steps(machine, events: events, decode: decode, handle: handle, state: state, deadline: { _ in nil })
    }

    /// The same for a machine that keeps time: each step also states its `nextDeadline`.
    static func run<Machine: TimedMachine>(
        _ machine: Machine, events: [JSONValue],
        decode: (EventReader) throws(Problem) -> Machine.Event,
        handle: (inout Machine, Machine.Event) -> [JSONValue],
        state: (Machine) -> JSONValue
    ) throws(Problem) -> [MachineStep] {
        try steps(
            machine, events: events, decode: decode, handle: handle, state: state,
            deadline: { $0.nextDeadline.map { .number(JSONNumber($0)) } ?? .null })
    }

    private static func steps<Machine, Event>(
        _ machine: Machine, events: [JSONValue],
        decode: (EventReader) throws(Problem) -> Event,
        handle: (inout Machine, Event) -> [JSONValue],
        state: (Machine) -> JSONValue,
        deadline: (Machine) -> JSONValue?
    ) throws(Problem) -> [MachineStep] {
        var machine = machine
        var steps: [MachineStep] = []
        for (i, value) in events.enumerated() {
            let event = try decode(try EventReader(value, index: i))
            let actions = handle(&machine, event)
            steps.append(MachineStep(state: state(machine), actions: actions, deadline: deadline(machine)))
        }
        return steps
    }
}
