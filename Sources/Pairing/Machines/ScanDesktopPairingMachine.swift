import WireCore

/// Flow B (§7.1): the phone scans the desktop's QR and sends its `pair-ack`.
/// `scanning → sending(desktopName) → success(desktopName) | failed(reason)`.
public struct ScanDesktopPairingMachine: Machine {
    public enum State: Sendable, Hashable {
        case scanning
        case sending(Sending)
        case success(desktopName: String)
        case failed(FailureReason)
    }

    /// A send in flight: what was scanned, what is sent, and whether this is the relay attempt.
    public struct Sending: Sendable, Hashable {
        public var desktopName: String { qr.deviceInfo.name }
        public let qr: DesktopPairing
        public let message: SignalMessage
        public let onRelay: Bool
    }

    public enum Event: Sendable, Hashable {
        case scanned(text: [UInt8], at: EpochMillis)
        case sendSucceeded(at: EpochMillis)
        case sendFailed(at: EpochMillis)
        case retry
    }

    public private(set) var state: State = .scanning
    public let phone: PhoneContext

    public init(phone: PhoneContext) {
        self.phone = phone
    }

    public mutating func step(_ event: Event) -> Step<PairingAction> {
        switch (state, event) {
        case (.scanning, .scanned(let text, let at)):
            return Step(scanned(text, at: at))
        case (.sending(let sending), .sendSucceeded(let at)):
            state = .success(desktopName: sending.desktopName)
            return [.persist(PairedDesktop(pairedWith: sending.qr, at: at))]
        case (.sending(let sending), .sendFailed):
            // PAIR-FLOWB-001: one retry on the relay after a LAN failure, never a third attempt.
            guard !sending.onRelay else {
                state = .failed(FailureReason(rule: PairingRule.relayFallback, detail: "the ack could not be sent over the relay"))
                return []
            }
            state = .sending(Sending(qr: sending.qr, message: sending.message, onRelay: true))
            return Step([.reset] + route(sending.message, via: sending.qr.relayUrl))
        case (.failed, .retry):
            state = .scanning
            return []
        // Ignored (4): a send result with no send in flight, a second scan while one is sent, a
        // retry before the flow failed, and everything after the flow ended.
        case (.scanning, .sendSucceeded), (.scanning, .sendFailed), (.scanning, .retry):
            return .ignored("nothing scanned yet")
        case (.sending, .scanned), (.sending, .retry):
            return .ignored("an ack is being sent")
        case (.success, .scanned), (.success, .sendSucceeded), (.success, .sendFailed), (.success, .retry),
            (.failed, .scanned), (.failed, .sendSucceeded), (.failed, .sendFailed):
            return .ignored("the flow has ended")
        }
    }

    private mutating func scanned(_ text: [UInt8], at time: EpochMillis) -> [PairingAction] {
        let qr: DesktopPairing
        do throws(Violation) {
            let value = try JSONParser.parse(text, limits: pairingLimits)
            qr = try DesktopPairing.decode(value, context: PairingContext(now: time, activeDid: phone.activeDid))
        } catch {
            state = .failed(FailureReason(error))
            return []
        }
        // The decoder has already required an active DID (check 5 of §4.1).
        let did = phone.activeDid ?? ""
        let message = phone.ackMessage(code: qr.code, to: qr.pcPeerId, did: did, at: time)
        let url = qr.signalingUrl ?? qr.relayUrl
        state = .sending(Sending(qr: qr, message: message, onRelay: qr.signalingUrl == nil))
        return route(message, via: url)
    }

    /// Register our own DID, never the target's (PAIR-SIG-001), then send.
    private func route(_ message: SignalMessage, via url: String) -> [PairingAction] {
        [.register(url: url, peerId: phone.activeDid ?? ""), .send(url: url, message: message)]
    }
}
