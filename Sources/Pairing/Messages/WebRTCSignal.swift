import WireCore

/// A WebRTC signal after pairing, carried only as the payload of a signaling `message`
/// (Spec pairing.md 3.7): the phone's offer, the desktop's answer, and each side's ICE candidates.
public enum WebRTCSignal: Sendable, Hashable {
    case offer(sdp: String)
    case answer(sdp: String)
    case iceCandidate(candidate: String, sdpMid: String, sdpMLineIndex: Int64)

    /// Top-level frame types a relay refuses (PAIR-RTC-005): the signals (`Kind`), and the
    /// desktop's `ice-candidates` batch, which real clients send bare. Read through PairingFrame.
    static let bareFrameTypes: [String] = Kind.allCases.map(\.rawValue) + ["ice-candidates"]

    static func decode(_ reader: ObjectReader, kind: Kind) throws(Violation) -> WebRTCSignal {
        switch kind {
        case .offer: return .offer(sdp: try description(reader, "offer", rule: PairingRule.rtcOffer))
        case .answer: return .answer(sdp: try description(reader, "answer", rule: PairingRule.rtcAnswer))
        case .iceCandidate: return try candidate(reader)
        }
    }

    /// PAIR-RTC-001/002: `{type, sdp}` nested under the payload's own type, the inner type equal
    /// to it, the SDP text's first line `v=0` (RFC 8866 §5), ended by CRLF or LF.
    static func description(_ reader: ObjectReader, _ key: String, rule: RuleID) throws(Violation) -> String {
        let description = try reader.objectReader(key)
        let inner = try description.string("type")
        guard inner.utf8.elementsEqual(key.utf8) else {
            throw Violation(rule: rule, path: description.pointer("type"), expected: JSONSerializer.quoted(key), found: JSONSerializer.quoted(inner))
        }
        let sdp = try description.string("sdp")
        guard sdp.utf8.starts(with: "v=0\r\n".utf8) || sdp.utf8.starts(with: "v=0\n".utf8) else {
            throw Violation(
                rule: rule, path: description.pointer("sdp"), expected: "SDP text whose first line is v=0",
                found: sdp.isEmpty ? "an empty string" : JSONSerializer.quoted(String(String.UnicodeScalarView(sdp.unicodeScalars.prefix(24)))))
        }
        return sdp
    }

    /// PAIR-RTC-003: one candidate, nested, with its `candidate:` attribute, a non-empty mid and
    /// an index both phones read alike.
    static func candidate(_ reader: ObjectReader) throws(Violation) -> WebRTCSignal {
        let c = try reader.objectReader("candidate")
        let text = try c.string("candidate")
        guard text.utf8.starts(with: "candidate:".utf8), text.utf8.count > "candidate:".utf8.count else {
            throw Violation(
                rule: PairingRule.rtcCandidate, path: c.pointer("candidate"), expected: "an RFC 8839 candidate attribute, starting with \"candidate:\"",
                found: text.isEmpty ? "an empty string (end-of-candidates is not sent)" : JSONSerializer.quoted(String(String.UnicodeScalarView(text.unicodeScalars.prefix(24)))))
        }
        let mid = try c.string("sdpMid")
        guard !mid.isEmpty else {
            throw Violation(rule: PairingRule.rtcCandidate, path: c.pointer("sdpMid"), expected: "a non-empty media id", found: "an empty string")
        }
        let index = try c.integer("sdpMLineIndex")
        guard (0...65535).contains(index) else {
            throw Violation(rule: PairingRule.rtcCandidate, path: c.pointer("sdpMLineIndex"), expected: "0 to 65535", found: "\(index)")
        }
        return .iceCandidate(candidate: text, sdpMid: mid, sdpMLineIndex: index)
    }

    public var canonical: JSONValue {
        switch self {
        case .offer(let sdp): return ["type": "offer", "offer": ["type": "offer", "sdp": .string(sdp)]]
        case .answer(let sdp): return ["type": "answer", "answer": ["type": "answer", "sdp": .string(sdp)]]
        case .iceCandidate(let candidate, let mid, let index):
            return [
                "type": "ice-candidate",
                "candidate": ["candidate": .string(candidate), "sdpMid": .string(mid), "sdpMLineIndex": .number(JSONNumber(index))],
            ]
        }
    }
}
