import WireCore

/// The six-digit pairing code (PAIR-CODE-001): a string of ASCII digits, leading zeros kept.
public enum PairingCode {
    public static func isValid(_ text: String) -> Bool { SixDigitCode.isValid(text) }

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

    /// Draws a code from random bytes (Spec pairing.md 4.2, "Drawing a code"). Nil when the source runs out.
    public static func draw<R: RandomByteSource>(from source: inout R) -> String? { SixDigitCode.draw(from: &source) }
}

extension String {
    /// Blank as Kotlin's `isBlank`: empty or only Unicode White_Space.
    var isBlank: Bool {
        unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }

    /// The rest after `prefix`, compared by code points. `hasPrefix` compares grapheme clusters, so a
    /// combining mark right after the prefix would hide it; other platforms' `startsWith` do not.
    func afterScalarPrefix(_ prefix: String) -> Substring.UnicodeScalarView? {
        let scalars = unicodeScalars
        guard scalars.starts(with: prefix.unicodeScalars) else { return nil }
        return scalars.dropFirst(prefix.unicodeScalars.count)
    }
}
