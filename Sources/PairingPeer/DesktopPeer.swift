import Foundation
import Pairing
import WebSocketTransport
import WireCore

/// Ways the reference desktop misbehaves on purpose (Conformance/scenarios/README.md).
public struct DesktopFaults: Sendable, Hashable {
    /// Register no `pairing-code:` alias (typed codes get `peer-offline`).
    public var noAlias = false
    /// Confirm a `pair-ack` whatever code it carries.
    public var confirmAnyCode = false
    /// Never let a code expire: a pair-ack that comes after its 5 minutes is confirmed.
    public var neverExpire = false
    /// With the alias on a connection of its own: send no keepalive on that one.
    public var aliasNoKeepalive = false

    public init() {}
}

/// The reference desktop (seed 002 §4.1, §6.5): shows a code, takes the phone's `pair-ack` on
/// its own id or on the code's alias, and confirms a typed code; one code per `show` call.
public actor DesktopPeer {
    public struct Options: Sendable {
        public var desktop: DesktopContext
        public var policy: SignalingConnectionMachine.Policy = .seed
        public var client = ClientFaults()
        public var faults = DesktopFaults()
        public var trust: TLSClientTrust = .system
        public var now: @Sendable () -> EpochMillis = SystemClock().now
        public var log: @Sendable (String) -> Void = { _ in }
        /// Hears of every pair-ack or message the machine dropped, with its rule and path.
        public var report: @Sendable (FailureReason) -> Void = { _ in }
        /// How long a code is valid (test builds shorten the seed's 5 minutes).
        public var validity: EpochMillis = PairingTimeouts.validity
        /// Register each code's alias on a connection of its own, as ChainlessChain's desktop does
        /// (`manual-pair-listener.js`): one more connection for the relay and the runner to serve.
        public var aliasConnection = false
        /// Runs before each incoming `message` is handled: a desktop whose user confirms late
        /// (the runner drops and watches the phone's connection meanwhile).
        public var hold: (@Sendable () async -> Void)?
        /// Once paired, wait this many ms for the phone's offer and answer it (Spec pairing.md
        /// 4.6); nil: no WebRTC exchange.
        public var webrtcTimeout: EpochMillis?
        /// Hears of every WebRTC signal dropped and how the exchange failed; `report` when nil.
        public var reportSignal: (@Sendable (FailureReason) -> Void)?

        public init(desktop: DesktopContext) { self.desktop = desktop }
    }

    private let options: Options
    /// The pairing under way, for `cancel`.
    private var current: Edge<Input>?

    public init(_ options: Options) {
        self.options = options
    }

    static func machine(_ options: Options) -> MobileBridgeMachine {
        MobileBridgeMachine(desktop: options.desktop, validity: options.faults.neverExpire ? EpochMillis(Int32.max) * 1000 : options.validity)
    }

    enum Input: Sendable {
        /// The pairing's first event: a code to show, or a phone's QR scanned.
        case begin(MobileBridgeMachine.Event)
        /// A text frame from one of the desktop's relay connections.
        case frame(String)
        case cancel
        /// The wait for the relay's `registered` answers is over: the QR is shown now.
        case showNow
    }

    /// Shows a new code drawn from `random` (CSPRNG bytes at the edge): `show` gets the QR text
    /// once both ids are registered (or after 5 s); returns when a phone paired or the code expired.
    public func pair(random: [UInt8], show: @escaping @Sendable (String) async -> Void) async -> PairingOutcome {
        var source = ScriptedBytes(random)
        guard let code = PairingCode.draw(from: &source) else { return PairingOutcome(state: "failed (no random bytes)", succeeded: false) }
        return await run(.start(at: options.now(), code: code), show: show)
    }

    /// Flow A: scans the phone's `device-pairing` QR text and confirms to its DID.
    public func scan(_ text: String) async -> PairingOutcome {
        await run(.scanned(text: Array(text.trimmingCharacters(in: .newlines).utf8), at: options.now()), show: nil)
    }

    /// Gives up the pairing under way: it ends `cancelled`.
    public func cancel() async {
        current?.post(.cancel)
    }

    private func run(_ first: MobileBridgeMachine.Event, show: (@Sendable (String) async -> Void)?) async -> PairingOutcome {
        let edge = Edge<Input>(now: options.now)
        current = edge
        defer { current = nil }
        let session = PairingSession(Self.machine(options))
        return await PairingSession.run(session, Performer(options: options, show: show), on: edge, first: .begin(first), showNow: show == nil ? nil : .showNow)
    }

    /// The desktop's side of the edge: its relay connections, the QR on display, the faults.
    struct Performer: EdgePerformer {
        typealias Hosted = PairingSession<MobileBridgeMachine>
        let options: Options
        var qr: QRDisplay
        var relay: SignalingClient?
        /// The alias's own connection, with `aliasConnection`.
        var aliasRelay: SignalingClient?
        /// Ids asked for, and those the relay answered `registered`: the QR is shown once they match,
        /// so that a phone as fast as a script never finds the alias missing.
        var asked: Set<ByteString> = []
        var answered: Set<ByteString> = []
        var cancelled = false
        /// The URL of the desktop's own connection: where the WebRTC exchange goes once paired.
        var ownURL: String?
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
            case .cancel:
                cancelled = true
                return []
            case .showNow:
                qr.waitedEnough = true
                return []
            case .frame(let text):
                return await frame(text, at: now, machine, edge)
            }
        }

        /// A frame from the relay: a `message` is the flow's, or the exchange's once it has begun;
        /// anything else is not.
        private mutating func frame(_ text: String, at now: EpochMillis, _ machine: Hosted, _ edge: Edge<Input>) async -> [Hosted.Event] {
            guard let value = try? JSONParser.parse(Array(text.utf8), limits: pairingLimits) else { return [] }
            let frame = PairingFrame(value)
            if frame.documentKind == .registered, let id = value["peerId"]?.stringValue { answered.insert(ByteString(id)) }
            if machine.exchange != nil {
                switch frame.documentKind {
                case .message?: return [.exchange(.signal(document: value, at: now))]
                case .peerOffline?: return [.exchange(.peerOffline(peerId: value["peerId"]?.stringValue ?? "", at: now))]
                // The exchange acts on deliveries and on its peer going offline; the relay's other frames are the connection's.
                case .desktopPairing?, .pairAck?, .devicePairing?, .pairingConfirmation?, .register?, .registered?, .relayError?, .pairedDesktop?, .ping?,
                    .pong?, .peerStatus?, nil:
                    return []
                }
            }
            guard frame.documentKind == .message else { return [] }
            if options.faults.confirmAnyCode, let ack = value["payload"], frame.payloadKind == .pairAck,
                let code = ack["pairingCode"]?.stringValue, let did = ack["mobileDid"]?.stringValue, case .showing(let qr, _, _) = machine.flow.state,
                code != qr.code
            {
                // The fault: a wrong code is confirmed as if it were the one on display.
                let confirmation = PairingConfirmation(pairingCode: code, pcPeerId: options.desktop.pcPeerId, deviceInfo: options.desktop.device, timestamp: now)
                _ = await relay?.send(JSONSerializer.compact(SignalMessage(to: did, payload: .pairingConfirmation(confirmation)).canonical))
                return []
            }
            await options.hold?()
            return [.flow(.message(document: value, at: edge.now()))]
        }

        mutating func perform(_ action: PairingAction, _ machine: Hosted, _ edge: Edge<Input>) async throws -> Performed<Hosted.Event> {
            switch action {
            case .register(let url, let peerId):
                if options.faults.noAlias, PeerID.aliasCode(peerId) != nil { break }
                asked.insert(ByteString(peerId))
                if PeerID.aliasCode(peerId) == nil { ownURL = url }
                await client(url, alias: PeerID.aliasCode(peerId) != nil, edge).register(peerId)
            case .release(_, let peerId):
                if options.aliasConnection, PeerID.aliasCode(peerId) != nil {
                    await stopAliasRelay()
                } else {
                    await relay?.release(peerId)
                }
            case .send(let url, let message):
                if machine.exchange == nil { ownURL = url }
                _ = await client(url, edge).send(JSONSerializer.compact(message.canonical))
            case .drop(let reason):
                (machine.exchange == nil ? options.report : options.reportSignal ?? options.report)(reason)
                options.log(reason.logLine)
            case .reset, .persist:
                break
            }
            return .done
        }

        mutating func settled(_ machine: Hosted, _ edge: Edge<Input>) async throws -> Settled<PairingOutcome, Hosted.Event> {
            if cancelled {
                await closeAll()
                return .end(PairingOutcome(state: "cancelled", succeeded: false))
            }
            if case .showing(_, let qrJson, _) = machine.flow.state { qr.offer(qrJson, registered: asked.isSubset(of: answered), on: edge) }
            if let paired {
                guard let outcome = machine.outcome(after: paired, report: options.reportSignal ?? options.report) else { return .goOn }
                await closeAll()
                return .end(outcome)
            }
            let outcome: PairingOutcome
            switch machine.flow.state {
            case .paired(let name, let did):
                let record: JSONValue = ["mobileDid": .string(did), "deviceName": .string(name), "pairedAt": .number(JSONNumber(edge.now()))]
                outcome = PairingOutcome(state: "paired (\(name))", succeeded: true, stored: JSONSerializer.compact(record))
            case .expired: outcome = PairingOutcome(state: "expired", succeeded: false)
            case .failed(let reason):
                options.report(reason)
                outcome = PairingOutcome(state: PhonePeer.failed(reason), succeeded: false)
            case .idle, .showing:
                return .goOn
            }
            await stopAliasRelay()
            if case .paired(_, let did) = machine.flow.state, let timeout = options.webrtcTimeout, let url = ownURL {
                paired = outcome
                let id = options.desktop.pcPeerId
                let start = WebRTCNegotiationMachine.Event.start(role: .answerer, peerId: did, url: url, local: Hosted.local(for: id), at: edge.now())
                return .then([.begin(WebRTCNegotiationMachine(localPeerId: id, timeout: timeout), start)])
            }
            await closeAll()
            return .end(outcome)
        }

        /// The connection for the desktop's own id, or (with `aliasConnection`) the alias's own one.
        private mutating func client(_ url: String, alias: Bool = false, _ edge: Edge<Input>) -> SignalingClient {
            let own = alias && options.aliasConnection
            if let existing = own ? aliasRelay : relay { return existing }
            var faults = options.client
            if own && options.faults.aliasNoKeepalive { faults.noKeepalive = true }
            let client = SignalingClient(
                url: url, policy: options.policy, trust: options.trust, faults: faults, now: options.now, log: options.log,
                onFrame: { text in edge.post(.frame(text)) })
            if own { aliasRelay = client } else { relay = client }
            return client
        }

        private mutating func stopAliasRelay() async {
            await aliasRelay?.stop()
            aliasRelay = nil
        }

        /// The close frame follows the confirmation on the same connection.
        private mutating func closeAll() async {
            await relay?.stop()
            relay = nil
            await stopAliasRelay()
        }
    }
}
