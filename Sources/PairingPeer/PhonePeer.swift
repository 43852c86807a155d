import Foundation
import Pairing
import WebSocketTransport
import WireCore

/// How a pairing ended on one side, and what that side stores.
public struct PairingOutcome: Sendable {
    /// The flow's final state: `success`, `failed (RULE at PATH)`, `paired`, `expired`, ...
    public var state: String
    public var succeeded: Bool
    /// What the side stores, as JSON text (a phone's `paired-desktop`, a desktop's paired phone).
    public var stored: String?
    /// With the WebRTC exchange after pairing (Spec pairing.md 4.6): whether it was negotiated.
    public var negotiated: Bool?
}

/// The reference phone (seed 002 §7): Flow B from a scanned QR text or the manual flow from a
/// typed code, over real signaling connections; one pairing per `pair` call.
public actor PhonePeer {
    public struct Options: Sendable {
        public var phone: PhoneContext
        public var policy: SignalingConnectionMachine.Policy = .seed
        public var confirmationWait: EpochMillis = PairingTimeouts.validity
        public var faults = ClientFaults()
        public var trust: TLSClientTrust = .system
        public var now: @Sendable () -> EpochMillis = SystemClock().now
        public var log: @Sendable (String) -> Void = { _ in }
        /// Hears of every confirmation the machine dropped, with its rule and path.
        public var report: @Sendable (FailureReason) -> Void = { _ in }
        /// Once paired, offer to the desktop (Spec pairing.md 4.6) within this many ms; nil: no
        /// WebRTC exchange.
        public var webrtcTimeout: EpochMillis?
        /// Hears of every WebRTC signal dropped and how the exchange failed; `report` when nil.
        public var reportSignal: (@Sendable (FailureReason) -> Void)?

        public init(phone: PhoneContext) { self.phone = phone }
    }

    private let options: Options
    /// The pairing under way, for `cancel`.
    private var current: Edge<Input>?

    public init(_ options: Options) {
        self.options = options
    }

    enum Input: Sendable {
        /// The flow's first event: a code typed, a QR scanned, the phone's own QR to show.
        case begin(PhoneFlow.Event)
        /// A text frame from one of the phone's relay connections.
        case frame(String)
        /// Whether a frame the flow sent went out.
        case sent(Bool)
        case cancel
        /// The wait for the relay's `registered` answer is over: the QR is shown now.
        case showNow
    }

    /// Pairs from what the user has: six digits are a typed code (manual flow), anything else
    /// the text of a scanned QR (Flow B). Returns when the flow ends.
    public func pair(_ input: String) async -> PairingOutcome {
        let text = input.trimmingCharacters(in: .newlines)
        let at = options.now()
        if PairingCode.isValid(text) {
            let flow = PhoneFlow.manual(ManualPairingMachine(phone: options.phone, confirmationWait: options.confirmationWait))
            return await run(flow, .manual(.submit(code: text, at: at)), target: PeerID.alias(forCode: text), show: nil)
        }
        return await run(.scan(ScanDesktopPairingMachine(phone: options.phone)), .scan(.scanned(text: Array(text.utf8), at: at)), target: nil, show: nil)
    }

    /// Flow A: shows a `device-pairing` QR (its code drawn from `random`, CSPRNG bytes at the
    /// edge) through `show` once the DID is registered (or after 5 s), and waits for the
    /// desktop's confirmation.
    public func display(random: [UInt8], show: @escaping @Sendable (String) async -> Void) async -> PairingOutcome {
        var source = ScriptedBytes(random)
        guard let code = PairingCode.draw(from: &source) else { return PairingOutcome(state: "failed (no random bytes)", succeeded: false) }
        return await run(.display(DesktopPairingMachine(phone: options.phone)), .display(.start(at: options.now(), code: code)), target: nil, show: show)
    }

    /// Gives up the flow under way: it ends `cancelled`.
    public func cancel() async {
        current?.post(.cancel)
    }

    /// One pairing, from nothing: a manual flow persists no record, and must not report the one
    /// an earlier Flow B stored.
    private func run(_ flow: PhoneFlow, _ first: PhoneFlow.Event, target: String?, show: (@Sendable (String) async -> Void)?) async -> PairingOutcome {
        let edge = Edge<Input>(now: options.now)
        current = edge
        defer { current = nil }
        var performer = Performer(options: options, show: show)
        performer.target = target
        return await PairingSession.run(PairingSession(flow), performer, on: edge, first: .begin(first), showNow: show == nil ? nil : .showNow)
    }

    /// The phone's side of the edge: its relay connections, what it stores, the QR it shows.
    struct Performer: EdgePerformer {
        typealias Hosted = PairingSession<PhoneFlow>
        let options: Options
        var qr: QRDisplay
        var clients: [String: SignalingClient] = [:]
        var stored: String?
        /// The id a faulty phone registers after a reconnection (the QR's `pcPeerId`, or the alias).
        var target: String?
        /// Ids the relay answered `registered`: Flow A shows its QR once the DID is among them.
        var answered: Set<ByteString> = []
        var cancelled = false
        /// The signaling URL the flow last used, and the desktop a confirmation came from: where the
        /// WebRTC exchange goes once paired.
        var lastURL: String?
        var confirmedBy: String?
        /// The pairing's outcome while the exchange after it runs.
        var paired: PairingOutcome?

        init(options: Options, show: (@Sendable (String) async -> Void)?) {
            self.options = options
            qr = QRDisplay(show)
        }

        mutating func events(for input: Input, at now: EpochMillis, _ machine: Hosted, _ edge: Edge<Input>) async throws -> [Hosted.Event] {
            switch input {
            case .begin(let event):
                return [.flow(event)]
            case .frame(let text):
                return frame(text, at: now, machine)
            case .sent(let sent):
                switch machine.flow {
                case .scan: return [.flow(.scan(sent ? .sendSucceeded(at: now) : .sendFailed(at: now)))]
                case .manual: return [.flow(.manual(sent ? .sendSucceeded(at: now) : .sendFailed(at: now)))]
                case .display: return []
                }
            case .cancel:
                cancelled = true
                return []
            case .showNow:
                qr.waitedEnough = true
                return []
            }
        }

        /// A frame from a relay: a confirmation inside a `message`, or `peer-offline`; the
        /// exchange's once it has begun.
        private mutating func frame(_ text: String, at now: EpochMillis, _ machine: Hosted) -> [Hosted.Event] {
            guard let value = try? JSONParser.parse(Array(text.utf8), limits: pairingLimits) else { return [] }
            let frame = PairingFrame(value)
            switch frame.documentKind {
            case .registered?:
                if let id = value["peerId"]?.stringValue { answered.insert(ByteString(id)) }
                return []
            case .message? where machine.exchange != nil:
                return [.exchange(.signal(document: value, at: now))]
            case .peerOffline? where machine.exchange != nil:
                return [.exchange(.peerOffline(peerId: value["peerId"]?.stringValue ?? "", at: now))]
            case .message?:
                guard let payload = value["payload"], frame.payloadKind == .pairingConfirmation else { return [] }
                confirmedBy = payload["pcPeerId"]?.stringValue
                if case .display = machine.flow { return [.flow(.display(.confirmation(document: payload, at: now)))] }
                return [.flow(.manual(.confirmation(document: payload, at: now)))]
            case .peerOffline?:
                return [.flow(.manual(.peerOffline(at: now)))]
            case .desktopPairing?, .pairAck?, .devicePairing?, .pairingConfirmation?, .register?, .relayError?, .pairedDesktop?, .ping?, .pong?, .peerStatus?, nil:
                // Not for the phone's flow: the relay's errors and keepalives are the client's, and a
                // kind a client does not act on is one it ignores (PAIR-RELAY-002: a relay's extensions
                // and presence broadcasts included), so a kind the table gains needs nothing here.
                return []
            }
        }

        mutating func stepped(_ machine: Hosted, _ edge: Edge<Input>) async throws {
            // Flow B's target is the scanned QR's desktop, known once the scan is taken.
            if case .scan(let m) = machine.flow, case .sending(let sending) = m.state { target = sending.qr.pcPeerId }
        }

        mutating func perform(_ action: PairingAction, _ machine: Hosted, _ edge: Edge<Input>) async throws -> Performed<Hosted.Event> {
            switch action {
            case .register(let url, let peerId):
                lastURL = url
                await client(url, edge).register(peerId, target: target)
            case .send(let url, let message) where machine.exchange != nil:
                _ = await client(url, edge).send(JSONSerializer.compact(message.canonical))
            case .send(let url, let message):
                lastURL = url
                let client = client(url, edge)
                let text = JSONSerializer.compact(message.canonical)
                edge.spawn { edge.post(.sent(await client.send(text))) }
            case .reset:
                await closeAll()
            case .persist(let record):
                stored = JSONSerializer.compact(record.canonical)
            case .drop(let reason):
                (machine.exchange == nil ? options.report : options.reportSignal ?? options.report)(reason)
                options.log(reason.logLine)
            case .release:
                break
            }
            return .done
        }

        mutating func settled(_ machine: Hosted, _ edge: Edge<Input>) async throws -> Settled<PairingOutcome, Hosted.Event> {
            if cancelled {
                await closeAll()
                return .end(PairingOutcome(state: "cancelled", succeeded: false))
            }
            if case .display(let m) = machine.flow, case .displaying(_, let payloadJson, _) = m.state {
                qr.offer(payloadJson, registered: answered.contains(ByteString(options.phone.activeDid ?? "")), on: edge)
            }
            if let paired {
                guard let outcome = machine.outcome(after: paired, report: options.reportSignal ?? options.report) else { return .goOn }
                await closeAll()
                return .end(outcome)
            }
            guard let outcome = machine.flow.outcome(stored: stored) else { return .goOn }
            if outcome.succeeded, let timeout = options.webrtcTimeout, let begin = offer(machine, timeout: timeout, at: edge.now()) {
                paired = outcome
                return .then([begin])
            }
            await closeAll()
            return .end(outcome)
        }

        /// The exchange as the offerer, on the connection that paired; nil when the desktop's id
        /// or the phone's own is not known.
        private func offer(_ machine: Hosted, timeout: EpochMillis, at now: EpochMillis) -> Hosted.Event? {
            let desktop: String?
            if case .scan = machine.flow { desktop = target } else { desktop = confirmedBy }
            guard let desktop, let url = lastURL, let did = options.phone.activeDid else { return nil }
            let start = WebRTCNegotiationMachine.Event.start(role: .offerer, peerId: desktop, url: url, local: Hosted.local(for: did), at: now)
            return .begin(WebRTCNegotiationMachine(localPeerId: did, timeout: timeout), start)
        }

        private mutating func client(_ url: String, _ edge: Edge<Input>) -> SignalingClient {
            if let client = clients[url] { return client }
            let client = SignalingClient(
                url: url, policy: options.policy, trust: options.trust, faults: options.faults, now: options.now, log: options.log,
                onFrame: { text in edge.post(.frame(text)) })
            clients[url] = client
            return client
        }

        private mutating func closeAll() async {
            for client in clients.values { await client.stop() }
            clients = [:]
        }
    }

    static func failed(_ reason: FailureReason) -> String {
        "failed (\(reason.rule) at \(reason.path.description.isEmpty ? "/" : reason.path.description): \(reason.detail))"
    }
}
