import WireCore

/// Rule ids of the pairing chapter (`Spec/pairing.md`). `Spec/catalog.json` must list
/// exactly these plus the core ones; a test keeps the two in step.
public enum PairingRule {
    public static let type: RuleID = "PAIR-TYPE-001"
    public static let code: RuleID = "PAIR-CODE-001"
    public static let peerID: RuleID = "PAIR-PEER-001"
    public static let pairingCodeAlias: RuleID = "PAIR-PEER-002"
    public static let epochMillis: RuleID = "PAIR-TIME-001"
    public static let maxAge: RuleID = "PAIR-TIME-002"
    public static let notInFuture: RuleID = "PAIR-TIME-003"
    public static let did: RuleID = "PAIR-DID-001"
    public static let activeDID: RuleID = "PAIR-DID-002"
    public static let deviceName: RuleID = "PAIR-INFO-001"
    public static let platform: RuleID = "PAIR-INFO-002"
    public static let deviceID: RuleID = "PAIR-INFO-003"
    public static let signalingURL: RuleID = "PAIR-URL-001"
    public static let relayURL: RuleID = "PAIR-URL-002"
    public static let iceServers: RuleID = "PAIR-ICE-001"
    public static let iceExpiry: RuleID = "PAIR-ICE-002"
    public static let registerOwnID: RuleID = "PAIR-SIG-001"
    public static let aliasCarriesAck: RuleID = "PAIR-SIG-002"
    public static let relayErrorCode: RuleID = "PAIR-SIG-003"
    public static let iceServersJSON: RuleID = "PAIR-STORE-001"
    public static let lastSeenOrder: RuleID = "PAIR-STORE-002"
    public static let relayFallback: RuleID = "PAIR-FLOWB-001"
    public static let confirmationCode: RuleID = "PAIR-FLOWA-001"
    public static let displayExpiry: RuleID = "PAIR-FLOWA-002"
    public static let signalingLost: RuleID = "PAIR-FLOWA-003"
    public static let manualSendFailed: RuleID = "PAIR-MAN-001"
    public static let manualPeerOffline: RuleID = "PAIR-MAN-002"
    public static let manualTimeout: RuleID = "PAIR-MAN-003"
    public static let relayRouting: RuleID = "PAIR-RELAY-001"
    public static let keepalive: RuleID = "PAIR-RELAY-002"
    public static let aliasHeld: RuleID = "PAIR-SEC-001"
    public static let aliasLifetime: RuleID = "PAIR-SEC-002"
    public static let aliasSingleUse: RuleID = "PAIR-SEC-003"
    public static let guessLimit: RuleID = "PAIR-SEC-004"
    public static let aliasQuota: RuleID = "PAIR-SEC-005"
    public static let aliasAnnounced: RuleID = "PAIR-SEC-006"
    public static let reRegister: RuleID = "PAIR-CONN-001"
    public static let backoff: RuleID = "PAIR-CONN-002"
    public static let keepaliveInterval: RuleID = "PAIR-CONN-003"
    public static let desktopShows: RuleID = "PAIR-DESK-001"
    public static let desktopConfirms: RuleID = "PAIR-DESK-002"
    public static let desktopRefuses: RuleID = "PAIR-DESK-003"
    public static let rtcOffer: RuleID = "PAIR-RTC-001"
    public static let rtcAnswer: RuleID = "PAIR-RTC-002"
    public static let rtcCandidate: RuleID = "PAIR-RTC-003"
    public static let rtcEcho: RuleID = "PAIR-RTC-004"
    public static let rtcBareFrame: RuleID = "PAIR-RTC-005"
    public static let rtcNegotiation: RuleID = "PAIR-RTC-006"

    public static let all: [RuleID] = [
        type, code, peerID, pairingCodeAlias, epochMillis, maxAge, notInFuture, did, activeDID, deviceName,
        platform, deviceID, signalingURL, relayURL, iceServers, iceExpiry, registerOwnID, aliasCarriesAck,
        relayErrorCode, iceServersJSON, lastSeenOrder, relayFallback, confirmationCode, displayExpiry,
        signalingLost, manualSendFailed, manualPeerOffline, manualTimeout, relayRouting, keepalive, aliasHeld, aliasLifetime,
        aliasSingleUse, guessLimit, aliasQuota, aliasAnnounced, reRegister, backoff, keepaliveInterval, desktopShows, desktopConfirms, desktopRefuses,
        rtcOffer, rtcAnswer, rtcCandidate, rtcEcho, rtcBareFrame, rtcNegotiation,
    ]
}

/// Time constants of the pairing chapter.
public enum PairingTimeouts {
    /// The desktop's pairing timeout: a QR or a code is valid for this long, inclusive (§4.1).
    public static let validity: EpochMillis = 300_000
    /// How far in the future a `desktop-pairing` timestamp may be (PAIR-TIME-003).
    public static let clockSkew: EpochMillis = 60_000
}

/// The largest pairing document (CORE-JSON-004 for this family).
public let pairingLimits = JSONLimits(maxBytes: 65_536, maxDepth: 64)
