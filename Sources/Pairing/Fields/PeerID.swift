import WireCore

/// Peer ids on the signaling relay (PAIR-PEER-001, PAIR-PEER-002). Opaque: compared byte for byte.
public enum PeerID {
    public static let aliasPrefix = "pairing-code:"
    public static let maxBytes = 256

    /// The manual-pairing alias for a code (seed 002 §6.5).
    public static func alias(forCode code: String) -> String { aliasPrefix + code }

    /// The code of a `pairing-code:` alias, or nil when `peerId` is not an alias.
    public static func aliasCode(_ peerId: String) -> String? {
        peerId.afterScalarPrefix(aliasPrefix).map { String($0) }
    }

    public static func check(_ peerId: String, at path: JSONPointer) throws(Violation) {
        if peerId.isBlank {
            throw Violation(rule: PairingRule.peerID, path: path, expected: "a non-blank peer id", found: JSONSerializer.quoted(peerId))
        }
        if let control = peerId.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw Violation(
                rule: PairingRule.peerID, path: path, expected: "no control characters",
                found: "U+" + String(control.value, radix: 16, uppercase: true).leftPadded(to: 4))
        }
        if peerId.utf8.count > maxBytes {
            throw Violation(rule: PairingRule.peerID, path: path, expected: "at most \(maxBytes) UTF-8 bytes", found: "\(peerId.utf8.count) bytes")
        }
        if let code = aliasCode(peerId), !PairingCode.isValid(code) {
            throw Violation(
                rule: PairingRule.pairingCodeAlias, path: path, expected: "\"pairing-code:\" followed by six ASCII digits",
                found: JSONSerializer.quoted(peerId))
        }
    }

    public static func read(_ reader: ObjectReader, _ key: String) throws(Violation) -> String {
        let id = try reader.string(key)
        try check(id, at: reader.pointer(key))
        return id
    }

    public static func readOptional(_ reader: ObjectReader, _ key: String) throws(Violation) -> String? {
        guard let id = try reader.optionalString(key) else { return nil }
        try check(id, at: reader.pointer(key))
        return id
    }
}
