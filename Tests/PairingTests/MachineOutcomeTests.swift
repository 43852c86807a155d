import Pairing
import Testing
import WireCore

/// The machine contract's outcomes (WireCore `Step`): a step a machine ignores says why and
/// changes nothing (no state, no action); random event sequences reach both outcomes.
@Suite("Pairing machines: what an ignored event leaves")
struct MachineOutcomeTests {
    /// Feeds `events`; returns how many were ignored and every ignored step that changed or did something.
    static func audit<M: Machine, S: Equatable>(_ machine: inout M, _ events: [M.Event], state: (M) -> S) -> (ignored: Int, breaks: [String]) {
        var ignored = 0
        var breaks: [String] = []
        for event in events {
            let before = state(machine)
            let step = machine.step(event)
            guard case .ignored(let why) = step.outcome else { continue }
            ignored += 1
            if state(machine) != before || !step.actions.isEmpty { breaks.append("\(event) ignored (\(why)) yet changed or acted: \(step.actions)") }
        }
        return (ignored, breaks)
    }

    @Test(arguments: 0..<20)
    func flowBIgnoresWithoutEffect(seed: UInt64) {
        var g = SplitMix64(seed: seed)
        var machine = ScanDesktopPairingMachine(phone: FlowMachineTests.phone)
        let events = (0..<40).map { _ in FlowMachineTests().randomFlowBEvent(&g) }
        let (ignored, breaks) = Self.audit(&machine, events, state: \.state)
        #expect(breaks == [])
        #expect(ignored > 0)
    }

    @Test(arguments: 0..<20)
    func theConnectionIgnoresWithoutEffect(seed: UInt64) {
        var g = SplitMix64(seed: seed)
        var machine = SignalingConnectionMachine()
        var at = FlowMachineTests.now
        let events = (0..<60).map { _ -> SignalingConnectionMachine.Event in
            at += EpochMillis(g.next() % 40_000)
            switch g.next() % 9 {
            case 0: return .start(at: at)
            case 1: return .register(peerId: g.next() % 2 == 0 ? "did:cc:phone-1" : "pairing-code:048213", at: at)
            case 2: return .release(peerId: "pairing-code:048213", at: at)
            case 3: return .opened(at: at)
            case 4: return .failed(at: at)
            case 5: return g.next() % 8 == 0 ? .stop(at: at) : .tick(at: at)
            case 6: return .heard(at: at)
            default: return .tick(at: at)
            }
        }
        let (ignored, breaks) = Self.audit(&machine, events, state: { "\($0.state) \($0.held)" })
        #expect(breaks == [])
        #expect(ignored > 0)
    }

    /// Named pairs, each with the reason it gives.
    @Test func eachIgnoredPairSaysWhy() {
        var webrtc = WebRTCNegotiationMachine(localPeerId: "desktop-4f9c2a")
        #expect(webrtc.step(.tick(at: 1)).outcome == .ignored("no exchange started"))
        var connection = SignalingConnectionMachine()
        #expect(connection.step(.opened(at: 1)).outcome == .ignored("not started"))
        #expect(connection.step(.heard(at: 1)).outcome == .ignored("no open connection"))
        _ = connection.step(.start(at: 1))
        #expect(connection.step(.start(at: 2)).outcome == .ignored("already started"))
        var relay = SignalingRelay()
        #expect(relay.step(.received(7, text: Array(#"{"type":"ping"}"#.utf8), at: 1)).outcome == .ignored("no such connection"))
    }
}
