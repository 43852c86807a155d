import WireCore

/// `desktop-pairing`: the QR payload a desktop shows in Flow B (seed 002 §4.1).
public struct DesktopPairing: PairingDocument {
    public static let kind = PairingKind.desktopPairing

    public var code: String
    public var pcPeerId: String
    public var deviceInfo: DesktopDeviceInfo
    public var timestamp: EpochMillis
    /// The LAN signaling URL; nil when not given (absent, null or "").
    public var signalingUrl: String?
    public var relayUrl: String
    public var iceServers: [IceServer]?
    /// The `iceServers` value exactly as received (compact text), for `PairedDesktop.iceServersJson`.
    public var iceServersJson: String?
    public var iceExpiry: Int64?

    /// Checks in the seed's order (§4.1: type, code, pcPeerId, age, active DID), then the rest in field order.
    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> DesktopPairing {
        try checkType(reader)
        let code = try PairingCode.read(reader, "code")
        let pcPeerId = try PeerID.read(reader, "pcPeerId")
        let timestamp = try EpochTime.readMillis(reader, "timestamp")
        // Compared without subtracting into overflow: `now` comes from the caller.
        if context.now > timestamp && context.now - timestamp > PairingTimeouts.validity {
            throw Violation(
                rule: PairingRule.maxAge, path: reader.pointer("timestamp"),
                expected: "at most \(PairingTimeouts.validity) ms old", found: "\(context.now - timestamp) ms old")
        }
        if context.now < timestamp - PairingTimeouts.clockSkew {
            throw Violation(
                rule: PairingRule.notInFuture, path: reader.pointer("timestamp"),
                expected: "at most \(PairingTimeouts.clockSkew) ms in the future", found: "\(timestamp - context.now) ms in the future")
        }
        guard context.activeDid != nil else {
            throw Violation(rule: PairingRule.activeDID, path: reader.path, expected: "an active local DID", found: "none")
        }
        let deviceInfo = try DesktopDeviceInfo.read(reader, "deviceInfo")
        let signalingUrl = try SignalingURL.readOptional(reader, "signalingUrl", relay: false)
        let relayUrl = try SignalingURL.read(reader, "relayUrl", relay: true)
        var iceServers: [IceServer]?
        var iceServersJson: String?
        if let value = reader.optional("iceServers") {
            iceServers = try IceServer.readList(value, at: reader.pointer("iceServers"))
            iceServersJson = JSONSerializer.compact(value)
        }
        // 0 is "no expiry": STUN-only desktops send it (PAIR-ICE-002).
        let iceExpiry = try EpochTime.readSeconds(reader, "iceExpiry", required: false)
        return DesktopPairing(
            code: code, pcPeerId: pcPeerId, deviceInfo: deviceInfo, timestamp: timestamp, signalingUrl: signalingUrl,
            relayUrl: relayUrl, iceServers: iceServers, iceServersJson: iceServersJson, iceExpiry: iceExpiry)
    }

    public var canonical: JSONValue {
        var o = JSONObject([
            "type": .string(Self.kind.rawValue), "code": .string(code), "pcPeerId": .string(pcPeerId),
            "deviceInfo": deviceInfo.canonical, "timestamp": .number(JSONNumber(timestamp)),
        ])
        if let signalingUrl { o["signalingUrl"] = .string(signalingUrl) }
        o["relayUrl"] = .string(relayUrl)
        if let iceServers { o["iceServers"] = .array(iceServers.map(\.canonical)) }
        if let iceExpiry { o["iceExpiry"] = .number(JSONNumber(iceExpiry)) }
        return .object(o)
    }
}
