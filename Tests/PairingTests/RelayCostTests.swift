import Testing
import Pairing
import WireCore

/// The relay's work per event does not grow with what it holds (security review D5): alias
/// expiry looks only at what expires, a disconnect only at what the connection held.
@Suite("The relay's cost per event")
struct RelayCostTests {
    @Test(.timeLimit(.minutes(1))) func manyAliasesAndConnectionsStayCheap() {
        var relay = SignalingRelay()
        let count = 30_000
        let t0: EpochMillis = 1_747_300_000_000
        for i in 0..<count {
            _ = relay.handle(.connected(i, source: "10.\(i / 65536).\((i / 256) % 256).\(i % 256)", at: t0 + EpochMillis(i)))
            let code = String(i).leftPadded(to: 6)
            let actions = relay.handle(.received(i, text: Array(#"{"type":"register","peerId":"pairing-code:\#(code)"}"#.utf8), at: t0 + EpochMillis(i)))
            guard case .send(_, let document, _)? = actions.first, document["type"] == "registered" else {
                Issue.record("alias \(i): \(actions)")
                return
            }
        }
        #expect(relay.registeredPeerIds.count == count)
        // Five minutes later, one registration expires all of them; then every connection leaves.
        let later = t0 + EpochMillis(count) + PairingTimeouts.validity + 1
        _ = relay.handle(.connected(count, source: "192.0.2.1", at: later))
        _ = relay.handle(.received(count, text: Array(#"{"type":"register","peerId":"pairing-code:999999"}"#.utf8), at: later))
        #expect(relay.registeredPeerIds == ["pairing-code:999999"])
        for i in 0...count { _ = relay.handle(.disconnected(i, at: later)) }
        #expect(relay.registeredPeerIds.isEmpty)
    }
}

/// One client that registers 100 pairing codes, as a guesser or a squatter would, gets what the
/// Spec allows and then `rate-limited` (PAIR-SEC-004, PAIR-SEC-005).
@Suite("The relay refuses alias guessing and squatting")
struct RelayGuessingTests {
    static let t0: EpochMillis = 1_747_300_000_000

    static func answer(_ relay: inout SignalingRelay, _ connection: Int, _ text: String, at: EpochMillis) -> String {
        guard case .send(_, let document, _)? = relay.handle(.received(connection, text: Array(text.utf8), at: at)).first else { return "nothing" }
        return document["code"]?.stringValue ?? document["type"]?.stringValue ?? "?"
    }

    @Test func probingLiveCodesIsRefusedAfterFive() {
        var relay = SignalingRelay()
        _ = relay.handle(.connected(1, source: "192.0.2.10", at: Self.t0))
        #expect(Self.answer(&relay, 1, #"{"type":"register","peerId":"pairing-code:048213"}"#, at: Self.t0) == "registered")
        _ = relay.handle(.connected(2, source: "203.0.113.66", at: Self.t0))
        let answers = (0..<100).map { i in
            Self.answer(&relay, 2, #"{"type":"register","peerId":"pairing-code:048213"}"#, at: Self.t0 + EpochMillis(i))
        }
        #expect(answers.prefix(5).allSatisfy { $0 == "alias-taken" })
        #expect(answers.dropFirst(5).allSatisfy { $0 == "rate-limited" }, "\(answers)")
    }

    @Test func squattingFreeCodesIsRefusedAfterTheQuota() {
        var relay = SignalingRelay()
        _ = relay.handle(.connected(1, source: "203.0.113.66", at: Self.t0))
        let answers = (0..<100).map { i in
            Self.answer(&relay, 1, #"{"type":"register","peerId":"pairing-code:\#(String(100_000 + i))"}"#, at: Self.t0 + EpochMillis(i))
        }
        #expect(answers.prefix(3).allSatisfy { $0 == "registered" })
        #expect(answers.dropFirst(3).allSatisfy { $0 == "rate-limited" }, "\(answers)")
        #expect(relay.registeredPeerIds.count == 3)
    }
}
