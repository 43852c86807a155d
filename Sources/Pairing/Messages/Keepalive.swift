import WireCore

/// `{type:"ping"}`: a client's keepalive as a text frame (PAIR-RELAY-002, PAIR-CONN-003). Real
/// clients add members (Android a `timestamp`): unknown members, ignored (core.md).
public struct Ping: PairingDocument {
    public static let kind = PairingKind.ping
    public init() {}

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> Ping {
        try checkType(reader)
        return Ping()
    }

    public var canonical: JSONValue { ["type": .string(Self.kind.rawValue)] }
}

/// `{type:"pong"}`: the relay's answer to a `ping` (PAIR-RELAY-002). The deployed relay adds a
/// `timestamp`: ignored.
public struct Pong: PairingDocument {
    public static let kind = PairingKind.pong
    public init() {}

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> Pong {
        try checkType(reader)
        return Pong()
    }

    public var canonical: JSONValue { ["type": .string(Self.kind.rawValue)] }
}
