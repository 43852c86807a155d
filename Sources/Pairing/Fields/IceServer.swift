import WireCore

/// One WebRTC ICE server (PAIR-ICE-001). `urls` keeps the form it arrived in: a string or a list.
public struct IceServer: Sendable, Hashable {
    public enum URLs: Sendable, Hashable {
        case one(String)
        case many([String])
    }

    public var urls: URLs
    public var username: String?
    public var credential: String?

    static let schemes = ["stun:", "stuns:", "turn:", "turns:"]

    /// Reads an `iceServers` array value at `path`.
    public static func readList(_ value: JSONValue, at path: JSONPointer) throws(Violation) -> [IceServer] {
        guard case .array(let elements) = value else {
            throw Violation(rule: CoreRule.type, path: path, expected: "array", found: value.typeName)
        }
        var servers: [IceServer] = []
        for (i, element) in elements.enumerated() {
            guard case .object(let o) = element else {
                throw Violation(rule: CoreRule.type, path: path / i, expected: "object", found: element.typeName)
            }
            servers.append(try read(ObjectReader(object: o, path: path / i)))
        }
        return servers
    }

    static func read(_ reader: ObjectReader) throws(Violation) -> IceServer {
        let urlsPath = reader.pointer("urls")
        let value = try reader.required("urls", expecting: "string or array of strings")
        let urls: URLs
        switch value {
        case .string(let s):
            try checkURL(s, at: urlsPath)
            urls = .one(s)
        case .array(let list):
            guard !list.isEmpty else {
                throw Violation(rule: PairingRule.iceServers, path: urlsPath, expected: "a non-empty list of URLs", found: "[]")
            }
            var strings: [String] = []
            for (i, item) in list.enumerated() {
                guard case .string(let s) = item else {
                    throw Violation(rule: CoreRule.type, path: urlsPath / i, expected: "string", found: item.typeName)
                }
                try checkURL(s, at: urlsPath / i)
                strings.append(s)
            }
            urls = .many(strings)
        default:
            throw Violation(rule: CoreRule.type, path: urlsPath, expected: "string or array", found: value.typeName)
        }
        let username = try reader.optionalString("username")
        let credential = try reader.optionalString("credential")
        return IceServer(urls: urls, username: username, credential: credential)
    }

    static func checkURL(_ url: String, at path: JSONPointer) throws(Violation) {
        let lower = url.lowercased()
        guard schemes.contains(where: { lower.afterScalarPrefix($0)?.isEmpty == false }) else {
            throw Violation(
                rule: PairingRule.iceServers, path: path, expected: "a stun:, stuns:, turn: or turns: URL", found: JSONSerializer.quoted(url))
        }
    }

    public var canonical: JSONValue {
        var o = JSONObject()
        switch urls {
        case .one(let s): o["urls"] = .string(s)
        case .many(let list): o["urls"] = .array(list.map { .string($0) })
        }
        if let username { o["username"] = .string(username) }
        if let credential { o["credential"] = .string(credential) }
        return .object(o)
    }
}
