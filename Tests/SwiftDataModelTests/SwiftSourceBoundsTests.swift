import SwiftDataModel
import Testing

/// What the reader refuses before the parser reads a byte, and what it must still read (Spec
/// security.md, "Swift sources"). Each hostile input here crashed `conformance check` (a stack
/// overflow in the parser), took a minute, or was judged `ok` with its declarations unread.
@Suite("Swift sources: the reader's bounds")
struct SwiftSourceBoundsTests {
    static func refusal(_ text: String) -> SwiftDataModelReader.SourceError? {
        refusal(bytes: Array(text.utf8))
    }

    static func refusal(bytes: [UInt8]) -> SwiftDataModelReader.SourceError? {
        do {
            _ = try SwiftDataModelReader.read([.init(name: "M.swift", bytes: bytes)])
            return nil
        } catch {
            return error
        }
    }

    static let nested = "nested more than 64 deep (brackets, generic arguments and string interpolations together)"

    /// 7 KB that overflowed the parser's stack; 4 KB of arrays; an unclosed generic.
    @Test func deepTypesAreRefusedBeforeTheParser() {
        let generic = "@Model final class A {\n  var x: " + String(repeating: "Array<", count: 1000) + "Int" + String(repeating: ">", count: 1000) + "\n}\n"
        let arrays = "@Model final class A {\n  var x: " + String(repeating: "[", count: 2000) + "Int" + String(repeating: "]", count: 2000) + "\n}\n"
        let unclosed = "@Model final class A {\n  var x: " + String(repeating: "Array<", count: 1000) + "Int\n}\n"
        for source in [generic, unclosed] {
            #expect(Self.refusal(source) == .init(file: "M.swift", line: 2, reason: Self.nested))
        }
        #expect(Self.refusal(arrays)?.reason == "square brackets nested more than 8 deep (the parser's time doubles with each)")
    }

    /// The deepest nesting read is 64: one more level is refused.
    @Test func sixtyFourLevelsAreRead() throws {
        func source(_ depth: Int) -> String {
            // The class body is one level; `Array<` adds one a step.
            "@Model final class A {\n  var x: " + String(repeating: "Array<", count: depth - 1) + "Int" + String(repeating: ">", count: depth - 1) + "\n}\n"
        }
        #expect(Self.refusal(source(64)) == nil)
        #expect(Self.refusal(source(65)) == .init(file: "M.swift", line: 2, reason: Self.nested))
    }

    /// Square brackets cost the parser time doubling with each level (found by the swift-model
    /// fuzz target: 54 open `[` in 282 bytes ran past libFuzzer's 10 s): eight levels are read,
    /// nine refused, whatever stands between them.
    @Test func squareBracketsNestEightDeep() {
        func source(_ open: String, _ close: String, _ depth: Int) -> String {
            "@Model final class A {\n  func f() { let a = " + String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth) + " }\n}\n"
        }
        let square = "square brackets nested more than 8 deep (the parser's time doubles with each)"
        for (open, close) in [("[", "]"), ("[(x, ", ")]"), ("[ (", ")]")] {
            #expect(Self.refusal(source(open, close, 8)) == nil, "\(open)")
            #expect(Self.refusal(source(open, close, 9)) == .init(file: "M.swift", line: 2, reason: square), "\(open)")
        }
        // Round brackets and generic arguments cost it nothing of the kind.
        #expect(Self.refusal(source("(", ")", 40)) == nil)
        // What the parser's recovery reads as code inside a malformed string counts too (the
        // fuzzed file: the lexer took its 22 `[` for a string's text; it ran past 10 s).
        let hidden = "@Model final class A {\n  var s = \"\"\": x\n  \\([\"a\"\n  \"\"\"\n  var" + String(repeating: "[", count: 22) + " b: Int\n}\n"
        #expect(Self.refusal(hidden) == .init(file: "M.swift", line: 5, reason: square))
        // And a `]` in a string closes no bracket of the code around it.
        #expect(Self.refusal(source("[\"]\", ", "]", 9)) == .init(file: "M.swift", line: 2, reason: square))
    }

    /// 861 bytes that took the parser a minute (time in N³ of the open interpolations), and the
    /// same open string only 16 deep, a hundred times over (a second in a debug build).
    @Test func openInterpolatedStringsAreRefused() {
        let deep = "@Model final class A {\n var s: String = \"" + String(repeating: "\\(", count: 400) + "\n}\n"
        #expect(Self.refusal(deep) == .init(file: "M.swift", line: 2, reason: Self.nested))
        let wide = "@Model final class A {\n" + String(repeating: " var s: String = \"" + String(repeating: "\\(", count: 16) + "\n", count: 100) + "}\n"
        #expect(Self.refusal(wide) == .init(file: "M.swift", line: 2, reason: "a string literal not closed on its line"))
    }

    @Test func encodingAndUnreadDeclarationsAreRefused() {
        #expect(Self.refusal(bytes: Array("@Model final class A {\n  var n".utf8) + [0xFF, 0xFE] + Array(": String = \"\"\n}\n".utf8))
            == .init(file: "M.swift", line: 2, reason: "invalid UTF-8 at byte 30"))
        #expect(Self.refusal(bytes: Array("@Model final class A {\n  var n: String = \"\"".utf8) + [0] + Array("\n}\n".utf8))
            == .init(file: "M.swift", line: 2, reason: "a NUL byte at byte 43"))
        #expect(Self.refusal("@Model final class A {\n  var n: String = \"abc\n}\n") == .init(file: "M.swift", line: 2, reason: "a string literal not closed on its line"))
        // A syntax error the bounds let through is the parser's, with its line: never `ok`.
        // (A missing part is placed where it was due: after the last token before it.)
        #expect(Self.refusal("@Model final class A {\n  var n: String =\n}\n") == .init(file: "M.swift", line: 2, reason: "expected an expression"))
        #expect(Self.refusal("@Model final class A {\n  var n: String = \"\"\n") == .init(file: "M.swift", line: 2, reason: "expected '}'"))
        #expect(Self.refusal("@Model final class A {\n  var n: Int = 1 \u{1B}[2J\n}\n") == .init(file: "M.swift", line: 2, reason: "invalid character near '1 \\u{1B}'"))
    }

    /// What real model files hold is read: strings of every form with their interpolations,
    /// comments holding quotes and brackets, generics, comparisons.
    @Test func everyStringFormAndCommentIsRead() throws {
        let source = #"""
            import SwiftData
            // "an unclosed quote in a comment", and ((( [[[
            /* a block /* nested */ comment with " and \( */
            @Model final class Trip {
                var name: String = "a \"quoted\" \(1 + (2 * 3)) \\"
                var raw: String = #"raw \( not interpolated "# + #"raw \#(1) interpolated"#
                var multi: String = """
                    lines with " and "" and \(["a": [1]].count)
                    """
                var tags: Dictionary<String, Array<Set<Int>>> = [:]
                var rate: Double = 0
                var isFast: Bool { rate < 2 && rate > 1 }
                @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop]? = []
                init() {}
            }
            @Model final class Stop { var trip: Trip?; init() {} }
            """#
        let read = try #require(try SwiftDataModelReader.read([.init(name: "Trip.swift", text: source)]))
        let entities = try #require(read.model["entities"]?.arrayValue)
        #expect(entities.count == 2)
        #expect(entities[0]["attributes"]?.arrayValue?.count == 5)
    }
}
