import WireCore

/// DIDs (PAIR-DID-001): W3C DID Core §3.1 syntax, any lower-case method, and for `did:key`
/// the base58btc multibase value the real phones send (`did:key:z6Mk...`, Ed25519).
public enum DID {
    public static let maxLength = 256
    /// The base58btc alphabet (no 0, O, I, l).
    static let base58 = Set("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)

    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxLength, bytes.starts(with: Array("did:".utf8)) else { return false }
        let rest = bytes.dropFirst(4)
        guard let colon = rest.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let method = rest[..<colon]
        guard !method.isEmpty, method.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }) else { return false }
        let id = rest[(colon + 1)...]
        guard isMethodSpecificID(id) else { return false }
        if Array(method) == Array("key".utf8) {
            // did:key: a multibase value, base58btc ("z"), as every real client's key is encoded.
            guard id.first == UInt8(ascii: "z"), id.count > 1, id.dropFirst().allSatisfy(base58.contains) else { return false }
        }
        return true
    }

    /// One or more `:`-separated segments of idchars (`A-Z a-z 0-9 . - _`) or `%XX`.
    static func isMethodSpecificID(_ id: ArraySlice<UInt8>) -> Bool {
        guard !id.isEmpty else { return false }
        var segmentLength = 0
        var i = id.startIndex
        while i < id.endIndex {
            let b = id[i]
            if b == UInt8(ascii: ":") {
                guard segmentLength > 0 else { return false }
                segmentLength = 0
            } else if b == UInt8(ascii: "%") {
                guard i + 2 < id.endIndex, isHex(id[i + 1]), isHex(id[i + 2]) else { return false }
                i += 2
                segmentLength += 1
            } else if isIDChar(b) {
                segmentLength += 1
            } else {
                return false
            }
            i += 1
        }
        return segmentLength > 0
    }

    static func isIDChar(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    static func isHex(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }

    public static func read(_ reader: ObjectReader, _ key: String) throws(Violation) -> String {
        let did = try reader.string(key)
        guard isValid(did) else {
            throw Violation(
                rule: PairingRule.did, path: reader.pointer(key), expected: "a DID (did:METHOD:ID; did:key: base58btc)", found: JSONSerializer.quoted(did))
        }
        return did
    }
}
