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

    enum Flow {
        case scan(ScanDesktopPairingMachine)
        case manual(ManualPairingMachine)
        case display(DesktopPairingMachine)
    }

    private let options: Options
    private var flow: Flow
    private var clients: [String: SignalingClient] = [:]
    private let timer = DeadlineAlarm()
    private var stored: String?
    private var finished: CheckedContinuation<PairingOutcome, Never>?
    /// The id a faulty phone registers after a reconnection (the QR's `pcPeerId`, or the alias).
    private var target: String?
    /// Ids the relay answered `registered`: Flow A shows its QR once the DID is among them.
    private var answered: Set<ByteString> = []
    /// The signaling URL the flow last used, and the desktop a confirmation came from: where the
    /// WebRTC exchange goes once paired.
    private var lastURL: String?
    private var confirmedBy: String?
    var negotiation: Negotiation?

    public init(_ options: Options) {
        self.options = options
        flow = .scan(ScanDesktopPairingMachine(phone: options.phone))
    }

    /// Pairs from what the user has: six digits are a typed code (manual flow), anything else
    /// the text of a scanned QR (Flow B). Returns when the flow ends.
    public func pair(_ input: String) async -> PairingOutcome {
        let text = input.trimmingCharacters(in: .newlines)
        forgetLastPairing()
        return await withCheckedContinuation { continuation in
            finished = continuation
            let at = options.now()
            if PairingCode.isValid(text) {
                target = PeerID.alias(forCode: text)
                var machine = ManualPairingMachine(phone: options.phone, confirmationWait: options.confirmationWait)
                let actions = machine.handle(.submit(code: text, at: at))
                flow = .manual(machine)
                Task { await self.perform(actions) }
            } else {
                var machine = ScanDesktopPairingMachine(phone: options.phone)
                let actions = machine.handle(.scanned(text: Array(text.utf8), at: at))
                if case .sending(let sending) = machine.state { target = sending.qr.pcPeerId }
                flow = .scan(machine)
                Task { await self.perform(actions) }
            }
        }
    }

    /// Flow A: shows a `device-pairing` QR (its code drawn from `random`, CSPRNG bytes at the
    /// edge) through `show` once the DID is registered, and waits for the desktop's confirmation.
    public func display(random: [UInt8], show: @escaping @Sendable (String) async -> Void) async -> PairingOutcome {
        var source = ScriptedBytes(random)
        guard let code = PairingCode.draw(from: &source) else { return PairingOutcome(state: "failed (no random bytes)", succeeded: false) }
        forgetLastPairing()
        return await withCheckedContinuation { continuation in
            finished = continuation
            var machine = DesktopPairingMachine(phone: options.phone)
            let actions = machine.handle(.start(at: options.now(), code: code))
            flow = .display(machine)
            Task {
                await self.perform(actions)
                let deadline = ContinuousClock.now + .seconds(5)
                let did = self.options.phone.activeDid ?? ""
                while !self.answered.contains(ByteString(did)), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
                if case .display(let m) = self.flow, case .displaying(_, let payloadJson, _) = m.state { await show(payloadJson) }
            }
        }
    }

    /// Each pairing starts from nothing: a manual flow persists no record, and must not report the
    /// one an earlier Flow B stored.
    private func forgetLastPairing() {
        (stored, target, lastURL, confirmedBy) = (nil, nil, nil, nil)
    }

    /// Gives up the flow under way: it ends `cancelled`.
    public func cancel() async {
        guard let finished else { return }
        self.finished = nil
        timer.cancel()
        for client in clients.values { await client.stop() }
        clients = [:]
        finished.resume(returning: PairingOutcome(state: "cancelled", succeeded: false))
    }

    private func handleDisplay(_ event: DesktopPairingMachine.Event) async {
        guard case .display(var machine) = flow else { return }
        let actions = machine.handle(event)
        flow = .display(machine)
        await perform(actions)
    }

    private func handleScan(_ event: ScanDesktopPairingMachine.Event) async {
        guard case .scan(var machine) = flow else { return }
        let actions = machine.handle(event)
        flow = .scan(machine)
        await perform(actions)
    }

    private func handleManual(_ event: ManualPairingMachine.Event) async {
        guard case .manual(var machine) = flow else { return }
        let actions = machine.handle(event)
        flow = .manual(machine)
        await perform(actions)
    }

    private func perform(_ actions: [PairingAction]) async {
        for action in actions {
            switch action {
            case .register(let url, let peerId):
                lastURL = url
                await client(url).register(peerId, target: target)
            case .send(let url, let message):
                lastURL = url
                let client = client(url)
                let text = JSONSerializer.compact(message.canonical)
                Task {
                    let sent = await client.send(text)
                    await self.sendResult(sent)
                }
            case .reset:
                for client in clients.values { await client.stop() }
                clients = [:]
            case .persist(let record):
                stored = JSONSerializer.compact(record.canonical)
            case .drop(let reason):
                options.report(reason)
                options.log(reason.logLine)
            case .release:
                break
            }
        }
        timer.set(nextDeadline, now: options.now()) { await self.tick() }
        await finishIfDone()
    }

    private func sendResult(_ sent: Bool) async {
        let at = options.now()
        switch flow {
        case .scan: await handleScan(sent ? .sendSucceeded(at: at) : .sendFailed(at: at))
        case .manual: await handleManual(sent ? .sendSucceeded(at: at) : .sendFailed(at: at))
        case .display: break
        }
    }

    /// When the flow under way next needs the time (Flow B needs none).
    private var nextDeadline: EpochMillis? {
        switch flow {
        case .manual(let m): m.nextDeadline
        case .display(let m): m.nextDeadline
        case .scan: nil
        }
    }

    private func tick() async {
        let at = options.now()
        switch flow {
        case .manual: await handleManual(.tick(at: at))
        case .display: await handleDisplay(.tick(at: at))
        case .scan: break
        }
    }

    /// A frame from a relay: a confirmation inside a `message`, or `peer-offline`.
    private func frame(_ text: String) async {
        guard let value = try? JSONParser.parse(Array(text.utf8), limits: pairingLimits) else { return }
        let at = options.now()
        let frame = PairingFrame(value)
        switch frame.documentKind {
        case .registered?:
            if let id = value["peerId"]?.stringValue { answered.insert(ByteString(id)) }
        case .message? where negotiation != nil:
            await negotiate(.signal(document: value, at: at))
        case .peerOffline? where negotiation != nil:
            await negotiate(.peerOffline(peerId: value["peerId"]?.stringValue ?? "", at: at))
        case .message?:
            if let payload = value["payload"], frame.payloadKind == .pairingConfirmation {
                confirmedBy = payload["pcPeerId"]?.stringValue
                if case .display = flow {
                    await handleDisplay(.confirmation(document: payload, at: at))
                } else {
                    await handleManual(.confirmation(document: payload, at: at))
                }
            }
        case .peerOffline?:
            await handleManual(.peerOffline(at: at))
        case .desktopPairing?, .pairAck?, .devicePairing?, .pairingConfirmation?, .register?, .relayError?, .pairedDesktop?, .ping?, .pong?, .peerStatus?, nil:
            // Not for the phone's flow: the relay's errors and keepalives are the client's, and a
            // kind a client does not act on is one it ignores (PAIR-RELAY-002: a relay's extensions
            // and presence broadcasts included), so a kind the table gains needs nothing here.
            break
        }
    }

    private func client(_ url: String) -> SignalingClient {
        if let client = clients[url] { return client }
        let client = SignalingClient(
            url: url, policy: options.policy, trust: options.trust, faults: options.faults, now: options.now, log: options.log,
            onFrame: { [weak self] text in await self?.frame(text) })
        clients[url] = client
        return client
    }

    private func finishIfDone() async {
        let outcome: PairingOutcome
        switch flow {
        case .scan(let m):
            switch m.state {
            case .success(let name): outcome = PairingOutcome(state: "success (\(name))", succeeded: true, stored: stored)
            case .failed(let reason): outcome = PairingOutcome(state: Self.failed(reason), succeeded: false)
            default: return
            }
        case .manual(let m):
            switch m.state {
            case .success(let name): outcome = PairingOutcome(state: "success (\(name))", succeeded: true, stored: stored)
            case .failed(let reason): outcome = PairingOutcome(state: Self.failed(reason), succeeded: false)
            default: return
            }
        case .display(let m):
            switch m.state {
            case .completed: outcome = PairingOutcome(state: "completed", succeeded: true)
            case .expired: outcome = PairingOutcome(state: "expired", succeeded: false)
            case .failed(let reason): outcome = PairingOutcome(state: Self.failed(reason), succeeded: false)
            default: return
            }
        }
        timer.cancel()
        // Paired already, and the exchange is under way or over: nothing more to finish.
        guard finished != nil, negotiation == nil else { return }
        if outcome.succeeded, let timeout = options.webrtcTimeout, await offer(outcome, timeout: timeout) { return }
        await end(outcome)
    }

    func end(_ outcome: PairingOutcome) async {
        for client in clients.values { await client.stop() }
        clients = [:]
        finished?.resume(returning: outcome)
        finished = nil
    }

    // MARK: the WebRTC exchange after pairing (4.6)

    /// Starts the exchange as the offerer, on the connection that paired; false when the
    /// desktop's id or the phone's own is not known.
    private func offer(_ paired: PairingOutcome, timeout: EpochMillis) async -> Bool {
        let desktop: String?
        if case .scan = flow { desktop = target } else { desktop = confirmedBy }
        guard let desktop, let url = lastURL, let did = options.phone.activeDid else { return false }
        var machine = WebRTCNegotiationMachine(localPeerId: did, timeout: timeout)
        let actions = machine.handle(.start(role: .offerer, peerId: desktop, url: url, local: Negotiation.local(for: did), at: options.now()))
        negotiation = Negotiation(machine: machine, paired: paired)
        await performNegotiation(actions)
        return true
    }


    static func failed(_ reason: FailureReason) -> String {
        "failed (\(reason.rule) at \(reason.path.description.isEmpty ? "/" : reason.path.description): \(reason.detail))"
    }
}

extension PhonePeer: NegotiatingPeer {
    var signalReport: @Sendable (FailureReason) -> Void { options.reportSignal ?? options.report }
    var signalLog: @Sendable (String) -> Void { options.log }
    var clock: @Sendable () -> EpochMillis { options.now }
    func sendSignal(_ text: String, url: String) async { _ = await client(url).send(text) }
}
