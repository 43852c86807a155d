/// Lower-case hexadecimal, the form digests and binary fields take in vectors and reports.
extension Sequence where Element == UInt8 {
    public var hexEncoded: String {
        var out = ""
        for byte in self {
            out.append(Hex.digits[Int(byte >> 4)])
            out.append(Hex.digits[Int(byte & 0x0F)])
        }
        return out
    }
}

public enum Hex {
    static let digits = Array("0123456789abcdef")

    /// The bytes of a hex string (either case), or nil when it is not one.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chars.count / 2)
        for i in stride(from: 0, to: chars.count, by: 2) {
            guard let hi = value(chars[i]), let lo = value(chars[i + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        return bytes
    }

    public static func isDigit(_ c: UInt8) -> Bool { value(c) != nil }

    static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
