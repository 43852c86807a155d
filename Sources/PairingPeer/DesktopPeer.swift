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
    private var machine: MobileBridgeMachine
    private var relay: SignalingClient?
    /// The alias's own connection, with `aliasConnection`.
    private var aliasRelay: SignalingClient?
    private let timer = DeadlineAlarm()
    private var finished: CheckedContinuation<PairingOutcome, Never>?
    /// Ids asked for, and those the relay answered `registered`: the QR is shown once they match,
    /// so that a phone as fast as a script never finds the alias missing.
    private var asked: Set<ByteString> = []
    private var answered: Set<ByteString> = []
    /// The URL of the desktop's own connection: where the WebRTC exchange goes once paired.
    private var ownURL: String?
    var negotiation: Negotiation?

    public init(_ options: Options) {
        self.options = options
        machine = Self.machine(options)
    }

    static func machine(_ options: Options) -> MobileBridgeMachine {
        MobileBridgeMachine(desktop: options.desktop, validity: options.faults.neverExpire ? EpochMillis(Int32.max) * 1000 : options.validity)
    }

    /// Shows a new code drawn from `random` (CSPRNG bytes at the edge): `show` gets the QR text
    /// once both ids are asked for; returns when a phone paired or the code expired.
    public func pair(random: [UInt8], show: @escaping @Sendable (String) async -> Void) async -> PairingOutcome {
        machine = Self.machine(options)
        (asked, answered) = ([], [])
        var source = ScriptedBytes(random)
        guard let code = PairingCode.draw(from: &source) else { return PairingOutcome(state: "failed (no random bytes)", succeeded: false) }
        return await withCheckedContinuation { continuation in
            finished = continuation
            let actions = machine.handle(.start(at: options.now(), code: code))
            Task {
                await self.perform(actions)
                let deadline = ContinuousClock.now + .seconds(5)
                while !self.asked.isSubset(of: self.answered), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
                if case .showing(_, let qrJson, _) = self.machine.state { await show(qrJson) }
            }
        }
    }

    /// Flow A: scans the phone's `device-pairing` QR text and confirms to its DID.
    public func scan(_ text: String) async -> PairingOutcome {
        machine = Self.machine(options)
        (asked, answered) = ([], [])
        return await withCheckedContinuation { continuation in
            finished = continuation
            let actions = machine.handle(.scanned(text: Array(text.trimmingCharacters(in: .newlines).utf8), at: options.now()))
            Task { await self.perform(actions) }
        }
    }

    private func handle(_ event: MobileBridgeMachine.Event) async {
        await perform(machine.handle(event))
    }

    private func perform(_ actions: [PairingAction]) async {
        for action in actions {
            switch action {
            case .register(let url, let peerId):
                if options.faults.noAlias, PeerID.aliasCode(peerId) != nil { continue }
                asked.insert(ByteString(peerId))
                if PeerID.aliasCode(peerId) == nil { ownURL = url }
                await client(url, alias: PeerID.aliasCode(peerId) != nil).register(peerId)
            case .release(_, let peerId):
                if options.aliasConnection, PeerID.aliasCode(peerId) != nil {
                    await stopAliasRelay()
                } else {
                    await relay?.release(peerId)
                }
            case .send(let url, let message):
                ownURL = url
                _ = await client(url).send(JSONSerializer.compact(message.canonical))
            case .drop(let reason):
                options.report(reason)
                options.log(reason.logLine)
            case .reset, .persist:
                break
            }
        }
        timer.set(machine.nextDeadline, now: options.now()) { await self.handle(.tick(at: self.options.now())) }
        await finishIfDone()
    }

    /// A frame from the relay: a `message` is the flow's; anything else is not.
    private func frame(_ text: String) async {
        guard let value = try? JSONParser.parse(Array(text.utf8), limits: pairingLimits) else { return }
        let frame = PairingFrame(value)
        if frame.documentKind == .registered, let id = value["peerId"]?.stringValue { answered.insert(ByteString(id)) }
        if negotiation != nil {
            switch frame.documentKind {
            case .message?: await negotiate(.signal(document: value, at: options.now()))
            case .peerOffline?: await negotiate(.peerOffline(peerId: value["peerId"]?.stringValue ?? "", at: options.now()))
            // The exchange acts on deliveries and on its peer going offline; the relay's other frames are the connection's.
            case .desktopPairing?, .pairAck?, .devicePairing?, .pairingConfirmation?, .register?, .registered?, .relayError?, .pairedDesktop?, .ping?, .pong?,
                .peerStatus?, nil:
                break
            }
            return
        }
        guard frame.documentKind == .message else { return }
        if options.faults.confirmAnyCode, let ack = value["payload"], frame.payloadKind == .pairAck,
            let code = ack["pairingCode"]?.stringValue, let did = ack["mobileDid"]?.stringValue, case .showing(let qr, _, _) = machine.state,
            code != qr.code
        {
            // The fault: a wrong code is confirmed as if it were the one on display.
            let confirmation = PairingConfirmation(pairingCode: code, pcPeerId: options.desktop.pcPeerId, deviceInfo: options.desktop.device, timestamp: options.now())
            _ = await relay?.send(JSONSerializer.compact(SignalMessage(to: did, payload: .pairingConfirmation(confirmation)).canonical))
            return
        }
        await options.hold?()
        await handle(.message(document: value, at: options.now()))
    }

    /// Gives up the code on display: the pairing ends `cancelled`.
    public func cancel() async {
        guard finished != nil else { return }
        timer.cancel()
        await relay?.stop()
        relay = nil
        await stopAliasRelay()
        finished?.resume(returning: PairingOutcome(state: "cancelled", succeeded: false))
        finished = nil
    }

    /// The connection for the desktop's own id, or (with `aliasConnection`) the alias's own one.
    private func client(_ url: String, alias: Bool = false) -> SignalingClient {
        let own = alias && options.aliasConnection
        if let existing = own ? aliasRelay : relay { return existing }
        var faults = options.client
        if own && options.faults.aliasNoKeepalive { faults.noKeepalive = true }
        let client = SignalingClient(
            url: url, policy: options.policy, trust: options.trust, faults: faults, now: options.now, log: options.log,
            onFrame: { [weak self] text in await self?.frame(text) })
        if own { aliasRelay = client } else { relay = client }
        return client
    }

    private func stopAliasRelay() async {
        await aliasRelay?.stop()
        aliasRelay = nil
    }

    private func finishIfDone() async {
        let outcome: PairingOutcome
        switch machine.state {
        case .paired(let name, let did):
            let record: JSONValue = ["mobileDid": .string(did), "deviceName": .string(name), "pairedAt": .number(JSONNumber(options.now()))]
            outcome = PairingOutcome(state: "paired (\(name))", succeeded: true, stored: JSONSerializer.compact(record))
        case .expired: outcome = PairingOutcome(state: "expired", succeeded: false)
        case .failed(let reason):
            options.report(reason)
            outcome = PairingOutcome(state: PhonePeer.failed(reason), succeeded: false)
        default: return
        }
        timer.cancel()
        // Paired already, and the exchange is under way or over: nothing more to finish.
        guard finished != nil, negotiation == nil else { return }
        await stopAliasRelay()
        if case .paired(_, let did) = machine.state, let timeout = options.webrtcTimeout, let url = ownURL {
            var machine = WebRTCNegotiationMachine(localPeerId: options.desktop.pcPeerId, timeout: timeout)
            let actions = machine.handle(
                .start(role: .answerer, peerId: did, url: url, local: Negotiation.local(for: options.desktop.pcPeerId), at: options.now()))
            negotiation = Negotiation(machine: machine, paired: outcome)
            await performNegotiation(actions)
            return
        }
        await end(outcome)
    }

    func end(_ outcome: PairingOutcome) async {
        // The close frame follows the confirmation on the same connection.
        await relay?.stop()
        relay = nil
        await stopAliasRelay()
        finished?.resume(returning: outcome)
        finished = nil
    }

    // MARK: the WebRTC exchange after pairing (4.6), as the answerer

}

extension DesktopPeer: NegotiatingPeer {
    var signalReport: @Sendable (FailureReason) -> Void { options.reportSignal ?? options.report }
    var signalLog: @Sendable (String) -> Void { options.log }
    var clock: @Sendable () -> EpochMillis { options.now }
    func sendSignal(_ text: String, url: String) async { _ = await client(url).send(text) }
}
