import ConformanceKit
import Reference
import TestFixture
import TesteeProtocol
import Testing
import WireCore

/// Spec pairing.md 4, "Time": a machine's deadline is exactly when a tick first matters. After
/// every step of every machine vector, where the reference states a deadline D, a tick at D − 1
/// changes nothing and a tick at D changes the state or acts; where it states none, a tick a day
/// later changes nothing. And a vector that states deadlines agrees with the reference's (the
/// runner judges a testee on them).
@Suite("Deadlines: a tick matters from the deadline on, never before")
struct DeadlineTests {
    /// What a run of `events` left: the last step.
    static func last(_ family: any ConformanceFamily, _ machine: String, _ context: JSONValue, _ events: [JSONValue]) -> MachineStep? {
        guard case .trace(let steps) = family.runMachine(machine, context: context, events: events) else { return nil }
        return steps.last
    }

    static func tick(_ at: EpochMillis) -> JSONValue { ["event": "tick", "at": .number(JSONNumber(at))] }

    @Test func aTickMattersFromTheDeadlineOnAndNeverBefore() {
        var checked: [String: Int] = [:]
        var problems: [String] = []
        // Machines whose steps state a deadline, empty or not (`TimedMachine`): read from the
        // traces, not stated by hand beside each machine.
        var keepsTime = Set<String>()
        for c in Fixture.cases {
            guard case .machine(let name, let events, _) = c.body, let family = Families.all.first(where: { $0.name == c.family }),
                case .trace(let steps) = family.runMachine(name, context: c.context, events: events)
            else { continue }
            var now: EpochMillis = 0
            for (i, step) in steps.enumerated() {
                guard let deadline = step.deadline else { break }  // a machine that keeps no time
                keepsTime.insert("\(family.name)/\(name)")
                if case .number(let n)? = events[i]["at"], let at = n.int64 { now = at }
                let before = Array(events[...i])
                let unchanged = { (after: MachineStep?) in after?.state == step.state && after?.actions.isEmpty == true }
                let place = "\(c.id) steps/\(i)"
                guard case .number(let n) = deadline, let d = n.int64 else {
                    if !unchanged(Self.last(family, name, c.context, before + [Self.tick(now + 86_400_000)])) {
                        problems.append("\(place): no deadline, yet a tick a day later changed something")
                    }
                    continue
                }
                checked[c.family + "/" + name, default: 0] += 1
                if d <= now {
                    problems.append("\(place): deadline \(d) is not after the event's time \(now)")
                    continue
                }
                if !unchanged(Self.last(family, name, c.context, before + [Self.tick(d - 1)])) {
                    problems.append("\(place): a tick at the deadline \(d) - 1 changed something")
                }
                if unchanged(Self.last(family, name, c.context, before + [Self.tick(d)])) {
                    problems.append("\(place): a tick at the deadline \(d) changed nothing")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.count) problems: \(problems.prefix(20).joined(separator: "\n"))")
        // Every machine that keeps time is checked, each at many deadlines.
        #expect(keepsTime.count >= 9, "\(keepsTime.sorted())")
        for machine in keepsTime {
            #expect(checked[machine, default: 0] >= 3, "\(machine): \(checked[machine, default: 0]) deadlines checked")
        }
    }

    /// The deadlines the vectors state are the reference's, step by step (so a testee is judged
    /// on the Spec's deadlines, not on the vectors' bookkeeping).
    @Test func theVectorsDeadlinesAreTheReferences() {
        var stated = 0
        for c in Fixture.cases {
            guard case .machine(let name, let events, let expected) = c.body, expected.contains(where: { $0.deadline != nil }),
                let family = Families.all.first(where: { $0.name == c.family }),
                case .trace(let steps) = family.runMachine(name, context: c.context, events: events)
            else { continue }
            for (i, step) in expected.enumerated() where i < steps.count {
                stated += 1
                #expect(step.deadline == steps[i].deadline, "\(c.id) steps/\(i): vector \(String(describing: step.deadline)), reference \(String(describing: steps[i].deadline))")
            }
        }
        #expect(stated > 500, "\(stated) steps state a deadline")
    }
}
