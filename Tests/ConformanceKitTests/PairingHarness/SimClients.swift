import Pairing
import WireCore

/// What a client in the harness does wrong on purpose: one fault a session, each with the
/// verdict the judge owes it (`PairingSimTests.expected`).
enum SimFault: String, CaseIterable, Sendable {
    case none
    /// The desktop never answers the phone's WebRTC offer (PAIR-RTC-006).
    case desktopIgnoresOffer
    /// Flow B from a QR whose code the desktop no longer shows; the desktop drops the ack.
    case staleQR
    /// The same, and the desktop confirms the ack anyway (PAIR-DESK-003).
    case desktopConfirmsStaleCode
    /// After the relay restarts, the desktop registers its own id again but not its alias (PAIR-CONN-001).
    case desktopForgetsAlias
    /// A typed code's ack reaches the desktop, which never confirms (PAIR-DESK-002).
    case desktopNeverConfirms
    /// The same, but the phone gives up after 20 s (iOS waits 60 s): nobody's violation.
    case phoneGivesUp
    /// The phone registers the code's alias as well as its DID (the echo-loop trap, PAIR-SIG-001).
    case phoneRegistersAlias
    /// A relay that is someone else's never delivers the pair-ack (PAIR-RELAY-001; forwarding only).
    case relayDropsAck
    /// The phone pings every 60 s, past the Spec's 30 s (PAIR-CONN-003), on every connection.
    case phoneSkipsKeepalive
    /// The phone sends its offer as a frame of its own, not a message's payload (PAIR-RTC-005).
    case phoneBareOffer
    /// A relay that is someone else's announces every registration to every other client,
    /// aliases included (PAIR-SEC-006; forwarding only).
    case relayAnnouncesAlias

    /// A fault of the relay: only a relay that is someone else's (forwarding) can have it.
    var isRelays: Bool { self == .relayDropsAck || self == .relayAnnouncesAlias }
}

enum SimIdentity {
    static let relayURL = "wss://relay.example"
    static let phoneDid = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
    static let desktopId = "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi"
    static let phone = PhoneContext(
        activeDid: phoneDid, device: MobileDeviceInfo(deviceId: "6f1c2b7e-3d4a-4e5f-9a8b-0c1d2e3f4a5b", name: "Sim Phone", platform: "android"),
        signalingUrl: relayURL)
    static let desktopDevice = DesktopDeviceInfo(name: "Sim Desktop", platform: "linux", version: "1.0.0")
    static let desktop = DesktopContext(pcPeerId: desktopId, device: desktopDevice, relayUrl: relayURL)
    static func local(_ n: Int) -> WebRTCNegotiationMachine.Local {
        .init(sdp: "v=0\r\no=- \(n) 2 IN IP4 127.0.0.1\r\n", candidates: ["candidate:\(n) 1 udp 2122260223 192.168.1.\(n) 54321 typ host"])
    }
}

/// The phone: Flow B from a scanned QR, the manual flow from a typed code, or Flow A showing its
/// own QR, then the offerer's side of the WebRTC exchange; each step the Spec's machine.
struct SimPhone {
    enum Flow {
        case scan(ScanDesktopPairingMachine)
        case manual(ManualPairingMachine)
        case display(DesktopPairingMachine)
    }

    var flow: Flow
    var offerer: WebRTCNegotiationMachine?
    let exchange: Bool
    let fault: SimFault
    /// The desktop that paired with it: where its offer goes.
    var desktopId: String?

    init(flow: SimFlow, exchange: Bool, fault: SimFault) {
        let wait: EpochMillis = fault == .phoneGivesUp ? 20_000 : PairingTimeouts.validity
        switch flow {
        case .flowB: self.flow = .scan(ScanDesktopPairingMachine(phone: SimIdentity.phone))
        case .manual: self.flow = .manual(ManualPairingMachine(phone: SimIdentity.phone, confirmationWait: wait))
        case .flowA, .flowAOffRelay: self.flow = .display(DesktopPairingMachine(phone: SimIdentity.phone))
        }
        self.exchange = exchange
        self.fault = fault
    }

    /// The user types the code, scans the QR text, or (Flow A) shows the phone's own QR with
    /// `input` as its code.
    mutating func start(_ input: String, at: EpochMillis) -> [PairingAction] {
        switch flow {
        case .display(var m):
            let actions = m.handle(.start(at: at, code: input))
            flow = .display(m)
            return actions
        case .manual(var m):
            var actions = m.handle(.submit(code: input, at: at))
            flow = .manual(m)
            if fault == .phoneRegistersAlias { actions.insert(.register(url: SimIdentity.relayURL, peerId: PeerID.alias(forCode: input)), at: 1) }
            return actions
        case .scan(var m):
            let actions = m.handle(.scanned(text: Array(input.utf8), at: at))
            if case .sending(let sending) = m.state { desktopId = sending.qr.pcPeerId }
            flow = .scan(m)
            return actions
        }
    }

    /// The ack left on the socket.
    mutating func sent(at: EpochMillis) -> [PairingAction] {
        switch flow {
        case .manual(var m):
            let actions = m.handle(.sendSucceeded(at: at))
            flow = .manual(m)
            return actions
        case .scan(var m):
            let actions = m.handle(.sendSucceeded(at: at)).filter { if case .persist = $0 { return false } else { return true } }
            flow = .scan(m)
            return actions + paired(at: at)
        case .display:
            return []
        }
    }

    /// The QR text the phone shows (Flow A).
    var qrText: String? {
        if case .display(let m) = flow, case .displaying(_, let json, _) = m.state { return json }
        return nil
    }

    mutating func received(_ document: JSONValue, at: EpochMillis) -> [PairingAction] {
        let frame = PairingFrame(document)
        switch frame.kind {
        case .document(.message):
            if case .signal? = frame.payload {
                guard var o = offerer else { return [] }
                let actions = o.handle(.signal(document: document, at: at))
                offerer = o
                return actions
            }
            guard frame.payloadKind == .pairingConfirmation else { return [] }
            return confirmed(document["payload"] ?? .null, at: at)
        case .document(.peerOffline):
            guard case .manual(var m) = flow else { return [] }
            let actions = m.handle(.peerOffline(at: at))
            flow = .manual(m)
            return actions
        case .document, .bareSignal, .other:
            return []
        }
    }

    /// A confirmation, from the relay or (Flow A off the relay) the desktop's LAN socket.
    mutating func confirmed(_ payload: JSONValue, at: EpochMillis) -> [PairingAction] {
        var actions: [PairingAction]
        var done = false
        switch flow {
        case .manual(var m):
            actions = m.handle(.confirmation(document: payload, at: at))
            flow = .manual(m)
            if case .success = m.state { done = true }
        case .display(var m):
            actions = m.handle(.confirmation(document: payload, at: at))
            flow = .display(m)
            if case .completed = m.state { done = true }
        case .scan:
            return []
        }
        guard done, offerer == nil else { return actions }
        desktopId = payload["pcPeerId"]?.stringValue
        return actions + paired(at: at)
    }

    mutating func tick(at: EpochMillis) -> [PairingAction] {
        var actions: [PairingAction] = []
        switch flow {
        case .manual(var m):
            actions += m.handle(.tick(at: at))
            flow = .manual(m)
        case .display(var m):
            actions += m.handle(.tick(at: at))
            flow = .display(m)
        case .scan:
            break
        }
        if var o = offerer {
            actions += o.handle(.tick(at: at))
            offerer = o
        }
        return actions
    }

    var nextDeadline: EpochMillis? {
        let flowDeadline: EpochMillis? =
            switch flow {
            case .manual(let m): m.nextDeadline
            case .display(let m): m.nextDeadline
            case .scan: nil
            }
        return [flowDeadline, offerer?.nextDeadline].compactMap { $0 }.min()
    }

    /// The flow failed: the phone leaves the relay.
    var failed: Bool {
        switch flow {
        case .manual(let m): if case .failed = m.state { return true }
        case .scan(let m): if case .failed = m.state { return true }
        case .display(let m):
            switch m.state {
            case .failed, .expired: return true
            case .idle, .displaying, .completed: break
            }
        }
        return false
    }

    /// Paired: it offers to the desktop (Spec pairing.md 4.6).
    private mutating func paired(at: EpochMillis) -> [PairingAction] {
        guard exchange, offerer == nil, let desktopId else { return [] }
        var o = WebRTCNegotiationMachine(localPeerId: SimIdentity.phoneDid)
        let actions = o.handle(.start(role: .offerer, peerId: desktopId, url: SimIdentity.relayURL, local: SimIdentity.local(2), at: at))
        offerer = o
        return actions
    }
}

/// The desktop: the mobile bridge showing a code, and the answerer's side of the exchange.
struct SimDesktop {
    var bridge = MobileBridgeMachine(desktop: SimIdentity.desktop)
    var answerer: WebRTCNegotiationMachine?
    let fault: SimFault

    init(fault: SimFault) { self.fault = fault }

    mutating func start(code: String, at: EpochMillis) -> [PairingAction] {
        bridge.handle(.start(at: at, code: code))
    }

    /// Flow A: the desktop scans the phone's QR and confirms.
    mutating func scan(_ text: String, at: EpochMillis) -> [PairingAction] {
        bridge.handle(.scanned(text: Array(text.utf8), at: at))
    }

    /// The QR text the desktop shows now.
    var qrText: String? {
        if case .showing(_, let json, _) = bridge.state { return json }
        return nil
    }

    mutating func received(_ document: JSONValue, at: EpochMillis) -> [PairingAction] {
        let frame = PairingFrame(document)
        guard frame.kind == .document(.message) else { return [] }
        if case .signal(let signal)? = frame.payload {
            if answerer == nil, signal == .offer, fault != .desktopIgnoresOffer, case .paired(_, let did) = bridge.state,
                document["from"]?.stringValue.map({ $0.bytesEqual(did) }) == true
            {
                var a = WebRTCNegotiationMachine(localPeerId: SimIdentity.desktopId)
                _ = a.handle(.start(role: .answerer, peerId: did, url: SimIdentity.relayURL, local: SimIdentity.local(3), at: at))
                answerer = a
            }
            guard var a = answerer else { return [] }
            let actions = a.handle(.signal(document: document, at: at))
            answerer = a
            return actions
        }
        var actions = bridge.handle(.message(document: document, at: at))
        if fault == .desktopNeverConfirms || fault == .phoneGivesUp {
            actions.removeAll { if case .send = $0 { return true } else { return false } }
        }
        if fault == .desktopConfirmsStaleCode, actions.contains(where: { if case .drop = $0 { return true } else { return false } }),
            let ack = document["payload"], let code = ack["pairingCode"]?.stringValue, let did = ack["mobileDid"]?.stringValue
        {
            let confirmation = PairingConfirmation(pairingCode: code, pcPeerId: SimIdentity.desktopId, deviceInfo: SimIdentity.desktopDevice, timestamp: at)
            actions.append(.send(url: SimIdentity.relayURL, message: SignalMessage(to: did, payload: .pairingConfirmation(confirmation))))
        }
        return actions
    }

    mutating func tick(at: EpochMillis) -> [PairingAction] {
        var actions = bridge.handle(.tick(at: at))
        if var a = answerer {
            actions += a.handle(.tick(at: at))
            answerer = a
        }
        return actions
    }

    var nextDeadline: EpochMillis? {
        [bridge.nextDeadline, answerer?.nextDeadline].compactMap { $0 }.min()
    }
}
