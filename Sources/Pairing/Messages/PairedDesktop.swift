import WireCore

/// The record a phone keeps for each paired desktop (§6.3), upserted by `pcPeerId`.
public struct PairedDesktop: PairingDocument {
    public static let kind = PairingKind.pairedDesktop

    public var pcPeerId: String
    public var deviceName: String
    public var platform: String
    public var lanSignalingUrl: String?
    public var relayUrl: String?
    /// The QR's `iceServers` value as received (§6.3 "原样存").
    public var iceServersJson: String?
    /// Epoch seconds; 0 when the desktop sent no ICE credentials.
    public var iceExpiry: Int64
    public var pairedAt: EpochMillis
    public var lastSeenAt: EpochMillis

    public init(
        pcPeerId: String, deviceName: String, platform: String, lanSignalingUrl: String?, relayUrl: String?,
        iceServersJson: String?, iceExpiry: Int64, pairedAt: EpochMillis, lastSeenAt: EpochMillis
    ) {
        self.pcPeerId = pcPeerId
        self.deviceName = deviceName
        self.platform = platform
        self.lanSignalingUrl = lanSignalingUrl
        self.relayUrl = relayUrl
        self.iceServersJson = iceServersJson
        self.iceExpiry = iceExpiry
        self.pairedAt = pairedAt
        self.lastSeenAt = lastSeenAt
    }

    /// The record Flow B stores after the desktop received the ack (Spec pairing.md 4.1).
    public init(pairedWith qr: DesktopPairing, at time: EpochMillis) {
        self.init(
            pcPeerId: qr.pcPeerId, deviceName: qr.deviceInfo.name, platform: qr.deviceInfo.platform,
            lanSignalingUrl: qr.signalingUrl, relayUrl: qr.relayUrl, iceServersJson: qr.iceServersJson,
            iceExpiry: qr.iceExpiry ?? 0, pairedAt: time, lastSeenAt: time)
    }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> PairedDesktop {
        let pcPeerId = try PeerID.read(reader, "pcPeerId")
        let deviceName = try DeviceFields.name(reader, "deviceName")
        let platform = try DeviceFields.platform(reader, "platform", side: .desktop)
        let lan = try SignalingURL.readOptional(reader, "lanSignalingUrl", relay: false)
        let relay = try SignalingURL.readOptional(reader, "relayUrl", relay: true)
        let iceServersJson = try reader.optionalString("iceServersJson")
        if let text = iceServersJson {
            try checkIceServersJSON(text, at: reader.pointer("iceServersJson"))
        }
        let iceExpiry = try EpochTime.readSeconds(reader, "iceExpiry", required: true) ?? 0
        let pairedAt = try EpochTime.readMillis(reader, "pairedAt")
        let lastSeenAt = try EpochTime.readMillis(reader, "lastSeenAt")
        guard lastSeenAt >= pairedAt else {
            throw Violation(
                rule: PairingRule.lastSeenOrder, path: reader.pointer("lastSeenAt"),
                expected: "at or after pairedAt \(pairedAt)", found: "\(lastSeenAt)")
        }
        return PairedDesktop(
            pcPeerId: pcPeerId, deviceName: deviceName, platform: platform, lanSignalingUrl: lan, relayUrl: relay,
            iceServersJson: iceServersJson, iceExpiry: iceExpiry, pairedAt: pairedAt, lastSeenAt: lastSeenAt)
    }

    /// PAIR-STORE-001: the stored text must itself be a valid `iceServers` array.
    static func checkIceServersJSON(_ text: String, at path: JSONPointer) throws(Violation) {
        let problem: Violation
        do throws(Violation) {
            let value = try JSONParser.parse(text, limits: pairingLimits)
            _ = try IceServer.readList(value, at: .root)
            return
        } catch {
            problem = error
        }
        throw Violation(
            rule: PairingRule.iceServersJSON, path: path, expected: "the text of a valid iceServers array",
            found: "\(problem.rule) at \"\(problem.path)\" inside it: \(problem.found)")
    }

    public var canonical: JSONValue {
        var o = JSONObject([
            "pcPeerId": .string(pcPeerId), "deviceName": .string(deviceName), "platform": .string(platform),
        ])
        if let lanSignalingUrl { o["lanSignalingUrl"] = .string(lanSignalingUrl) }
        if let relayUrl { o["relayUrl"] = .string(relayUrl) }
        if let iceServersJson { o["iceServersJson"] = .string(iceServersJson) }
        o["iceExpiry"] = .number(JSONNumber(iceExpiry))
        o["pairedAt"] = .number(JSONNumber(pairedAt))
        o["lastSeenAt"] = .number(JSONNumber(lastSeenAt))
        return .object(o)
    }
}
