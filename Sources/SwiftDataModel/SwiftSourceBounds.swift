/// What the reader refuses before swift-syntax's parser sees a byte (Spec security.md, "Swift
/// sources"). The parser recurses once per level of nesting, and only its statement level is
/// bounded (`Parser.maximumNestingLevel`): a generic argument nested 1000 deep in 7 KB overflows
/// the stack, and a single-line string left open inside N nested interpolations costs time in N³
/// (861 bytes, a minute). One linear pass over the bytes finds both, so the parser only ever
/// reads what it reads in linear time.
public enum SwiftSourceBounds {
    /// The largest Swift file read: real model files are tens of KB.
    public static let maxBytes = 4 << 20
    /// Brackets, generic arguments, string literals and their interpolations, counted together.
    public static let maxNesting = 64
    /// Square brackets within square brackets: the parser's look-ahead for a type inside `[`
    /// (an inline array, `[N of T]`) backtracks, so its time doubles with each level
    /// (`[(x, ` nested 16 deep, 10 s; `[[` 20 deep, 30 s). Model code nests two or three.
    public static let maxSquareNesting = 8

    /// Why a source is not read: the line (1-based) and what is wrong there.
    public struct Problem: Error, Sendable, Equatable {
        public var line: Int
        public var reason: String
    }

    /// The first problem of `bytes`, or nil when the parser may read them.
    public static func problem(in bytes: [UInt8]) -> Problem? {
        guard bytes.count <= maxBytes else {
            return Problem(line: 1, reason: "\(bytes.count) bytes, more than the \(maxBytes) a Swift source may have")
        }
        if let problem = encodingProblem(bytes) { return problem }
        var scan = Scan(bytes)
        return scan.run()
    }

    /// Invalid UTF-8 or a NUL byte: Swift sources are UTF-8 text.
    static func encodingProblem(_ bytes: [UInt8]) -> Problem? {
        var line = 1
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1 {
                    if encoded.first == 0x0A { line += 1 }
                    if encoded.first == 0 { return Problem(line: line, reason: "a NUL byte at byte \(offset)") }
                }
                offset += encoded.count
            case .error:
                return Problem(line: line, reason: "invalid UTF-8 at byte \(offset)")
            case .emptyInput:
                return nil
            }
        }
    }

    /// The lexer's view of nesting, reduced to what bounds the parser's depth: comments are
    /// skipped, string literals (raw, multi-line) and their interpolations are followed, and a
    /// `<` right after a name is taken as a generic argument list (a comparison taken so costs
    /// a level only until its enclosing bracket closes).
    struct Scan {
        enum Frame: Equatable {
            case bracket(UInt8)
            /// `\(` inside a string: ends at its `)`.
            case interpolation
            case string(hashes: Int, quote: UInt8, multiline: Bool)
        }

        let bytes: [UInt8]
        var i = 0
        var line = 1
        var frames: [Frame] = []
        /// The `[` among `frames`.
        var squares = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func at(_ k: Int) -> UInt8? { k < bytes.count ? bytes[k] : nil }

        mutating func push(_ frame: Frame) -> Problem? {
            frames.append(frame)
            if frame == .bracket(UInt8(ascii: "[")) {
                squares += 1
                guard squares <= SwiftSourceBounds.maxSquareNesting else {
                    return Problem(line: line, reason: "square brackets nested more than \(SwiftSourceBounds.maxSquareNesting) deep (the parser's time doubles with each)")
                }
            }
            guard frames.count <= SwiftSourceBounds.maxNesting else {
                return Problem(line: line, reason: "nested more than \(SwiftSourceBounds.maxNesting) deep (brackets, generic arguments and string interpolations together)")
            }
            return nil
        }

        mutating func run() -> Problem? {
            while i < bytes.count {
                let problem: Problem?
                if case .string(let hashes, let quote, let multiline)? = frames.last {
                    problem = stringByte(hashes: hashes, quote: quote, multiline: multiline)
                } else {
                    problem = codeByte()
                }
                if let problem { return problem }
            }
            // An open multi-line string or bracket at the end is the parser's to report: it
            // costs it no more than its length.
            return nil
        }

        /// One step inside a string literal.
        mutating func stringByte(hashes: Int, quote: UInt8, multiline: Bool) -> Problem? {
            let byte = bytes[i]
            if byte == 0x0A {
                guard multiline else { return Problem(line: line, reason: "a string literal not closed on its line") }
                line += 1
                i += 1
                return nil
            }
            if byte == UInt8(ascii: "\\"), delimited(after: i + 1, hashes: hashes) {
                let next = i + 1 + hashes
                if at(next) == UInt8(ascii: "(") {
                    i = next + 1
                    return push(.interpolation)
                }
                // An escaped character (a newline after `\` continues a multi-line string).
                i = next
                if at(i) == 0x0A { line += 1 }
                if i < bytes.count { i += 1 }
                return nil
            }
            if byte == quote {
                let closing = multiline ? 3 : 1
                if (0..<closing).allSatisfy({ at(i + $0) == quote }), delimited(after: i + closing, hashes: hashes) {
                    i += closing + hashes
                    frames.removeLast()
                    return nil
                }
            }
            i += 1
            return nil
        }

        /// Whether `hashes` `#` follow at `k` (a raw string's delimiter).
        func delimited(after k: Int, hashes: Int) -> Bool {
            (0..<hashes).allSatisfy { at(k + $0) == UInt8(ascii: "#") }
        }

        /// One step of code (outside string literals, or inside an interpolation).
        mutating func codeByte() -> Problem? {
            let byte = bytes[i]
            switch byte {
            case 0x0A:
                // A single-line string's interpolation ends at the line's end, as the lexer's does.
                if let problem = openSingleLineString() { return problem }
                line += 1
                i += 1
            case UInt8(ascii: "/") where at(i + 1) == UInt8(ascii: "/"):
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
            case UInt8(ascii: "/") where at(i + 1) == UInt8(ascii: "*"):
                skipBlockComment()
            case UInt8(ascii: "#"), UInt8(ascii: "\""), UInt8(ascii: "'"):
                var hashes = 0
                while at(i + hashes) == UInt8(ascii: "#") { hashes += 1 }
                guard let quote = at(i + hashes), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    i += max(hashes, 1)
                    return nil
                }
                let multiline = quote == UInt8(ascii: "\"") && at(i + hashes + 1) == quote && at(i + hashes + 2) == quote
                i += hashes + (multiline ? 3 : 1)
                return push(.string(hashes: hashes, quote: quote, multiline: multiline))
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                i += 1
                return push(.bracket(byte))
            case UInt8(ascii: "<"):
                let afterName = i > 0 && Self.isNameByte(bytes[i - 1])
                let operatorFollows = at(i + 1) == UInt8(ascii: "<") || at(i + 1) == UInt8(ascii: "=")
                i += 1
                if afterName && !operatorFollows { return push(.bracket(byte)) }
            case UInt8(ascii: ">"):
                if frames.last == .bracket(UInt8(ascii: "<")) { frames.removeLast() }
                i += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                close(byte)
                i += 1
            default:
                i += 1
            }
            return nil
        }

        /// A closer ends the innermost frame it matches, dropping the `<` taken for generics
        /// above it; one that matches nothing open is the parser's to report.
        mutating func close(_ byte: UInt8) {
            let opener: UInt8 = byte == UInt8(ascii: ")") ? UInt8(ascii: "(") : byte == UInt8(ascii: "]") ? UInt8(ascii: "[") : UInt8(ascii: "{")
            var k = frames.count - 1
            while k >= 0, frames[k] == .bracket(UInt8(ascii: "<")) { k -= 1 }
            guard k >= 0 else { return }
            if frames[k] == .bracket(opener) || (frames[k] == .interpolation && byte == UInt8(ascii: ")")) {
                squares -= frames[k...].filter { $0 == .bracket(UInt8(ascii: "[")) }.count
                frames.removeSubrange(k...)
            }
        }

        /// A newline reached inside an interpolation of a single-line string ends that string
        /// unclosed.
        func openSingleLineString() -> Problem? {
            for frame in frames.reversed() {
                if case .string(_, _, let multiline) = frame {
                    return multiline ? nil : Problem(line: line, reason: "a string literal not closed on its line")
                }
            }
            return nil
        }

        /// `/* ... */`, nested as Swift nests them.
        mutating func skipBlockComment() {
            var depth = 0
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "/"), at(i + 1) == UInt8(ascii: "*") {
                    depth += 1
                    i += 2
                } else if bytes[i] == UInt8(ascii: "*"), at(i + 1) == UInt8(ascii: "/") {
                    depth -= 1
                    i += 2
                    if depth == 0 { return }
                } else {
                    if bytes[i] == 0x0A { line += 1 }
                    i += 1
                }
            }
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte >= 0x80
        }
    }
}
