import WireCore

/// DIDs of the `cc` method (PAIR-DID-001), W3C DID Core §3.1 syntax.
public enum DID {
    public static let prefix = "did:cc:"
    public static let maxLength = 256

    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxLength, text.afterScalarPrefix(prefix) != nil else { return false }
        let id = bytes.dropFirst(prefix.utf8.count)
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
            throw Violation(rule: PairingRule.did, path: reader.pointer(key), expected: "a did:cc: DID", found: JSONSerializer.quoted(did))
        }
        return did
    }
}
