import WireCore

/// What the desktop running the mobile bridge knows about itself (seed 002 §4.1, §6.5).
public struct DesktopContext: Sendable, Hashable {
    /// `mobileBridge.peerId`: the desktop's own id on the relay, shown in the QR as `pcPeerId`.
    public var pcPeerId: String
    public var device: DesktopDeviceInfo
    /// The relay the desktop is registered on, and the QR's `relayUrl`.
    public var relayUrl: String
    /// The desktop's own LAN signaling server, when it runs one (the QR's `signalingUrl`).
    public var signalingUrl: String?

    public init(pcPeerId: String, device: DesktopDeviceInfo, relayUrl: String, signalingUrl: String? = nil) {
        self.pcPeerId = pcPeerId
        self.device = device
        self.relayUrl = relayUrl
        self.signalingUrl = signalingUrl
    }

    /// The confirmation for `code`, routed to the phone's DID (§4.4).
    func confirmation(code: String, to did: String, at time: EpochMillis) -> SignalMessage {
        SignalMessage(to: did, payload: .pairingConfirmation(PairingConfirmation(pairingCode: code, pcPeerId: pcPeerId, deviceInfo: device, timestamp: time)))
    }
}

/// The desktop's side (`mobile-bridge.js`, seed 002 §4.1, §6.5; Spec pairing.md 4.5): it shows a
/// code as a QR and as six digits, takes the phone's `pair-ack` on its own id or on the code's
/// alias, and confirms; or it scans the phone's QR (Flow A) and confirms.
/// `idle → showing(code, qr, expiresAt) → paired(deviceName) | expired | failed(reason)`.
public struct MobileBridgeMachine: TimedMachine {
    public enum State: Sendable, Hashable {
        case idle
        case showing(qr: DesktopPairing, qrJson: String, expiresAt: EpochMillis)
        case paired(deviceName: String, mobileDid: String)
        case expired
        case failed(FailureReason)
    }

    public enum Event: Sendable, Hashable {
        /// `code` comes from `PairingCode.draw` over CSPRNG bytes at the edge.
        case start(at: EpochMillis, code: String)
        /// A signaling `message` the relay delivered to one of the desktop's ids.
        case message(document: JSONValue, at: EpochMillis)
        /// Flow A: the text of the phone's QR.
        case scanned(text: [UInt8], at: EpochMillis)
        case tick(at: EpochMillis)
        case retry

        var time: EpochMillis? {
            switch self {
            case .start(let at, _), .message(_, let at), .scanned(_, let at), .tick(let at): return at
            case .retry: return nil
            }
        }
    }

    public private(set) var state: State = .idle
    public let desktop: DesktopContext
    /// How long a code is valid, inclusive: the seed's 5 minutes; shorter only in test builds.
    public let validity: EpochMillis

    public init(desktop: DesktopContext, validity: EpochMillis = PairingTimeouts.validity) {
        self.desktop = desktop
        self.validity = validity
    }

    /// PAIR-DESK-001: the first instant past the code's validity.
    public var nextDeadline: EpochMillis? {
        guard case .showing(_, _, let expiresAt) = state else { return nil }
        return expiresAt + 1
    }

    public static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    public mutating func step(_ event: Event) -> Step<PairingAction> {
        // A code is valid for 300,000 ms inclusive; timers are late, so every event checks first.
        if case .showing(let qr, _, let expiresAt) = state, let at = event.time, at > expiresAt {
            state = .expired
            var actions: [PairingAction] = [.release(url: desktop.relayUrl, peerId: PeerID.alias(forCode: qr.code))]
            if case .message = event { actions.append(.drop(refusal(path: .root, "a pair-ack after the code expired"))) }
            return Step(actions)
        }
        switch (state, event) {
        case (.idle, .start(let at, let code)):
            return Step(start(code: code, at: at))
        case (.idle, .scanned(let text, let at)):
            return Step(scanned(text, at: at))
        case (.showing(let qr, _, _), .message(let document, let at)):
            return received(document, showing: qr, at: at)
        case (.failed, .retry), (.expired, .retry):
            state = .idle
            return []
        // Ignored (4): a message or a tick with no code shown, a second start or a scan while one
        // is shown, a tick before the expiry (checked above), a retry before the session ended,
        // and everything after it ended.
        case (.idle, .message), (.idle, .tick), (.idle, .retry):
            return .ignored("no code shown")
        case (.showing, .start), (.showing, .scanned), (.showing, .tick), (.showing, .retry):
            return .ignored("a code is shown")
        case (.paired, .start), (.paired, .message), (.paired, .scanned), (.paired, .tick), (.paired, .retry),
            (.expired, .start), (.expired, .message), (.expired, .scanned), (.expired, .tick),
            (.failed, .start), (.failed, .message), (.failed, .scanned), (.failed, .tick):
            return .ignored("the session has ended")
        }
    }

    private func refusal(path: JSONPointer, _ detail: String) -> FailureReason {
        FailureReason(rule: PairingRule.desktopRefuses, path: path, detail: detail)
    }

    private mutating func start(code: String, at time: EpochMillis) -> [PairingAction] {
        let qr = DesktopPairing(
            code: code, pcPeerId: desktop.pcPeerId, deviceInfo: desktop.device, timestamp: time, signalingUrl: desktop.signalingUrl,
            relayUrl: desktop.relayUrl, iceServers: nil, iceServersJson: nil, iceExpiry: nil)
        let expiresAt = time + validity
        state = .showing(qr: qr, qrJson: JSONSerializer.canonical(qr.canonical), expiresAt: expiresAt)
        // Its own id for the QR's acks, the alias for typed codes (§6.5), on the relay it names.
        return [
            .register(url: desktop.relayUrl, peerId: desktop.pcPeerId),
            .register(url: desktop.relayUrl, peerId: PeerID.alias(forCode: code)),
        ]
    }

    private mutating func received(_ document: JSONValue, showing qr: DesktopPairing, at time: EpochMillis) -> Step<PairingAction> {
        let message: SignalMessage
        do throws(Violation) {
            message = try SignalMessage.decode(document, context: PairingContext(now: time))
        } catch {
            return [.drop(FailureReason(error))]
        }
        guard case .pairAck(let ack) = message.payload else {
            // Other messages share the relay (an ICE push, an app's own): not for this flow.
            return .ignored("not a pair-ack")
        }
        guard ack.pairingCode == qr.code else {
            // Dropped silently, and the code stays on screen: a wrong guess must not end the session.
            return [.drop(refusal(path: .root / "payload" / "pairingCode", "a pair-ack for code \(ack.pairingCode), showing \(qr.code)"))]
        }
        state = .paired(deviceName: ack.deviceInfo.name, mobileDid: ack.mobileDid)
        let alias = PeerID.alias(forCode: qr.code)
        var actions: [PairingAction] = [.release(url: desktop.relayUrl, peerId: alias)]
        // PAIR-DESK-002: a typed code's phone waits for the confirmation (PAIR-MAN-003); a
        // scanning phone has already succeeded (Flow B, §1: the confirmation is Flow A's and the
        // manual flow's). Without `to` (the deployed relay's deliveries) the two cannot be told
        // apart: confirm. Peer ids compare byte for byte (PAIR-PEER-001).
        if message.to.map({ $0.bytesEqual(alias) }) ?? true {
            actions.append(.send(url: desktop.relayUrl, message: desktop.confirmation(code: qr.code, to: ack.mobileDid, at: time)))
        }
        return Step(actions)
    }

    private mutating func scanned(_ text: [UInt8], at time: EpochMillis) -> [PairingAction] {
        let payload: DevicePairing
        do throws(Violation) {
            payload = try DevicePairing.decode(JSONParser.parse(text, limits: pairingLimits), context: PairingContext(now: time))
        } catch {
            state = .failed(FailureReason(error))
            return []
        }
        state = .paired(deviceName: payload.deviceInfo.name, mobileDid: payload.did)
        return [
            .register(url: desktop.relayUrl, peerId: desktop.pcPeerId),
            .send(url: desktop.relayUrl, message: desktop.confirmation(code: payload.code, to: payload.did, at: time)),
        ]
    }
}
