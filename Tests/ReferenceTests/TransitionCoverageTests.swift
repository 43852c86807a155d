import ConformanceKit
import Foundation
import Reference
import TestFixture
import Testing
import WireCore

/// The machines' transition tables (Spec/migration.md 5.3, Spec/pairing.md 4.1 to 4.6 and 5,
/// Spec/records.md 8.7) against the vectors, as h11 keeps its state table: every step of a machine's vector is a row of its
/// table, and every row is taken by some vector. The reference passes every vector, so the code,
/// the Spec's table and the vectors agree.
@Suite("Transition tables: Spec, vectors, code")
struct TransitionCoverageTests {
    struct Row: CustomStringConvertible {
        var states: [String]
        var events: [String]
        var next: [String]
        var line: String

        var description: String { line }

        /// What must be exercised: each named state with each named event (`*` and
        /// `message *` count as one each).
        var pairs: [String] { states.flatMap { state in events.map { "\(state) --\($0)-->" } } }

        /// The pair of this row that a step takes.
        func pair(_ from: String, _ event: String) -> String {
            let state = states.contains(from) ? from : "*"
            let named = events.contains(event) ? event : (event.hasPrefix("message ") && events.contains("message *") ? "message *" : "*")
            return "\(state) --\(named)-->"
        }

        /// `*` in `states` is any state; `message *` any message; `=` the same state.
        func takes(_ from: String, _ event: String, _ to: String) -> Bool {
            let state = states == ["*"] || states.contains(from)
            let eventMatches = events.contains(event) || events == ["*"] || (events.contains("message *") && event.hasPrefix("message "))
            let nextMatches = next.contains(to) || (next == ["="] && from == to)
            return state && eventMatches && nextMatches
        }
    }

    /// The table after `<!-- transitions: machine -->` in the family's chapter.
    static func table(_ machine: String, family: String) throws -> [Row] {
        let spec = try String(contentsOf: Fixture.root.appendingPathComponent("Spec/\(family).md"), encoding: .utf8)
        guard let start = spec.range(of: "<!-- transitions: \(machine) -->") else { return [] }
        var rows: [Row] = []
        for line in spec[start.upperBound...].split(separator: "\n").dropFirst(2) {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3 else { continue }
            func list(_ cell: String) -> [String] { cell.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            rows.append(Row(states: list(cells[0]), events: list(cells[1]), next: list(cells[2]), line: String(line)))
        }
        return rows
    }

    /// Every machine of every family, as `family/machine`.
    static let machines = Families.all.flatMap { f in f.machineRegistrations.map { "\(f.name)/\($0.name)" } }

    /// Each machine has a table (a new one cannot arrive without one), every step of its vectors
    /// is a row of it, and every row is taken by some vector.
    @Test(arguments: Self.machines)
    func everyStepIsARowAndEveryRowIsTaken(_ qualified: String) throws {
        let (family, machine) = (String(qualified.prefix { $0 != "/" }), String(qualified.drop { $0 != "/" }.dropFirst()))
        let registration = try #require(Families.named(family)?.machine(named: machine))
        let rows = try Self.table(machine, family: family)
        #expect(rows.count >= 2, "no transition table for \(machine) in Spec/\(family).md")
        var taken = Set<String>()
        for vector in Fixture.cases {
            guard case .machine(let name, let events, let expected) = vector.body, name == machine, vector.family == family else { continue }
            var from = registration.initialState
            for (event, step) in zip(events, expected) {
                let label = registration.tableLabel(event)
                let to = registration.tableState(step.state)
                if let row = rows.firstIndex(where: { $0.takes(from, label, to) }) {
                    taken.insert("\(row) " + rows[row].pair(from, label))
                } else {
                    Issue.record("\(vector.id): \(from) --\(label)--> \(to) is not in the \(machine) table")
                }
                from = to
            }
        }
        for (i, row) in rows.enumerated() {
            for pair in row.pairs where !taken.contains("\(i) \(pair)") {
                Issue.record("no \(machine) vector takes \(pair) in the row \(row)")
            }
        }
    }
}
