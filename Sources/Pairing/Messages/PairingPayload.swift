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
        if case .string(let type)? = reader.raw("type"), WebRTCSignal.payloadTypes.contains(type) {
            return .webRTC(try WebRTCSignal.decode(reader, type: type))
        }
        // Relay frames and stored records are not payloads: a payload typed so is an app's own.
        guard case .string(let type)? = reader.raw("type"), let kind = PairingKind.named(type), kind.carriers.contains(.payload) else {
            return .other(value)
        }
        switch kind {
        case .desktopPairing: return .desktopPairing(try DesktopPairing.decode(reader, context: context))
        case .pairAck: return .pairAck(try PairAck.decode(reader, context: context))
        case .devicePairing: return .devicePairing(try DevicePairing.decode(reader, context: context))
        case .pairingConfirmation: return .pairingConfirmation(try PairingConfirmation.decode(reader, context: context))
        // Only the kinds above travel as payloads: PairingPayloadKindTests holds every payload row
        // to a case here, so a kind that is no payload needs no line.
        default: return .other(value)
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
