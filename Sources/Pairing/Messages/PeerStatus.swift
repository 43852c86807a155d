import WireCore

/// `peer-status` (relay → client): a presence broadcast (Spec pairing.md 3.5). ChainlessChain's
/// standalone relay sends one per register and per disconnect; clients ignore it
/// (PAIR-RELAY-002). Its device metadata and time are unknown members, ignored.
public struct PeerStatus: PairingDocument {
    public static let kind = PairingKind.peerStatus
    public var peerId: String
    /// `online` or `offline` in the relay read; kept as received.
    public var status: String

    public init(peerId: String, status: String) {
        self.peerId = peerId
        self.status = status
    }

    public static func decode(_ reader: ObjectReader, context: PairingContext) throws(Violation) -> PeerStatus {
        try checkType(reader)
        let peerId = try PeerID.read(reader, "peerId")
        // PAIR-SEC-006: announcing an alias hands a live manual code to every connected client.
        if peerId.utf8.starts(with: PeerID.aliasPrefix.utf8) {
            throw Violation(
                rule: PairingRule.aliasAnnounced, path: reader.pointer("peerId"), expected: "a peer id that is no pairing-code: alias",
                found: JSONSerializer.quoted(peerId))
        }
        return PeerStatus(peerId: peerId, status: try reader.string("status"))
    }

    public var canonical: JSONValue {
        ["type": .string(Self.kind.rawValue), "peerId": .string(peerId), "status": .string(status)]
    }
}
