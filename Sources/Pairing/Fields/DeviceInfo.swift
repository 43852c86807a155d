import WireCore

/// Which side a `deviceInfo` describes: its platform set differs (PAIR-INFO-002).
public enum DeviceSide: Sendable {
    case desktop
    case phone

    public var platforms: [String] {
        switch self {
        case .desktop: return ["win32", "darwin", "linux"]
        case .phone: return ["ios", "android"]
        }
    }
}

enum DeviceFields {
    static func name(_ reader: ObjectReader, _ key: String) throws(Violation) -> String {
        let name = try reader.string(key)
        if name.isBlank {
            throw Violation(rule: PairingRule.deviceName, path: reader.pointer(key), expected: "a non-blank name", found: JSONSerializer.quoted(name))
        }
        return name
    }

    static func platform(_ reader: ObjectReader, _ key: String, side: DeviceSide) throws(Violation) -> String {
        let platform = try reader.string(key)
        guard side.platforms.contains(platform) else {
            throw Violation(
                rule: PairingRule.platform, path: reader.pointer(key),
                expected: "one of " + side.platforms.joined(separator: ", "), found: JSONSerializer.quoted(platform))
        }
        return platform
    }
}

/// A desktop's `deviceInfo` (§4.1, §4.4): name, platform, optional version.
public struct DesktopDeviceInfo: Sendable, Hashable {
    public var name: String
    public var platform: String
    public var version: String?

    public init(name: String, platform: String, version: String? = nil) {
        self.name = name
        self.platform = platform
        self.version = version
    }

    public static func read(_ reader: ObjectReader, _ key: String) throws(Violation) -> DesktopDeviceInfo {
        let info = try reader.objectReader(key)
        let name = try DeviceFields.name(info, "name")
        let platform = try DeviceFields.platform(info, "platform", side: .desktop)
        let version = try info.optionalString("version")
        return DesktopDeviceInfo(name: name, platform: platform, version: version)
    }

    public var canonical: JSONValue {
        var o = JSONObject(["name": .string(name), "platform": .string(platform)])
        if let version { o["version"] = .string(version) }
        return .object(o)
    }
}

/// A phone's `deviceInfo` (§4.2, §4.3): deviceId, name, platform.
public struct MobileDeviceInfo: Sendable, Hashable {
    public var deviceId: String
    public var name: String
    public var platform: String

    public init(deviceId: String, name: String, platform: String) {
        self.deviceId = deviceId
        self.name = name
        self.platform = platform
    }

    public static func read(_ reader: ObjectReader, _ key: String) throws(Violation) -> MobileDeviceInfo {
        let info = try reader.objectReader(key)
        let deviceId = try info.string("deviceId")
        if deviceId.isBlank {
            throw Violation(rule: PairingRule.deviceID, path: info.pointer("deviceId"), expected: "a non-blank device id", found: JSONSerializer.quoted(deviceId))
        }
        let name = try DeviceFields.name(info, "name")
        let platform = try DeviceFields.platform(info, "platform", side: .phone)
        return MobileDeviceInfo(deviceId: deviceId, name: name, platform: platform)
    }

    public var canonical: JSONValue {
        ["deviceId": .string(deviceId), "name": .string(name), "platform": .string(platform)]
    }
}
