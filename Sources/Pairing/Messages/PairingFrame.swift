import WireCore

/// A signaling frame read once through the kind table (Spec pairing.md 1): what its `type`
/// names and, for a `message`, what its payload's `type` names. Every router (the relay, the
/// peers, the watch, the live roles) switches on this, never on a raw `"type"` string, and the
/// names are compared byte for byte: a canonically equivalent spelling names nothing.
public struct PairingFrame: Sendable, Equatable {
    /// What the frame's `type` names.
    public enum Kind: Sendable, Equatable {
        case document(PairingKind)
        /// A WebRTC signal sent as a frame of its own (PAIR-RTC-005), with its type.
        case bareSignal(String)
        /// A type no kind names, or none (not an object, or no string `type`).
        case other(String?)
    }

    /// What a `message`'s payload is.
    public enum Payload: Sendable, Equatable {
        case document(PairingKind)
        case signal(WebRTCSignal.Kind)
        /// A type no payload kind names, or none: opaque to the relay, passed on.
        case opaque(String?)
    }

    public var kind: Kind
    /// For a `message` only.
    public var payload: Payload?

    /// A client's frame as the relay delivers it: with the sender's id in `from` (4.2). The
    /// watch hands the receiving side's machine this, whichever tap it saw the frame at.
    public static func delivered(_ frame: JSONValue, from: String) -> JSONValue {
        guard case .object(var o) = frame else { return frame }
        o["from"] = .string(from)
        return .object(o)
    }

    public init(_ frame: JSONValue) {
        let type = frame["type"]?.stringValue
        if let type, let kind = PairingKind.named(type) {
            self.kind = .document(kind)
        } else if let type, WebRTCSignal.bareFrameTypes.contains(where: { $0.bytesEqual(type) }) {
            self.kind = .bareSignal(type)
        } else {
            self.kind = .other(type)
        }
        payload = kind == .document(.message) ? Self.payload(frame["payload"]) : nil
    }

    /// What a payload (a message's, or a QR code's document) is.
    public static func payload(_ value: JSONValue?) -> Payload {
        let type = value?["type"]?.stringValue
        if let type, let kind = PairingKind.named(type), kind.carriers.contains(.payload) { return .document(kind) }
        if let type, let signal = WebRTCSignal.Kind.named(type) { return .signal(signal) }
        return .opaque(type)
    }

    /// The kind, when the frame is one the kind table names.
    public var documentKind: PairingKind? {
        if case .document(let kind) = kind { return kind }
        return nil
    }

    /// The payload's kind, when it is a pairing document.
    public var payloadKind: PairingKind? {
        if case .document(let kind)? = payload { return kind }
        return nil
    }

    /// The payload's signal, when it is a WebRTC signal.
    public var signal: WebRTCSignal.Kind? {
        if case .signal(let signal)? = payload { return signal }
        return nil
    }
}

extension WebRTCSignal {
    /// The payload types that are WebRTC signals (3.7).
    public enum Kind: String, CaseIterable, Sendable {
        case offer
        case answer
        case iceCandidate = "ice-candidate"

        /// Byte for byte: `OFFER` is an opaque payload, not an offer (PAIR-TYPE-001).
        public static func named(_ type: String) -> Kind? { allCases.first { $0.rawValue.bytesEqual(type) } }
    }
}
