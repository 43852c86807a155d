import WireCore

/// Why a flow failed or dropped an input: the rule and the place (Spec pairing.md section 4).
public struct FailureReason: Error, Sendable, Hashable {
    public var rule: RuleID
    public var path: JSONPointer
    /// For people and logs; not compared by vectors.
    public var detail: String

    public init(rule: RuleID, path: JSONPointer = .root, detail: String) {
        self.rule = rule
        self.path = path
        self.detail = detail
    }

    public init(_ violation: Violation) {
        self.init(rule: violation.rule, path: violation.path, detail: violation.description)
    }
}

/// What a pairing flow asks its edge to do. The machines never do I/O themselves.
public enum PairingAction: Sendable, Hashable {
    /// Ensure a connection to `url` and register `peerId` on it (§6.1 `ensureRegistered`).
    case register(url: String, peerId: String)
    /// Send a signaling `message` over the connection to `url`.
    case send(url: String, message: SignalMessage)
    /// Stop holding `peerId` on the connection to `url`: not registered again after a reconnect
    /// (a desktop's alias once its code is used up or expired, PAIR-CONN-001).
    case release(url: String, peerId: String)
    /// Drop the connection and the cached registered peer id (§6.1 `reset`).
    case reset
    /// Upsert the record by `pcPeerId` (§6.3).
    case persist(PairedDesktop)
    /// An incoming document was discarded; the user sees nothing.
    case drop(FailureReason)
}

/// What the phone running a flow knows about itself.
public struct PhoneContext: Sendable, Hashable {
    /// The active DID, nil when the user has none (PAIR-DID-002). Also the phone's peer id.
    public var activeDid: String?
    public var device: MobileDeviceInfo
    /// The configured signaling server (Flow A and manual; Flow B takes its URLs from the QR).
    public var signalingUrl: String?

    public init(activeDid: String?, device: MobileDeviceInfo, signalingUrl: String? = nil) {
        self.activeDid = activeDid
        self.device = device
        self.signalingUrl = signalingUrl
    }

    /// The phone's `pair-ack` for `code`, routed to `to`.
    func ackMessage(code: String, to: String, did: String, at time: EpochMillis) -> SignalMessage {
        let ack = PairAck(pairingCode: code, mobileDid: did, deviceInfo: device, timestamp: time)
        return SignalMessage(to: to, payload: .pairAck(ack))
    }

    var missingDID: FailureReason {
        FailureReason(rule: PairingRule.activeDID, detail: "no active local DID")
    }
}

/// Checks an incoming confirmation for a flow waiting on `code`; a reason to drop it, or the confirmation.
func acceptConfirmation(_ document: JSONValue, code: String, at time: EpochMillis) -> Result<PairingConfirmation, FailureReason> {
    let confirmation: PairingConfirmation
    do throws(Violation) {
        confirmation = try PairingConfirmation.decode(document, context: PairingContext(now: time))
    } catch {
        return .failure(FailureReason(error))
    }
    guard confirmation.pairingCode == code else {
        return .failure(
            FailureReason(
                rule: PairingRule.confirmationCode, path: .root / "pairingCode",
                detail: "confirmation for code \(confirmation.pairingCode), waiting for \(code)"))
    }
    return .success(confirmation)
}
