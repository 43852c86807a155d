/// Turns `JSONValue`s back into text. Two forms:
/// - `compact`: members in their order, number literals exactly as parsed, no whitespace;
/// - `canonical`: RFC 8785 (JCS): members sorted by UTF-16 code units, numbers in their
///   ECMAScript shortest form. Canonical text is what the Spec means by "encoded canonically".
public enum JSONSerializer {
    public static func compact(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, canonical: false)
        return out
    }

    public static func canonical(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, canonical: true)
        return out
    }

    /// Multi-line form for people (reports, `conformance check --format json`): canonical order, two-space indent.
    public static func pretty(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .array(let a) where !a.isEmpty:
            return "[\n" + a.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let o) where !o.members.isEmpty:
            return "{\n"
                + o.members.map { inner + quoted($0.key) + ": " + pretty($0.value, indent: inner) }
                .joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return compact(value)
        }
    }

    static func write(_ value: JSONValue, into out: inout String, canonical: Bool) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += canonical ? ecmaScriptText(n) : n.literal
        case .string(let s): appendQuoted(s, into: &out)
        case .array(let a):
            out += "["
            for (i, element) in a.enumerated() {
                if i > 0 { out += "," }
                write(element, into: &out, canonical: canonical)
            }
            out += "]"
        case .object(let o):
            out += "{"
            let members = canonical
                ? o.members.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) } : o.members
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                appendQuoted(member.key, into: &out)
                out += ":"
                write(member.value, into: &out, canonical: canonical)
            }
            out += "}"
        }
    }

    public static func quoted(_ s: String) -> String {
        var out = ""
        appendQuoted(s, into: &out)
        return out
    }

    static func appendQuoted(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// ECMAScript Number::toString of the literal's double value (RFC 8785 section 3.2.2.3).
    static func ecmaScriptText(_ number: JSONNumber) -> String {
        if let i = number.int64, abs(i) < (1 << 53) { return String(i) }
        guard let d = number.double, d.isFinite else { return number.literal }
        if d == 0 { return "0" }
        // Swift's description gives the shortest round-trip digits; re-lay them out per ECMAScript.
        let sign = d < 0 ? "-" : ""
        let text = String(describing: abs(d))
        let mantissa: Substring
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...]) ?? 0
        } else {
            mantissa = Substring(text)
        }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let intPart = String(parts[0])
        let fracPart = parts.count > 1 ? String(parts[1]) : ""
        var digits = intPart + fracPart
        var n = intPart.count + exponent  // value = 0.digits × 10^n
        while digits.hasPrefix("0") && digits.count > 1 {
            digits.removeFirst()
            n -= 1
        }
        while digits.hasSuffix("0") && digits.count > 1 { digits.removeLast() }
        let k = digits.count
        if k <= n && n <= 21 {
            return sign + digits + String(repeating: "0", count: n - k)
        }
        if 0 < n && n <= 21 {
            let i = digits.index(digits.startIndex, offsetBy: n)
            return sign + digits[..<i] + "." + digits[i...]
        }
        if -6 < n && n <= 0 {
            return sign + "0." + String(repeating: "0", count: -n) + digits
        }
        let e = n - 1
        let expText = (e >= 0 ? "+" : "-") + String(abs(e))
        if k == 1 { return sign + digits + "e" + expText }
        return sign + String(digits.prefix(1)) + "." + String(digits.dropFirst()) + "e" + expText
    }
}
