import Testing
import WireCore

@Suite("JSON parser: the wire profile")
struct JSONParserTests {
    func violation(_ text: String, limits: JSONLimits = .standard) -> Violation? {
        violation(Array(text.utf8), limits: limits)
    }

    func violation(_ bytes: [UInt8], limits: JSONLimits = .standard) -> Violation? {
        do throws(Violation) {
            _ = try JSONParser.parse(bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func keepsNumberLiteralsAndMemberOrder() throws {
        let value = try JSONParser.parse(#"{"b":1.0,"a":1,"c":-0,"d":1e3,"e":12345678901234567890}"#)
        #expect(value.objectValue?.keys == ["b", "a", "c", "d", "e"])
        #expect(value["b"] == .number(JSONNumber(literal: "1.0")))
        #expect(value["a"]?.typeName == "integer")
        #expect(value["b"]?.typeName == "number")
        #expect(value["e"] == .number(JSONNumber(literal: "12345678901234567890")))
        #expect(JSONSerializer.compact(value) == #"{"b":1.0,"a":1,"c":-0,"d":1e3,"e":12345678901234567890}"#)
    }

    @Test func duplicateKeyIsReportedAtTheSecondMember() {
        let v = violation(#"{"type":"x","inner":{"code":"1","code":"2"}}"#)
        #expect(v?.rule == CoreRule.duplicateKey)
        #expect(v?.path.description == "/inner/code")
        #expect(v?.byteOffset == 32)
    }

    @Test(arguments: [
        ([0x22, 0xC3, 0x28, 0x22] as [UInt8], 1),  // bad continuation
        ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong '/'
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // surrogate encoded in UTF-8
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
        ([0x22, 0x61, 0xE2, 0x82], 2),  // truncated at end of input
    ])
    func invalidUTF8(bytes: [UInt8], offset: Int) {
        let v = violation(bytes)
        #expect(v?.rule == CoreRule.unicode)
        #expect(v?.byteOffset == offset)
    }

    @Test func loneSurrogateEscapes() {
        #expect(violation(#"["\ud800"]"#)?.rule == CoreRule.unicode)
        #expect(violation(#"["\udc00"]"#)?.rule == CoreRule.unicode)
        #expect(violation(#"["\ud800\u0041"]"#)?.rule == CoreRule.unicode)
        #expect(violation(#"["\ud83d\ude00"]"#) == nil)
        #expect((try? JSONParser.parse(#""\ud83d\ude00""#)) == .string("😀"))
    }

    @Test(arguments: [
        ("\u{FEFF}{}", ""), ("{} x", ""), ("[1,]", "/1"), (#"{"a":01}"#, "/a"), ("'x'", ""), ("NaN", ""),
        (#"{"a":+1}"#, "/a"), ("[\"a\tb\"]", "/0"), ("{\"a\" 1}", "/a"), ("", ""), ("[1 2]", ""),
    ])
    func syntaxErrors(text: String, path: String) {
        let v = violation(text)
        #expect(v?.rule == CoreRule.syntax)
        #expect(v?.path.description == path)
    }

    @Test func sizeIsCheckedBeforeParsing() {
        let v = violation(String(repeating: " ", count: 101) + "{}", limits: JSONLimits(maxBytes: 100, maxDepth: 64))
        #expect(v?.rule == CoreRule.size)
        #expect(v?.path == .root)
    }

    @Test func depthLimitNamesTheContainerThatExceedsIt() {
        let text = #"{"x":"# + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"
        let v = violation(text)
        #expect(v?.rule == CoreRule.depth)
        #expect(v?.path.description == "/x" + String(repeating: "/0", count: 63))
        #expect(violation(#"{"x":"# + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}") == nil)
    }

    @Test func numbersOutsideTheDoubleRange() {
        #expect(violation(#"{"a":1e400}"#)?.rule == CoreRule.numberRange)
        #expect(violation(#"{"a":-1e400}"#)?.path.description == "/a")
        #expect(violation("1" + String(repeating: "0", count: 400))?.rule == CoreRule.numberRange)
        #expect(violation(#"{"a":1e308}"#) == nil)
    }
}

@Suite("JSON Pointer and serialization")
struct JSONPointerTests {
    @Test func escapesRoundTrip() throws {
        let p = JSONPointer.root / "a/b" / "m~n" / 3
        #expect(p.description == "/a~1b/m~0n/3")
        #expect(JSONPointer(p.description) == p)
        #expect(JSONPointer("no-slash") == nil)
        #expect(JSONPointer("/bad~2") == nil)
        let doc = try JSONParser.parse(#"{"a/b":{"m~n":[0,1,2,"x"]}}"#)
        #expect(p.resolve(in: doc) == .string("x"))
    }

    @Test func canonicalFormIsJCS() throws {
        let doc = try JSONParser.parse(#"{"b":[1.0,1e21,0.000001,1e-7,-0,123.456e2],"a":"é\u0001\n","\u20ac":1,"\ud83d\ude00":2}"#)
        #expect(
            JSONSerializer.canonical(doc)
                == #"{"a":"é\u0001\n","b":[1,1e+21,0.000001,1e-7,0,12345.6],"€":1,"😀":2}"#)
    }
}
