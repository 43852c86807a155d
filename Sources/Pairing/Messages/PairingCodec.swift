import WireCore

/// Entry point for whole documents: bytes in, a valid typed document or the first violation out.
public enum PairingCodec {
    public static func decode(_ bytes: [UInt8], as kind: PairingKind, context: PairingContext) throws(Violation) -> any PairingDocument {
        try decode(JSONParser.parse(bytes, limits: pairingLimits), as: kind, context: context)
    }

    public static func decode(_ value: JSONValue, as kind: PairingKind, context: PairingContext) throws(Violation) -> any PairingDocument {
        try kind.documentType.decode(try ObjectReader(document: value), context: context)
    }
}
