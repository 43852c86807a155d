import WireCore

/// What a signaling `message` carries: one of the pairing payloads, a WebRTC signal, or anything else
/// (other app messages travel the same relay and are kept as received).
public enum PairingPayload: Sendable, Hashable {
    case desktopPairing(DesktopPairing)
    case pairAck(PairAck)
    case devicePairing(DevicePairing)
    case pairingConfirmation(PairingConfirmation)
    /// An offer, answer or ICE candidate after pairing (3.7).
    case webRTC(WebRTCSignal)
    case other(JSONValue)

    /// Checks a payload object: when its `type` names a pairing payload kind, as that kind.
    public static func decode(_ value: JSONValue, at path: JSONPointer, context: PairingContext) throws(Violation) -> PairingPayload {
        let reader = try ObjectReader(document: value, path: path)
        // Relay frames and stored records are not payloads: a payload typed so is an app's own.
        switch PairingFrame.payload(value) {
        case .signal(let signal): return .webRTC(try WebRTCSignal.decode(reader, kind: signal))
        case .opaque: return .other(value)
        case .document(let kind):
            switch kind {
            case .desktopPairing: return .desktopPairing(try DesktopPairing.decode(reader, context: context))
            case .pairAck: return .pairAck(try PairAck.decode(reader, context: context))
            case .devicePairing: return .devicePairing(try DevicePairing.decode(reader, context: context))
            case .pairingConfirmation: return .pairingConfirmation(try PairingConfirmation.decode(reader, context: context))
            // PairingFrame.payload names only the kinds the table carries as payloads.
            case .register, .message, .registered, .peerOffline, .relayError, .pairedDesktop, .ping, .pong, .peerStatus: return .other(value)
            }
        }
    }

    public var canonical: JSONValue {
        switch self {
        case .desktopPairing(let p): return p.canonical
        case .pairAck(let p): return p.canonical
        case .devicePairing(let p): return p.canonical
        case .pairingConfirmation(let p): return p.canonical
        case .webRTC(let signal): return signal.canonical
        case .other(let v): return v
        }
    }
}
