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

    /// A vector event as the table names it.
    static func label(_ event: JSONValue, machine: String) -> String {
        let name = event["event"]?.stringValue ?? "?"
        if machine == "webrtc" {
            switch name {
            case "start": return "start " + (event["role"]?.stringValue ?? "?")
            case "signal":
                let type = event["document"]?["payload"]?["type"]?.stringValue ?? ""
                return "signal " + (["offer", "answer", "ice-candidate"].contains(type) ? type : "other")
            default: return name
            }
        }
        // The pairing flows' tables name events as the vectors do.
        if ["flow-b", "flow-a", "manual", "connection", "mobile-bridge"].contains(machine) { return name }
        if machine == "relay" {
            guard name == "received" else { return name }
            guard let document = event["document"] else { return "received text" }
            switch document["type"]?.stringValue ?? "" {
            case "register": return "received register" + (isAlias(document["peerId"]) ? " alias" : "")
            case "message": return "received message" + (isAlias(document["to"]) ? " alias" : "")
            case "ping": return "received ping"
            default: return "received other"
            }
        }
        if machine == "pin-lockout", name == "session-ended" { return "\(name) \(event["outcome"]?.stringValue ?? "?")" }
        if machine == "initial-sync" {
            for key in ["reinstall", "pro", "available", "found"] where event[key] != nil {
                return "\(name) \(key)=\(event[key] == .bool(true))"
            }
            return name == "user-choice" ? "\(name) \(event["choice"]?.stringValue ?? "?")" : name
        }
        switch name {
        case "message", "text":
            var document = event["document"]
            if name == "text" {
                document = (event["text"]?.stringValue).flatMap { try? JSONParser.parse(Array($0.utf8)) }
            }
            guard let document, let type = document["type"]?.stringValue else { return "text" }
            let payload = document["payload"]
            switch type {
            case "AuthPIN": return "message AuthPIN " + (payload?["pin"] != nil ? "request" : payload?["result"]?.stringValue ?? "?")
            case "Complete": return "message Complete " + (payload?["result"]?.stringValue ?? "sent")
            case "ChunkAck": return "message ChunkAck " + (payload?["status"]?.stringValue ?? "?")
            case "ResumeTransfer": return "message ResumeTransfer " + (payload?["resumeToken"] != nil ? "token" : "plain")
            default: return "message " + type
            }
        case "user-confirmed": return "user-confirmed " + (event["yes"] == .bool(true) ? "yes" : "no")
        case "file-verified": return "file-verified " + (event["ok"] == .bool(true) ? "ok" : "bad")
        case "password-checked": return "password-checked " + (event["result"]?.stringValue ?? "?")
        case "binary": return "binary"
        default: return name
        }
    }

    /// The state's name as the table spells it: its `name`, or for the machines whose state is
    /// plain data (Spec pairing.md 5, records.md 8.7), the name the table's text derives from it.
    static func stateName(_ state: JSONValue, machine: String) -> String {
        if let name = state["name"]?.stringValue { return name }
        func count(_ key: String) -> Int64 {
            switch state[key] {
            case .array(let items)?: return Int64(items.count)
            case .object(let object)?: return Int64(object.members.count)
            case .number(let n)?: return n.int64 ?? 0
            default: return 0
            }
        }
        switch machine {
        case "relay":
            if count("registered") == 0 { return "empty" }
            guard case .array(let ids)? = state["registered"] else { return "?" }
            return ids.contains(where: { isAlias($0) }) ? "aliases" : "peers"
        case "idea-sync":
            if state["isObsolete"] == .bool(true) { return "obsolete" }
            return state["isPendingSync"] == .bool(true) ? "pending" : "synced"
        case "log-retention": return count("entries") > 0 ? "holding" : "empty"
        case "sync-queue": return count("inFlight") > 0 ? "uploading" : count("pending") > 0 ? "pending" : "idle"
        case "record-zone": return count("tags") > 0 ? "holding" : "empty"
        case "pin-lockout": return count("lockedInARow") > 0 ? "locking" : "clear"
        default: return "?"
        }
    }

    /// A `pairing-code:` alias, compared by Unicode scalars as the relay compares ids.
    static func isAlias(_ id: JSONValue?) -> Bool {
        id?.stringValue?.unicodeScalars.starts(with: "pairing-code:".unicodeScalars) ?? false
    }

    /// The machines whose tables the next test checks; every other machine must be named in
    /// `withoutTable` with the reason, so a new machine cannot arrive without one.
    static let tabled = [
        ("migration", "sender", "listening", 10), ("migration", "receiver", "idle", 10), ("pairing", "webrtc", "idle", 5),
        ("pairing", "flow-b", "scanning", 8), ("pairing", "flow-a", "idle", 10), ("pairing", "manual", "entering", 10),
        ("pairing", "connection", "idle", 10), ("pairing", "mobile-bridge", "idle", 4), ("pairing", "relay", "empty", 8),
        ("records", "idea-sync", "pending", 6), ("records", "log-retention", "empty", 2), ("records", "sync-queue", "idle", 4),
        ("records", "initial-sync", "start", 15), ("records", "record-zone", "empty", 2), ("migration", "pin-lockout", "clear", 5),
    ]
    /// None now: pin-lockout's table names its states from its count (Spec migration.md MIG-PIN-003).
    static let withoutTable: Set<String> = []

    @Test func everyMachineHasATable() {
        let all = Set(Families.all.flatMap { f in f.machines.map { "\(f.name)/\($0)" } })
        let tabled = Set(Self.tabled.map { "\($0.0)/\($0.1)" })
        #expect(all.subtracting(tabled).subtracting(Self.withoutTable).sorted() == [], "machines with no transition table")
        #expect(tabled.union(Self.withoutTable).subtracting(all).sorted() == [], "tables of machines the families do not have")
    }

    @Test(arguments: Self.tabled)
    func everyStepIsARowAndEveryRowIsTaken(family: String, machine: String, initial: String, rowsAtLeast: Int) throws {
        let rows = try Self.table(machine, family: family)
        #expect(rows.count > rowsAtLeast, "no transition table for \(machine) in Spec/\(family).md")
        var taken = Set<String>()
        for vector in Fixture.cases {
            guard case .machine(let name, let events, let expected) = vector.body, name == machine, vector.family == family else { continue }
            var from = initial
            for (event, step) in zip(events, expected) {
                let label = Self.label(event, machine: machine)
                let to = Self.stateName(step.state, machine: machine)
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
