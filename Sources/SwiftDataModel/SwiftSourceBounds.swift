@_spi(Testing) @_spi(ExperimentalLanguageFeatures) import SwiftParser
@_spi(RawSyntax) import SwiftSyntax

/// What the reader refuses before swift-syntax's parser sees a byte (Spec security.md, "Swift
/// sources"). The parser recurses once per level of nesting, and only its statement level is
/// bounded (`Parser.maximumNestingLevel`): a generic argument nested 1000 deep in 7 KB overflows
/// the stack; a single-line string left open inside N nested interpolations costs time in N³
/// (861 bytes, a minute); its look-ahead for a type inside `[` backtracks, doubling its time
/// with each level. One pass over swift-syntax's own lexer's tokens finds all three (a scan of
/// its own once lost track of a malformed string and let 22 `[` through), so the parser only
/// ever reads what it reads in linear time.
public enum SwiftSourceBounds {
    /// The largest Swift file read: real model files are tens of KB.
    public static let maxBytes = 4 << 20
    /// Brackets, generic arguments, string literals and their interpolations, counted together.
    public static let maxNesting = 64
    /// Square brackets within square brackets: the parser's look-ahead for a type inside `[`
    /// (an inline array, `[N of T]`) backtracks, so its time doubles with each level
    /// (`[(x, ` nested 16 deep, 10 s; `[[` 20 deep, 30 s). Model code nests two or three.
    public static let maxSquareNesting = 8
    static let squareReason = "square brackets nested more than \(maxSquareNesting) deep (the parser's time doubles with each)"

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
        if let problem = squaresInText(bytes) { return problem }
        var scan = Scan(bytes)
        return scan.run()
    }

    /// `[` nested in the text itself, strings and comments included: the parser's recovery from a
    /// malformed string reads on as code what the lexer took for the string's text (a fuzzed
    /// file hid 22 `[` so), so the brackets it meets may be any of them. A `]` ends the
    /// innermost; one with nothing open counts for nothing.
    static func squaresInText(_ bytes: [UInt8]) -> Problem? {
        var depth = 0, line = 1
        for byte in bytes {
            switch byte {
            case 0x0A: line += 1
            case UInt8(ascii: "["):
                depth += 1
                if depth > maxSquareNesting {
                    return Problem(line: line, reason: squareReason)
                }
            case UInt8(ascii: "]"): depth = max(0, depth - 1)
            default: break
            }
        }
        return nil
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

    /// Nesting as the parser will meet it, from the lexer's tokens: brackets, the interpolations
    /// of string literals, and `<` right after a name (a generic argument list; a comparison
    /// taken so costs a level until its enclosing bracket closes).
    struct Scan {
        enum Frame: Equatable {
            case bracket(RawTokenKind)
            /// `<`, as a generic argument list.
            case angle
            /// A string literal, opened by this quote; `multiline` strings may span lines.
            case string(RawTokenKind)
            /// `\(` inside a string: ends at its `)`.
            case interpolation
        }

        let bytes: [UInt8]
        var frames: [Frame] = []
        /// The `[` among `frames`.
        var squares = 0
        var line = 1

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func run() -> Problem? {
            bytes.withUnsafeBufferPointer { buffer in
                var tracker = LookaheadTracker()
                return withUnsafeMutablePointer(to: &tracker) { tracker in
                    var lexemes = Lexer.tokenize(buffer, lookaheadTracker: tracker, experimentalFeatures: [])
                    var previous: RawTokenKind?
                    while let lexeme = lexemes.next() {
                        if lexeme.flags.contains(.isAtStartOfLine), let problem = lineEnded() { return problem }
                        line += lexeme.leadingTriviaText.filter { $0 == UInt8(ascii: "\n") }.count
                        if lexeme.rawTokenKind == .endOfFile { return nil }
                        if let problem = token(lexeme.rawTokenKind, text: lexeme.tokenText, after: previous, spaced: !lexeme.leadingTriviaText.isEmpty) { return problem }
                        line += lexeme.tokenText.filter { $0 == UInt8(ascii: "\n") }.count + lexeme.trailingTriviaText.filter { $0 == UInt8(ascii: "\n") }.count
                        previous = lexeme.rawTokenKind
                    }
                    return nil
                }
            }
        }

        mutating func push(_ frame: Frame) -> Problem? {
            frames.append(frame)
            if frame == .bracket(.leftSquare) {
                squares += 1
                guard squares <= SwiftSourceBounds.maxSquareNesting else {
                    return Problem(line: line, reason: SwiftSourceBounds.squareReason)
                }
            }
            guard frames.count <= SwiftSourceBounds.maxNesting else {
                return Problem(line: line, reason: "nested more than \(SwiftSourceBounds.maxNesting) deep (brackets, generic arguments and string interpolations together)")
            }
            return nil
        }

        /// Pops frames down to and including the `k`th.
        mutating func pop(to k: Int) {
            squares -= frames[k...].filter { $0 == .bracket(.leftSquare) }.count
            frames.removeSubrange(k...)
        }

        /// A line ended: a single-line string (or an interpolation inside one) still open is
        /// left unclosed, as the lexer ends it there.
        func lineEnded() -> Problem? {
            for frame in frames.reversed() {
                guard case .string(let quote) = frame else { continue }
                return quote == .multilineStringQuote ? nil : Problem(line: line, reason: "a string literal not closed on its line")
            }
            return nil
        }

        mutating func token(_ kind: RawTokenKind, text: SyntaxText, after previous: RawTokenKind?, spaced: Bool) -> Problem? {
            switch kind {
            case .stringQuote, .singleQuote, .multilineStringQuote:
                // The quote that closes the string directly around it, else one that opens.
                if frames.last == .string(kind) {
                    frames.removeLast()
                    return nil
                }
                return push(.string(kind))
            case .leftParen where previous == .backslash && isInString:
                return push(.interpolation)
            case .leftParen, .leftSquare, .leftBrace:
                return push(.bracket(kind))
            case .rightParen, .rightSquare, .rightBrace:
                close(kind)
            case .binaryOperator, .prefixOperator, .postfixOperator:
                if text.allSatisfy({ $0 == UInt8(ascii: "<") }), !spaced, previous == .identifier || previous == .keyword {
                    for _ in 0..<text.count { if let problem = push(.angle) { return problem } }
                } else if text.allSatisfy({ $0 == UInt8(ascii: ">") }) {
                    for _ in 0..<text.count where frames.last == .angle { frames.removeLast() }
                }
            case .leftAngle:
                return push(.angle)
            case .rightAngle:
                if frames.last == .angle { frames.removeLast() }
            default:
                break
            }
            return nil
        }

        /// Whether the innermost literal context is a string (not code inside an interpolation).
        var isInString: Bool {
            if case .string? = frames.last { return true }
            return false
        }

        /// A closer ends the innermost frame it matches, dropping the `<` taken for generics
        /// above it; one that matches nothing open is the parser's to report.
        mutating func close(_ kind: RawTokenKind) {
            let opener: RawTokenKind = kind == .rightParen ? .leftParen : kind == .rightSquare ? .leftSquare : .leftBrace
            var k = frames.count - 1
            while k >= 0, frames[k] == .angle { k -= 1 }
            guard k >= 0 else { return }
            if frames[k] == .bracket(opener) || (frames[k] == .interpolation && kind == .rightParen) { pop(to: k) }
        }
    }
}
