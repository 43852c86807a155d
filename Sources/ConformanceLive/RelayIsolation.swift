import Pairing
import WireCore

/// Fresh peer ids and pairing codes for one relay case, so that nothing one case registered,
/// spent or missed on a live relay (which keeps spent aliases and guess counts for minutes)
/// reaches another case, or another run against the same relay. Every string in the case's
/// documents that is one of its peer ids, aliases or codes is replaced consistently, in what the
/// runner sends and in what it expects back; raw `text` frames are sent as written.
struct RelayIsolation: Sendable {
    /// Keyed by bytes: peer ids are opaque (PAIR-PEER-001), `did:cc:é` and its NFD twin are two.
    private var ids: [ByteString: String] = [:]
    private var codes: [String: String] = [:]

    /// - Parameters:
    ///   - documents: every document of the case (sent and expected).
    ///   - nonce: distinct per case and run, made of characters a DID allows.
    ///   - random: picks the fresh six-digit codes.
    init(documents: [JSONValue], nonce: String, random: inout some RandomNumberGenerator) {
        var peerIds: [String] = []
        for document in documents {
            for key in ["peerId", "to", "from"] {
                if case .string(let id)? = document[key], !peerIds.contains(where: { $0.bytesEqual(id) }) { peerIds.append(id) }
            }
        }
        var used: Set<String> = []
        for id in peerIds {
            if let code = PeerID.aliasCode(id) {
                guard codes[code] == nil, PairingCode.isValid(code) else { continue }
                var fresh: String
                repeat {
                    fresh = String(UInt32.random(in: 0..<1_000_000, using: &random)).leftPadded(to: 6)
                } while used.contains(fresh) || fresh == code
                used.insert(fresh)
                codes[code] = fresh
            } else if (try? PeerID.check(id, at: .root)) != nil, (try? PeerID.check(id + "-" + nonce, at: .root)) != nil {
                // Invalid ids stay as written: the case is about the relay refusing them.
                ids[ByteString(id)] = id + "-" + nonce
            }
        }
    }

    /// `value` with the case's ids and codes replaced.
    func apply(_ value: JSONValue, key: String? = nil) -> JSONValue {
        switch value {
        case .string(let s):
            if let id = ids[ByteString(s)] { return .string(id) }
            if let code = PeerID.aliasCode(s), let fresh = codes[code] { return .string(PeerID.alias(forCode: fresh)) }
            if key == "pairingCode", let fresh = codes[s] { return .string(fresh) }
            return value
        case .object(let o):
            return .object(JSONObject(o.members.map { JSONObject.Member(key: $0.key, value: apply($0.value, key: $0.key)) }))
        case .array(let a):
            return .array(a.map { apply($0) })
        default:
            return value
        }
    }
}
