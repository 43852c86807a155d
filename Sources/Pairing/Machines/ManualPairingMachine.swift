import WireCore

/// The manual flow (§7.3, §6.5): the user types the desktop's code; the ack goes to the
/// relay alias `pairing-code:<code>`. `entering → submitting(code) → success(desktopName) | failed(reason)`.
public struct ManualPairingMachine: TimedMachine {
    public enum State: Sendable, Hashable {
        case entering
        case submitting(code: String, submittedAt: EpochMillis)
        case success(desktopName: String)
        case failed(FailureReason)
    }

    public enum Event: Sendable, Hashable {
        case submit(code: String, at: EpochMillis)
        case sendSucceeded(at: EpochMillis)
        case sendFailed(at: EpochMillis)
        case peerOffline(at: EpochMillis)
        case confirmation(document: JSONValue, at: EpochMillis)
        case tick(at: EpochMillis)
        case retry

        var time: EpochMillis? {
            switch self {
            case .submit(_, let at), .sendSucceeded(let at), .sendFailed(let at), .peerOffline(let at), .confirmation(_, let at), .tick(let at):
                return at
            case .retry: return nil
            }
        }
    }

    public private(set) var state: State = .entering
    public let phone: PhoneContext

    /// How long a submitted code waits for its confirmation: at most the desktop's 5 minutes
    /// (PAIR-MAN-003); a phone may wait less (the real iOS app waits 60 s).
    public let confirmationWait: EpochMillis

    public init(phone: PhoneContext, confirmationWait: EpochMillis = PairingTimeouts.validity) {
        self.confirmationWait = min(max(confirmationWait, 1), PairingTimeouts.validity)
        self.phone = phone
    }

    /// PAIR-MAN-003: the first instant past the confirmation wait.
    public var nextDeadline: EpochMillis? {
        guard case .submitting(_, let submittedAt) = state else { return nil }
        return submittedAt + confirmationWait + 1
    }

    public static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    public mutating func step(_ event: Event) -> Step<PairingAction> {
        // PAIR-MAN-003: past the deadline every event finds a timed-out flow.
        if case .submitting(_, let submittedAt) = state, let at = event.time, at - submittedAt > confirmationWait {
            state = .failed(timedOut)
            if case .confirmation = event { return [.drop(timedOut)] }
            return []
        }
        switch (state, event) {
        case (.entering, .submit(let code, let at)):
            return Step(submit(code: code, at: at))
        case (.submitting, .sendFailed):
            state = .failed(FailureReason(rule: PairingRule.manualSendFailed, detail: "the ack could not be sent"))
            return []
        case (.submitting, .peerOffline):
            state = .failed(
                FailureReason(rule: PairingRule.manualPeerOffline, detail: "the desktop has not enabled manual codes; scan its QR instead"))
            return []
        case (.submitting(let code, _), .confirmation(let document, let at)):
            switch acceptConfirmation(document, code: code, at: at) {
            case .failure(let reason):
                return [.drop(reason)]
            case .success(let confirmation):
                state = .success(desktopName: confirmation.deviceInfo.name)
                return []
            }
        case (.failed, .retry):
            state = .entering
            return []
        // Ignored (4): nothing was submitted yet, a second submit or a retry while one waits, a
        // send success or a tick before the deadline, and everything after the flow ended.
        case (.entering, .sendSucceeded), (.entering, .sendFailed), (.entering, .peerOffline), (.entering, .confirmation),
            (.entering, .tick), (.entering, .retry):
            return .ignored("no code submitted yet")
        case (.submitting, .submit), (.submitting, .sendSucceeded), (.submitting, .tick), (.submitting, .retry):
            return .ignored("a code is waiting for its confirmation")
        case (.success, .submit), (.success, .sendSucceeded), (.success, .sendFailed), (.success, .peerOffline), (.success, .confirmation),
            (.success, .tick), (.success, .retry),
            (.failed, .submit), (.failed, .sendSucceeded), (.failed, .sendFailed), (.failed, .peerOffline), (.failed, .confirmation),
            (.failed, .tick):
            return .ignored("the flow has ended")
        }
    }

    private var timedOut: FailureReason {
        FailureReason(rule: PairingRule.manualTimeout, detail: "no confirmation within \(confirmationWait) ms")
    }

    private mutating func submit(code: String, at time: EpochMillis) -> [PairingAction] {
        guard let did = phone.activeDid else {
            state = .failed(phone.missingDID)
            return []
        }
        guard PairingCode.isValid(code) else {
            state = .failed(FailureReason(rule: PairingRule.code, path: .root / "code", detail: "not six ASCII digits"))
            return []
        }
        guard let url = phone.signalingUrl else {
            state = .failed(FailureReason(rule: PairingRule.manualSendFailed, detail: "no signaling server configured"))
            return []
        }
        let message = phone.ackMessage(code: code, to: PeerID.alias(forCode: code), did: did, at: time)
        state = .submitting(code: code, submittedAt: time)
        return [.register(url: url, peerId: did), .send(url: url, message: message)]
    }
}
