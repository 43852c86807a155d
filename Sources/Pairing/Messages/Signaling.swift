import WireCore

/// `register` (client → relay): claim a peer id on the relay (§6.1, §6.2).
public struct Register: PairingDocument {
    public static let kind = PairingKind.register
    public var peerId: String

    public init(peerId: String) { self.peerId = peerId }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> Register {
        try checkType(reader)
        let peerId = try PeerID.read(reader, "peerId")
        // PAIR-SIG-001: own id or a manual-pairing alias, never the target's (the echo-loop trap).
        if let own = context.localPeerId, !peerId.bytesEqual(own), PeerID.aliasCode(peerId) == nil {
            throw Violation(
                rule: PairingRule.registerOwnID, path: reader.pointer("peerId"),
                expected: "the sender's own peer id \(JSONSerializer.quoted(own)) or a pairing-code: alias",
                found: JSONSerializer.quoted(peerId))
        }
        return Register(peerId: peerId)
    }

    public var canonical: JSONValue { ["type": .string(Self.kind.rawValue), "peerId": .string(peerId)] }
}

/// `message`: `{type:"message", to, payload}` from a client; the relay adds `from` (§4.2) and
/// may leave `to` out of what it delivers (the deployed relay does).
public struct SignalMessage: PairingDocument {
    public static let kind = PairingKind.message
    /// Always there in what a client sends; optional in a delivery (one with `from`).
    public var to: String?
    public var from: String?
    public var payload: PairingPayload

    public init(to: String?, from: String? = nil, payload: PairingPayload) {
        self.to = to
        self.from = from
        self.payload = payload
    }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> SignalMessage {
        try checkType(reader)
        // A client's message names its target; a relay's delivery names its sender and may omit `to`.
        // `from: null` is "not given" (CORE-TYPE-002): a message without a sender is a client's and needs `to`.
        let to = reader.optional("from") == nil ? try PeerID.read(reader, "to") : try PeerID.readOptional(reader, "to")
        let from = try PeerID.readOptional(reader, "from")
        let payloadValue = try reader.required("payload", expecting: "object")
        let payload = try PairingPayload.decode(payloadValue, at: reader.pointer("payload"), context: context)
        if let to, let code = PeerID.aliasCode(to) {
            guard case .pairAck(let ack) = payload else {
                throw Violation(
                    rule: PairingRule.aliasCarriesAck, path: reader.pointer("payload") / "type",
                    expected: "\"pair-ack\" (the only payload a pairing-code: alias receives)",
                    found: payloadValue["type"]?.brief ?? "absent")
            }
            guard ack.pairingCode == code else {
                throw Violation(
                    rule: PairingRule.aliasCarriesAck, path: reader.pointer("payload") / "pairingCode",
                    expected: JSONSerializer.quoted(code) + " (the alias's code)", found: JSONSerializer.quoted(ack.pairingCode))
            }
        }
        // PAIR-RTC-004, the echo loop seen on the wire: a client's signal to itself comes straight
        // back, and a delivery from oneself is one's own echoed. A delivery's `to` is the receiver's
        // own id by design (3.5), so only a client's message (no `from`) is judged by its `to`.
        if case .webRTC = payload, let own = context.localPeerId {
            if from == nil, let to, to.bytesEqual(own) {
                throw Violation(
                    rule: PairingRule.rtcEcho, path: reader.pointer("to"), expected: "the peer's id, not the sender's own", found: JSONSerializer.quoted(to))
            }
            if let from, from.bytesEqual(own) {
                throw Violation(
                    rule: PairingRule.rtcEcho, path: reader.pointer("from"), expected: "another peer's id (a signal from oneself is an echo, to drop)",
                    found: JSONSerializer.quoted(from))
            }
        }
        return SignalMessage(to: to, from: from, payload: payload)
    }

    public var canonical: JSONValue {
        var o = JSONObject(["type": .string(Self.kind.rawValue)])
        if let to { o["to"] = .string(to) }
        if let from { o["from"] = .string(from) }
        o["payload"] = payload.canonical
        return .object(o)
    }
}

/// `registered` (relay → client): the relay accepted a `register`.
public struct Registered: PairingDocument {
    public static let kind = PairingKind.registered
    public var peerId: String

    public init(peerId: String) { self.peerId = peerId }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> Registered {
        try checkType(reader)
        return Registered(peerId: try PeerID.read(reader, "peerId"))
    }

    public var canonical: JSONValue { ["type": .string(Self.kind.rawValue), "peerId": .string(peerId)] }
}

/// `peer-offline` (relay → client): the target of a `message` is not registered (§6.5).
public struct PeerOffline: PairingDocument {
    public static let kind = PairingKind.peerOffline
    public var peerId: String

    public init(peerId: String) { self.peerId = peerId }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> PeerOffline {
        try checkType(reader)
        return PeerOffline(peerId: try PeerID.read(reader, "peerId"))
    }

    public var canonical: JSONValue { ["type": .string(Self.kind.rawValue), "peerId": .string(peerId)] }
}

/// `error` (relay → client): a refused request, with a code clients act on (PAIR-SIG-003).
public struct RelayError: PairingDocument {
    public static let kind = PairingKind.relayError

    public enum Code: String, CaseIterable, Sendable {
        case invalidMessage = "invalid-message"
        case notRegistered = "not-registered"
        case rateLimited = "rate-limited"
        case aliasTaken = "alias-taken"
        case aliasExpired = "alias-expired"
        case tooLarge = "too-large"
    }

    public var code: Code
    public var message: String?

    public init(code: Code, message: String? = nil) {
        self.code = code
        self.message = message
    }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> RelayError {
        try checkType(reader)
        let text = try reader.string("code")
        guard let code = Code(rawValue: text) else {
            throw Violation(
                rule: PairingRule.relayErrorCode, path: reader.pointer("code"),
                expected: "one of " + Code.allCases.map(\.rawValue).joined(separator: ", "), found: JSONSerializer.quoted(text))
        }
        return RelayError(code: code, message: try reader.optionalString("message"))
    }

    public var canonical: JSONValue {
        var o = JSONObject(["type": .string(Self.kind.rawValue), "code": .string(code.rawValue)])
        if let message { o["message"] = .string(message) }
        return .object(o)
    }
}
