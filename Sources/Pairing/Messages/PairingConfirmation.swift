import WireCore

/// `pairing:confirmation`: the desktop's answer after it scanned the phone's QR (Flow A) or
/// accepted a typed code (manual), §4.4.
public struct PairingConfirmation: PairingDocument {
    public static let kind = PairingKind.pairingConfirmation

    public var pairingCode: String
    public var pcPeerId: String
    public var deviceInfo: DesktopDeviceInfo
    public var timestamp: EpochMillis

    public init(pairingCode: String, pcPeerId: String, deviceInfo: DesktopDeviceInfo, timestamp: EpochMillis) {
        self.pairingCode = pairingCode
        self.pcPeerId = pcPeerId
        self.deviceInfo = deviceInfo
        self.timestamp = timestamp
    }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> PairingConfirmation {
        try checkType(reader)
        let code = try PairingCode.read(reader, "pairingCode")
        let pcPeerId = try PeerID.read(reader, "pcPeerId")
        let info = try DesktopDeviceInfo.read(reader, "deviceInfo")
        let timestamp = try EpochTime.readMillis(reader, "timestamp")
        return PairingConfirmation(pairingCode: code, pcPeerId: pcPeerId, deviceInfo: info, timestamp: timestamp)
    }

    public var canonical: JSONValue {
        [
            "type": .string(Self.kind.rawValue), "pairingCode": .string(pairingCode), "pcPeerId": .string(pcPeerId),
            "deviceInfo": deviceInfo.canonical, "timestamp": .number(JSONNumber(timestamp)),
        ]
    }
}
