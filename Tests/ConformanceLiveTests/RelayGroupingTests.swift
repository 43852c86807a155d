@testable import ConformanceLive
import Testing
import WireCore

/// A live relay case reports each connection's first wrong frame; what that connection gets
/// wrong later is listed under it as a consequence, counted once.
@Suite("Relay findings and their consequences")
struct RelayGroupingTests {
    static func v(_ rule: RuleID, _ path: String, step: Int, connection: Int64) -> (connection: Int64, violation: Violation) {
        (connection, Violation(rule: rule, path: JSONPointer(path) ?? .root, expected: "x", found: "y", subject: "connection \(connection) at step \(step)"))
    }

    @Test func laterViolationsOfAConnectionAreConsequencesOfItsFirst() {
        let grouped = RelayReplay.grouped([
            Self.v("PAIR-RELAY-001", "", step: 2, connection: 1),
            // Two members wrong in one frame: both are findings.
            Self.v("PAIR-SIG-003", "/code", step: 3, connection: 2), Self.v("PAIR-RELAY-001", "/peerId", step: 3, connection: 2),
            Self.v("PAIR-SIG-003", "/code", step: 4, connection: 2),
            Self.v("PAIR-RELAY-001", "", step: 5, connection: 1),
            Self.v("PAIR-SIG-003", "/code", step: 6, connection: 2),
        ])
        #expect(grouped.map { "\($0.rule) \($0.path) \($0.subject ?? "")" } == [
            "PAIR-RELAY-001  connection 1 at step 2", "PAIR-SIG-003 /code connection 2 at step 3", "PAIR-RELAY-001 /peerId connection 2 at step 3",
        ])
        #expect(grouped.map(\.consequences.count) == [1, 2, 0])
        #expect(grouped[1].consequences.map { $0.subject ?? "" } == ["connection 2 at step 4", "connection 2 at step 6"])
    }

    /// A relay announcing every alias (PAIR-SEC-006, unasked broadcasts) is one finding with its
    /// count; a spent alias delivered again is a finding of its own, never filed under a
    /// broadcast; and what the relay was asked and failed later is no consequence of a broadcast
    /// (issue 38, case 10: 28 findings and 24 consequences for one cause).
    @Test func oneCauseIsOneFindingAndStraysExplainNothing() {
        let broadcasts = (1...28).map { c in
            (connection: Int64(c % 3 + 1), violation: Violation(rule: "PAIR-SEC-006", path: JSONPointer("/peerId") ?? .root, expected: "no alias announced", found: "pairing-code:\(c)", subject: "connection \(c % 3 + 1) (read at step \(c))"))
        }
        let respent = (connection: Int64(1), violation: Violation(rule: "PAIR-SEC-003", path: .root, expected: "no delivery of step 6's message", found: "a delivery", subject: "connection 1 (read at step 6)"))
        let asked = Self.v("PAIR-RELAY-001", "", step: 7, connection: 1)
        let grouped = RelayReplay.grouped([asked], strays: broadcasts + [respent])
        #expect(grouped.map { "\($0.rule) \($0.count)" } == ["PAIR-RELAY-001 1", "PAIR-SEC-006 28", "PAIR-SEC-003 1"], "\(grouped)")
        #expect(grouped.allSatisfy { $0.consequences.isEmpty })
    }
}
