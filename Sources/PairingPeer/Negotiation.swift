import Pairing
import WebSocketTransport
import WireCore

/// The WebRTC exchange after pairing at a reference peer's edge (Spec pairing.md 4.6): the
/// machine, its own timer, and the pairing outcome held back until the exchange ends. The phone
/// drives it as the offerer, the desktop as the answerer.
struct Negotiation {
    var machine: WebRTCNegotiationMachine
    let timer = DeadlineAlarm()
    /// The pairing's outcome, returned once the exchange has ended.
    let paired: PairingOutcome

    /// Whether the machine has come to its end.
    var ended: Bool {
        switch machine.state {
        case .negotiated, .failed: return true
        case .idle, .negotiating: return false
        }
    }

    /// The pairing's outcome with the exchange's end added to its state.
    var outcome: PairingOutcome {
        var outcome = paired
        switch machine.state {
        case .negotiated:
            outcome.state += "; negotiated"
            outcome.negotiated = true
        case .failed(let reason):
            outcome.state += "; WebRTC " + PhonePeer.failed(reason)
            outcome.negotiated = false
        case .idle, .negotiating:
            break
        }
        return outcome
    }

    /// What a reference peer offers or answers: a data-channel description and one host
    /// candidate. No media flows; only the signaling is exercised.
    static func local(for id: String) -> WebRTCNegotiationMachine.Local {
        let session = id.utf8.reduce(UInt64(5381)) { ($0 &* 33) &+ UInt64($1) } % 1_000_000_000
        let sdp =
            "v=0\r\no=- \(session) 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n"
            + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\na=sctp-port:5000\r\n"
        return .init(sdp: sdp, candidates: ["candidate:1 1 udp 2122260223 127.0.0.1 \(50000 + session % 10000) typ host"])
    }
}

/// A reference peer that goes on past pairing into the exchange: what the shared driver below
/// needs of it.
protocol NegotiatingPeer: Actor {
    var negotiation: Negotiation? { get set }
    /// Hears of every signal dropped and of how the exchange failed.
    var signalReport: @Sendable (FailureReason) -> Void { get }
    var signalLog: @Sendable (String) -> Void { get }
    var clock: @Sendable () -> EpochMillis { get }
    func sendSignal(_ text: String, url: String) async
    /// Returns the pairing's outcome to its caller and closes the peer's connections.
    func end(_ outcome: PairingOutcome) async
}

extension NegotiatingPeer {
    func negotiate(_ event: WebRTCNegotiationMachine.Event) async {
        guard var n = negotiation else { return }
        let actions = n.machine.handle(event)
        negotiation = n
        await performNegotiation(actions)
    }

    func performNegotiation(_ actions: [PairingAction]) async {
        for action in actions {
            switch action {
            case .send(let url, let message):
                await sendSignal(JSONSerializer.compact(message.canonical), url: url)
            case .drop(let reason):
                signalReport(reason)
                signalLog(reason.logLine)
            case .register, .release, .reset, .persist:
                break
            }
        }
        negotiation?.timer.set(negotiation?.machine.nextDeadline, now: clock()) { await self.negotiate(.tick(at: self.clock())) }
        guard let n = negotiation, n.ended else { return }
        n.timer.cancel()
        if case .failed(let reason) = n.machine.state { signalReport(reason) }
        negotiation = nil
        await end(n.outcome)
    }
}
