import WireCore

/// `device-pairing`: the QR payload a phone shows in Flow A (§4.3).
public struct DevicePairing: PairingDocument {
    public static let kind = PairingKind.devicePairing

    public var code: String
    public var did: String
    public var deviceInfo: MobileDeviceInfo
    public var timestamp: EpochMillis

    public init(code: String, did: String, deviceInfo: MobileDeviceInfo, timestamp: EpochMillis) {
        self.code = code
        self.did = did
        self.deviceInfo = deviceInfo
        self.timestamp = timestamp
    }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> DevicePairing {
        try checkType(reader)
        let code = try PairingCode.read(reader, "code")
        let did = try DID.read(reader, "did")
        let info = try MobileDeviceInfo.read(reader, "deviceInfo")
        let timestamp = try EpochTime.readMillis(reader, "timestamp")
        return DevicePairing(code: code, did: did, deviceInfo: info, timestamp: timestamp)
    }

    public var canonical: JSONValue {
        [
            "type": .string(Self.kind.rawValue), "code": .string(code), "did": .string(did),
            "deviceInfo": deviceInfo.canonical, "timestamp": .number(JSONNumber(timestamp)),
        ]
    }
}
