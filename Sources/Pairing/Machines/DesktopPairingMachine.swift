import WireCore

/// Flow A (§7.2): the phone shows a `device-pairing` QR and waits for the desktop's confirmation.
/// `idle → displaying(payload, payloadJson, expiresAt) → completed | expired | failed(reason)`.
public struct DesktopPairingMachine: Sendable {
    public enum State: Sendable, Hashable {
        case idle
        case displaying(payload: DevicePairing, payloadJson: String, expiresAt: EpochMillis)
        case completed
        case expired
        case failed(FailureReason)
    }

    public enum Event: Sendable, Hashable {
        /// `code` comes from `PairingCode.draw` over CSPRNG bytes at the edge.
        case start(at: EpochMillis, code: String)
        case confirmation(document: JSONValue, at: EpochMillis)
        case tick(at: EpochMillis)
        case signalingFailed(at: EpochMillis)
        case retry
    }

    public private(set) var state: State = .idle
    public let phone: PhoneContext

    public init(phone: PhoneContext) {
        self.phone = phone
    }

    public mutating func handle(_ event: Event) -> [PairingAction] {
        switch (state, event) {
        case (.idle, .start(let at, let code)):
            return start(code: code, at: at)
        case (.displaying(_, _, let expiresAt), .tick(let at)) where at > expiresAt:
            state = .expired
            return []
        case (.displaying(let payload, _, let expiresAt), .confirmation(let document, let at)):
            if at > expiresAt {
                state = .expired
                return [.drop(FailureReason(rule: PairingRule.displayExpiry, detail: "confirmation after the code expired"))]
            }
            switch acceptConfirmation(document, code: payload.code, at: at) {
            case .failure(let reason):
                return [.drop(reason)]
            case .success:
                state = .completed
                return [.cancelTimer]
            }
        case (.displaying, .signalingFailed):
            state = .failed(FailureReason(rule: PairingRule.signalingLost, detail: "signaling connection lost while displaying"))
            return [.cancelTimer]
        case (.failed, .retry), (.expired, .retry), (.completed, .retry):
            state = .idle
            return []
        default:
            return []
        }
    }

    private mutating func start(code: String, at time: EpochMillis) -> [PairingAction] {
        guard let did = phone.activeDid else {
            state = .failed(phone.missingDID)
            return []
        }
        guard let url = phone.signalingUrl else {
            state = .failed(FailureReason(rule: PairingRule.signalingLost, detail: "no signaling server configured"))
            return []
        }
        let payload = DevicePairing(code: code, did: did, deviceInfo: phone.device, timestamp: time)
        let expiresAt = time + PairingTimeouts.validity
        state = .displaying(payload: payload, payloadJson: JSONSerializer.canonical(payload.canonical), expiresAt: expiresAt)
        // The confirmation is routed to our DID (§4.4), so register it; never the desktop's id.
        return [.register(url: url, peerId: did), .setTimer(at: expiresAt + 1)]
    }
}
