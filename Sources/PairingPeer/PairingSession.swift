import Pairing
import WebSocketTransport
import WireCore

/// A reference peer's pairing at its edge, as one timed machine for `EdgeHost`: the flow's
/// machine, then, once the edge begins it, the WebRTC exchange (Spec pairing.md 4.6). Each event
/// goes to the machine it names; a tick to the exchange once it has begun, else to the flow.
struct PairingSession<Flow: TimedMachine>: TimedMachine where Flow.Action == PairingAction {
    private(set) var flow: Flow
    /// The exchange, once begun.
    private(set) var exchange: WebRTCNegotiationMachine?

    enum Event: Sendable {
        case flow(Flow.Event)
        /// Begins the exchange: this machine, and its `start`.
        case begin(WebRTCNegotiationMachine, WebRTCNegotiationMachine.Event)
        case exchange(WebRTCNegotiationMachine.Event)
        case tick(at: EpochMillis)
    }

    init(_ flow: Flow) { self.flow = flow }

    static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    var nextDeadline: EpochMillis? { exchange.map(\.nextDeadline) ?? flow.nextDeadline }

    mutating func step(_ event: Event) -> Step<PairingAction> {
        switch (exchange, event) {
        case (_, .flow(let event)):
            return flow.step(event)
        case (nil, .begin(var machine, let start)):
            defer { exchange = machine }
            return machine.step(start)
        case (.some, .begin):
            return .ignored("the exchange has begun already")
        case (.some(var machine), .exchange(let event)):
            defer { exchange = machine }
            return machine.step(event)
        case (nil, .exchange):
            return .ignored("no exchange has begun")
        case (.some(var machine), .tick(let at)):
            defer { exchange = machine }
            return machine.step(.tick(at: at))
        case (nil, .tick(let at)):
            return flow.step(Flow.tick(at: at))
        }
    }

    /// The pairing's outcome with the exchange's end added, once the exchange has ended; how it
    /// failed goes to `report`.
    func outcome(after paired: PairingOutcome, report: (FailureReason) -> Void) -> PairingOutcome? {
        var outcome = paired
        switch exchange?.state {
        case .negotiated?:
            outcome.state += "; negotiated"
            outcome.negotiated = true
        case .failed(let reason)?:
            report(reason)
            outcome.state += "; WebRTC " + PhonePeer.failed(reason)
            outcome.negotiated = false
        case .idle?, .negotiating?, nil:
            return nil
        }
        return outcome
    }

    /// Runs one pairing on `edge` from its first input; `showNow` is posted once the QR's wait
    /// is over. A run cut short ends `cancelled`.
    static func run<Performer: EdgePerformer>(
        _ session: PairingSession, _ performer: Performer, on edge: Edge<Performer.Input>, first: Performer.Input, showNow: Performer.Input?
    ) async -> PairingOutcome where Performer.Hosted == PairingSession, Performer.Ending == PairingOutcome {
        edge.post(first)
        if let showNow {
            edge.spawn {
                try? await Task.sleep(for: QRDisplay.wait)
                edge.post(showNow)
            }
        }
        do {
            return try await EdgeHost.run(session, performer, on: edge)
        } catch {
            return PairingOutcome(state: "cancelled", succeeded: false)
        }
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
