import WireCore

/// Every document kind of the pairing family (Spec pairing.md section 1): the kind table. A row
/// names the kind, where it travels and the type that decodes it; the codec, the watch's and the
/// relay replay's frame lists, the payload decoder and the reference family read it from here.
public enum PairingKind: String, CaseIterable, Sendable {
    case desktopPairing = "desktop-pairing"
    case pairAck = "pair-ack"
    case devicePairing = "device-pairing"
    case pairingConfirmation = "pairing:confirmation"
    case register = "register"
    case message = "message"
    case registered = "registered"
    case peerOffline = "peer-offline"
    case relayError = "error"
    case pairedDesktop = "paired-desktop"
    /// The keepalive a client sends as a text frame, and the relay's answer (PAIR-RELAY-002).
    case ping = "ping"
    case pong = "pong"
    /// A relay's presence broadcast, which clients ignore (3.5, PAIR-RELAY-002).
    case peerStatus = "peer-status"

    /// The kind a `type` member (or a vector's kind) names, compared byte for byte: a spelling
    /// that is only canonically equivalent names no kind.
    public static func named(_ type: String) -> PairingKind? {
        allCases.first { $0.rawValue.bytesEqual(type) }
    }

    /// Whether documents of this kind carry a `type` member naming the kind.
    public var hasTypeMember: Bool { self != .pairedDesktop }

    /// Where a document of a kind travels (Spec pairing.md section 1): the kind table's one fact
    /// that the relay's, the watch's and the runner's lists are derived from.
    public enum Carrier: Sendable, Hashable {
        /// Inside a signaling `message` or a QR code.
        case payload
        /// A frame a client sends to a relay.
        case clientFrame
        /// A frame a relay sends to a client: an answer or a delivery, never unasked (PAIR-RELAY-001).
        case relayFrame
        /// A frame a relay may send unasked, at any time (a presence broadcast): checked as a
        /// document where it is seen, and ignored by clients (PAIR-RELAY-002).
        case relayBroadcast
        /// Stored on the phone, never sent.
        case record
    }

    public var carriers: Set<Carrier> {
        switch self {
        case .desktopPairing, .pairAck, .devicePairing, .pairingConfirmation: return [.payload]
        case .register, .ping: return [.clientFrame]
        // A client's message names its target; the relay's delivery of it names the sender.
        case .message: return [.clientFrame, .relayFrame]
        case .registered, .peerOffline, .relayError, .pong: return [.relayFrame]
        case .peerStatus: return [.relayBroadcast]
        case .pairedDesktop: return [.record]
        }
    }

    /// The type that decodes and holds a document of this kind (its checks in the Spec's order).
    public var documentType: any PairingDocument.Type {
        switch self {
        case .desktopPairing: return DesktopPairing.self
        case .pairAck: return PairAck.self
        case .devicePairing: return DevicePairing.self
        case .pairingConfirmation: return PairingConfirmation.self
        case .register: return Register.self
        case .message: return SignalMessage.self
        case .registered: return Registered.self
        case .peerOffline: return PeerOffline.self
        case .relayError: return RelayError.self
        case .pairedDesktop: return PairedDesktop.self
        case .ping: return Ping.self
        case .pong: return Pong.self
        case .peerStatus: return PeerStatus.self
        }
    }

    /// The type names of the kinds `carrier` carries.
    public static func types(carriedAs carrier: Carrier) -> Set<String> {
        Set(allCases.filter { $0.carriers.contains(carrier) }.map(\.rawValue))
    }
}

/// A decoded, valid pairing document.
public protocol PairingDocument: Sendable, Hashable {
    static var kind: PairingKind { get }
    /// Reads the members in the Spec's order; throws the first failing check.
    static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> Self
    /// The canonical form (Spec core.md): declared members only, "not given" omitted.
    var canonical: JSONValue { get }
}

extension PairingDocument {
    /// Checks `type` (PAIR-TYPE-001): present, a string, equal to the kind.
    static func checkType(_ reader: ObjectReader) throws(Violation) {
        let type = try reader.string("type")
        // Byte for byte: String's == would take a canonically equivalent spelling for the name.
        guard type.utf8.elementsEqual(kind.rawValue.utf8) else {
            throw Violation(
                rule: PairingRule.type, path: reader.pointer("type"), expected: JSONSerializer.quoted(kind.rawValue),
                found: JSONSerializer.quoted(type))
        }
    }

    /// Decodes a whole document value (the root must be an object).
    public static func decode(_ value: JSONValue, context: PairingContext, at path: JSONPointer = .root) throws(Violation) -> Self {
        try decode(ObjectReader(document: value, path: path), context: context)
    }
}
