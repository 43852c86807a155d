import WireCore

/// `pair-ack`: the phone's answer to a desktop QR (Flow B) or to a typed code (manual), §4.2.
public struct PairAck: PairingDocument {
    public static let kind = PairingKind.pairAck

    public var pairingCode: String
    public var mobileDid: String
    public var deviceInfo: MobileDeviceInfo
    public var timestamp: EpochMillis

    public init(pairingCode: String, mobileDid: String, deviceInfo: MobileDeviceInfo, timestamp: EpochMillis) {
        self.pairingCode = pairingCode
        self.mobileDid = mobileDid
        self.deviceInfo = deviceInfo
        self.timestamp = timestamp
    }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> PairAck {
        try checkType(reader)
        let code = try PairingCode.read(reader, "pairingCode")
        let did = try DID.read(reader, "mobileDid")
        let info = try MobileDeviceInfo.read(reader, "deviceInfo")
        let timestamp = try EpochTime.readMillis(reader, "timestamp")
        return PairAck(pairingCode: code, mobileDid: did, deviceInfo: info, timestamp: timestamp)
    }

    public var canonical: JSONValue {
        [
            "type": .string(Self.kind.rawValue), "pairingCode": .string(pairingCode), "mobileDid": .string(mobileDid),
            "deviceInfo": deviceInfo.canonical, "timestamp": .number(JSONNumber(timestamp)),
        ]
    }
}
