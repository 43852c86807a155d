import WireCore

/// The six-digit pairing code (PAIR-CODE-001): a string of ASCII digits, leading zeros kept.
public enum PairingCode {
    public static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        return bytes.count == 6 && bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    public static func check(_ text: String, at path: JSONPointer) throws(Violation) {
        guard isValid(text) else {
            throw Violation(rule: PairingRule.code, path: path, expected: "six ASCII digits", found: JSONSerializer.quoted(text))
        }
    }

    /// Reads a code member: a JSON string (CORE-TYPE-003 otherwise, e.g. the number 123456) of six ASCII digits.
    public static func read(_ reader: ObjectReader, _ key: String) throws(Violation) -> String {
        let code = try reader.string(key)
        try check(code, at: reader.pointer(key))
        return code
    }

    /// Largest multiple of 10^6 not above 2^32: words at or above it are discarded, so that
    /// every code is equally likely (Spec pairing.md 4.2, "Drawing a code").
    static let rejectionBound: UInt32 = 4_294_000_000

    /// Draws a code from random bytes, four at a time, big-endian. Nil when the source runs out.
    public static func draw<R: RandomByteSource>(from source: inout R) -> String? {
        while let bytes = source.next(4) {
            let word = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if word < rejectionBound {
                return String(word % 1_000_000).leftPadded(to: 6)
            }
        }
        return nil
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    /// Blank as Kotlin's `isBlank`: empty or only Unicode White_Space.
    var isBlank: Bool {
        unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }
}
