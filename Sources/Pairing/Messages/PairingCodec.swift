import WireCore

/// Entry point for whole documents: bytes in, a valid typed document or the first violation out.
public enum PairingCodec {
    public static func decode(_ bytes: [UInt8], as kind: PairingKind, context: PairingContext) throws(Violation) -> any PairingDocument {
        try decode(JSONParser.parse(bytes, limits: pairingLimits), as: kind, context: context)
    }

    public static func decode(_ value: JSONValue, as kind: PairingKind, context: PairingContext) throws(Violation) -> any PairingDocument {
        let reader = try ObjectReader(document: value)
        switch kind {
        case .desktopPairing: return try DesktopPairing.decode(reader, context: context)
        case .pairAck: return try PairAck.decode(reader, context: context)
        case .devicePairing: return try DevicePairing.decode(reader, context: context)
        case .pairingConfirmation: return try PairingConfirmation.decode(reader, context: context)
        case .register: return try Register.decode(reader, context: context)
        case .message: return try SignalMessage.decode(reader, context: context)
        case .registered: return try Registered.decode(reader, context: context)
        case .peerOffline: return try PeerOffline.decode(reader, context: context)
        case .relayError: return try RelayError.decode(reader, context: context)
        case .pairedDesktop: return try PairedDesktop.decode(reader, context: context)
        case .ping: return try Ping.decode(reader, context: context)
        case .pong: return try Pong.decode(reader, context: context)
        }
    }
}
