/// A strict RFC 8259 / I-JSON (RFC 7493) parser over bytes. It rejects what lenient
/// parsers silently accept (duplicate names, invalid UTF-8, lone surrogates, a byte order
/// mark, trailing data) and reports the first problem as a `Violation` with the JSON
/// Pointer of the place and its byte offset.
public enum JSONParser {
    public static func parse(_ bytes: [UInt8], limits: JSONLimits = .standard) throws(Violation) -> JSONValue {
        if let tooLarge = sizeViolation(bytes.count, limits: limits) { throw tooLarge }
        let result: Result<JSONValue, Violation> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer, limits: limits)
            do throws(Violation) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The violation of a document of `count` bytes, if that is over the limit: a caller that
    /// can learn the size before reading (a file's) refuses it without reading it.
    public static func sizeViolation(_ count: Int, limits: JSONLimits) -> Violation? {
        guard count > limits.maxBytes else { return nil }
        return Violation(
            rule: CoreRule.size, path: .root, byteOffset: limits.maxBytes, expected: "at most \(limits.maxBytes) bytes", found: "\(count) bytes")
    }

    public static func parse(_ text: String, limits: JSONLimits = .standard) throws(Violation) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }
}

private enum PathToken {
    case key(String)
    case index(Int)
}

private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    var index = 0
    var depth = 0
    /// Where the top-level value starts.
    var firstValue = 0
    var path: [PathToken] = []
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    var pointer: JSONPointer {
        JSONPointer(tokens: path.map {
            switch $0 {
            case .key(let k): return k
            case .index(let i): return String(i)
            }
        })
    }

    func fail(_ rule: RuleID, _ expected: String, _ found: String? = nil, at offset: Int? = nil) -> Violation {
        let at = offset ?? index
        return Violation(
            rule: rule, path: pointer, byteOffset: at, expected: expected, found: found ?? describeByte(at: at))
    }

    func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let b = bytes[offset]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true).leftPadded(to: 2)
    }

    mutating func parseDocument() throws(Violation) -> JSONValue {
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            throw fail(CoreRule.syntax, "a JSON value", "a UTF-8 byte order mark", at: 0)
        }
        skipWhitespace()
        firstValue = index
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw fail(CoreRule.syntax, "end of input after the top-level value")
        }
        return value
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(Violation) -> JSONValue {
        guard index < bytes.count else { throw fail(CoreRule.syntax, "a JSON value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail(CoreRule.syntax, depth == 0 ? Self.notJSON : "a JSON value")
        }
    }

    /// What is expected when the document itself does not start as JSON (a YAML or text file
    /// handed over by mistake): said first, before any detail.
    static let notJSON = "a JSON document (this is not JSON: it must start with {, [, \", a number, true, false or null)"

    mutating func expectLiteral(_ word: StaticString) throws(Violation) {
        let start = index
        let count = word.utf8CodeUnitCount
        let base = word.utf8Start
        for i in 0..<count {
            guard start + i < bytes.count, bytes[start + i] == base[i] else {
                throw fail(CoreRule.syntax, depth == 0 && start == firstValue ? Self.notJSON : "the literal \(word)", at: start + i)
            }
        }
        index = start + count
    }

    mutating func enterContainer() throws(Violation) {
        depth += 1
        if depth > limits.maxDepth {
            throw fail(CoreRule.depth, "nesting depth at most \(limits.maxDepth)", "depth \(depth)")
        }
    }

    mutating func parseObject() throws(Violation) -> JSONValue {
        try enterContainer()
        index += 1
        var members: [JSONObject.Member] = []
        // Small objects (almost all) compare names directly; a set pays off only for large ones.
        // It is filled once, when the object passes 16 members, and then grows in place.
        var seen = Set<ByteString>()
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject(members))
        }
        // Most objects are small: one allocation instead of growing through 1, 2, 4.
        members.reserveCapacity(4)
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail(CoreRule.syntax, "a member name in double quotes")
            }
            let keyOffset = index
            let key = try parseString()
            path.append(.key(key))
            let repeated: Bool
            // Names compare byte for byte (RFC 8259 8.3): `é` and `e` + U+0301 are two names.
            if !seen.isEmpty {
                repeated = !seen.insert(ByteString(key)).inserted
            } else if members.count >= 16 {
                seen = Set(members.map { ByteString($0.key) })
                repeated = !seen.insert(ByteString(key)).inserted
            } else {
                repeated = members.contains { $0.key.bytesEqual(key) }
            }
            if repeated {
                throw fail(CoreRule.duplicateKey, "member names unique within an object", "a second \"\(key)\"", at: keyOffset)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail(CoreRule.syntax, "':' after a member name")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONObject.Member(key: key, value: value))
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw fail(CoreRule.syntax, "',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(JSONObject(members))
            }
            throw fail(CoreRule.syntax, "',' or '}'")
        }
    }

    mutating func parseArray() throws(Violation) -> JSONValue {
        try enterContainer()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            path.append(.index(elements.count))
            skipWhitespace()
            elements.append(try parseValue())
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw fail(CoreRule.syntax, "',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            }
            throw fail(CoreRule.syntax, "',' or ']'")
        }
    }

    mutating func parseNumber() throws(Violation) -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw fail(CoreRule.syntax, "a digit")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count && isDigit(bytes[index]) {
                throw fail(CoreRule.syntax, "no leading zero in a number", "a digit after a leading 0")
            }
        } else {
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        var isPlainInteger = true
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            isPlainInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail(CoreRule.syntax, "a digit after '.'") }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            isPlainInteger = false
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail(CoreRule.syntax, "a digit in the exponent") }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // Short plain integers are always finite; everything else is checked against the double range.
        if !isPlainInteger || index - start > 300 {
            if let d = Double(literal), !d.isFinite {
                throw fail(CoreRule.numberRange, "a number within the IEEE 754 double range", literal, at: start)
            }
        }
        return JSONNumber(literal: literal)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    mutating func parseString() throws(Violation) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes, ASCII or valid multi-byte UTF-8.
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw fail(CoreRule.syntax, "control characters escaped inside a string") }
            if b < 0x80 { index += 1 } else { index += try utf8SequenceLength(at: index) }
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") {
                try parseEscape()
            } else if b < 0x20 {
                throw fail(CoreRule.syntax, "control characters escaped inside a string")
            } else if b < 0x80 {
                scratch.append(b)
                index += 1
            } else {
                let n = try utf8SequenceLength(at: index)
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + n]))
                index += n
            }
        }
        throw fail(CoreRule.syntax, "a closing '\"'")
    }

    mutating func parseEscape() throws(Violation) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw fail(CoreRule.syntax, "an escape character") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var unit = try parseHex4()
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw fail(CoreRule.unicode, "a low surrogate escape after a high surrogate", "a lone high surrogate", at: escapeStart)
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail(CoreRule.unicode, "a low surrogate escape after a high surrogate", "a lone high surrogate", at: escapeStart)
                }
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw fail(CoreRule.unicode, "a Unicode scalar value", "a lone low surrogate", at: escapeStart)
            }
            // Every value here is a scalar: surrogates were combined or rejected above.
            scratch.append(contentsOf: String(Character(Unicode.Scalar(unit)!)).utf8)
        default:
            throw fail(CoreRule.syntax, "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", at: index - 1)
        }
    }

    mutating func parseHex4() throws(Violation) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw fail(CoreRule.syntax, "four hex digits after \\u") }
            let b = bytes[index]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw fail(CoreRule.syntax, "four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Length of the well-formed UTF-8 sequence at `offset` (Unicode Table 3-7), or a violation.
    func utf8SequenceLength(at offset: Int) throws(Violation) -> Int {
        let b0 = bytes[offset]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default:
            throw fail(CoreRule.unicode, "valid UTF-8", "byte 0x" + String(b0, radix: 16, uppercase: true), at: offset)
        }
        for i in 1..<length {
            let at = offset + i
            guard at < bytes.count else {
                throw fail(CoreRule.unicode, "valid UTF-8", "a truncated UTF-8 sequence", at: offset)
            }
            let b = bytes[at]
            let lo: UInt8 = i == 1 ? lower : 0x80
            let hi: UInt8 = i == 1 ? upper : 0xBF
            guard b >= lo && b <= hi else {
                throw fail(CoreRule.unicode, "valid UTF-8", "an ill-formed UTF-8 sequence", at: offset)
            }
        }
        return length
    }
}

extension String {
    /// The string padded on the left to `width` characters (codes and hex digits keep their zeros).
    public func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
