import WireCore

/// Flow A (§7.2): the phone shows a `device-pairing` QR and waits for the desktop's confirmation.
/// `idle → displaying(payload, payloadJson, expiresAt) → completed | expired | failed(reason)`.
public struct DesktopPairingMachine: TimedMachine {
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

        var time: EpochMillis? {
            switch self {
            case .start(let at, _), .confirmation(_, let at), .tick(let at), .signalingFailed(let at): return at
            case .retry: return nil
            }
        }
    }

    public private(set) var state: State = .idle
    public let phone: PhoneContext

    public init(phone: PhoneContext) {
        self.phone = phone
    }

    /// PAIR-FLOWA-002: the first instant past the code's validity.
    public var nextDeadline: EpochMillis? {
        guard case .displaying(_, _, let expiresAt) = state else { return nil }
        return expiresAt + 1
    }

    public static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    public mutating func step(_ event: Event) -> Step<PairingAction> {
        // PAIR-FLOWA-002: timers are late, so every event first checks the time.
        if case .displaying(_, _, let expiresAt) = state, let at = event.time, at > expiresAt {
            state = .expired
            if case .confirmation = event {
                return [.drop(FailureReason(rule: PairingRule.displayExpiry, detail: "confirmation after the code expired"))]
            }
            return []
        }
        switch (state, event) {
        case (.idle, .start(let at, let code)):
            return Step(start(code: code, at: at))
        case (.displaying(let payload, _, _), .confirmation(let document, let at)):
            switch acceptConfirmation(document, code: payload.code, at: at) {
            case .failure(let reason):
                return [.drop(reason)]
            case .success:
                state = .completed
                return []
            }
        case (.displaying, .signalingFailed):
            state = .failed(FailureReason(rule: PairingRule.signalingLost, detail: "signaling connection lost while displaying"))
            return []
        case (.failed, .retry), (.expired, .retry):
            state = .idle
            return []
        // Ignored (4): nothing shown yet, a second start, a tick before the expiry (checked above)
        // or a retry while the code is shown, and everything after the flow ended.
        case (.idle, .confirmation), (.idle, .tick), (.idle, .signalingFailed), (.idle, .retry):
            return .ignored("no code shown yet")
        case (.displaying, .start), (.displaying, .tick), (.displaying, .retry):
            return .ignored("the code is shown")
        case (.completed, .start), (.completed, .confirmation), (.completed, .tick), (.completed, .signalingFailed), (.completed, .retry),
            (.expired, .start), (.expired, .confirmation), (.expired, .tick), (.expired, .signalingFailed),
            (.failed, .start), (.failed, .confirmation), (.failed, .tick), (.failed, .signalingFailed):
            return .ignored("the flow has ended")
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
        return [.register(url: url, peerId: did)]
    }
}
