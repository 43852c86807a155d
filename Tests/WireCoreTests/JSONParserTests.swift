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

/// Strings, member names and pointers are compared as bytes (RFC 8259 8.3, RFC 6901), never as
/// Swift Characters under canonical equivalence (issue 24).
@Suite("JSON: bytes, not Characters")
struct JSONByteComparisonTests {
    /// `é` (U+00E9) and `e` + U+0301 are two names to every other JSON reader.
    @Test(arguments: [#"{"\u00e9":1,"e\u0301":2}"#, #"{"K":1,"\u212a":2}"#, #"{"a;":1,"a\u037e":2}"#])
    func canonicallyEquivalentNamesAreTwoMembers(text: String) throws {
        let value = try JSONParser.parse(text)
        #expect(value.objectValue?.members.count == 2)
        let names = try #require(value.objectValue?.keys)
        #expect(value[names[0]] == 1)
        #expect(value[names[1]] == 2)
    }

    /// With 16 members the parser switches from a scan to a set: both must tell the names apart.
    @Test func aLargeObjectAlsoKeepsEquivalentNamesApart() throws {
        let members = (0..<20).map { #""m\#($0)":0"# } + [#""\u00e9":1"#, #""e\u0301":2"#]
        let value = try JSONParser.parse("{" + members.joined(separator: ",") + "}")
        #expect(value.objectValue?.members.count == 22)
    }

    @Test func stringsCompareByTheirBytes() {
        #expect(JSONValue.string("\u{E9}") != JSONValue.string("e\u{301}"))
        #expect(JSONValue.string("K") != JSONValue.string("\u{212A}"))
        #expect(JSONValue.string("e\u{301}") == JSONValue.string("e\u{301}"))
        let nfc: JSONValue = ["name": "caf\u{E9}"]
        let nfd: JSONValue = ["name": "cafe\u{301}"]
        #expect(nfc != nfd)
        #expect(["caf\u{E9}": 1] as JSONValue != ["cafe\u{301}": 1] as JSONValue)
    }

    /// `/` or `~1` followed by a combining mark is one Character; a pointer is read by scalars.
    @Test func pointersAreReadByScalars() throws {
        let pointer = try #require(JSONPointer("/entries/Backup-x~1..~1\u{301}evil.sh"))
        #expect(pointer.tokens == ["entries", "Backup-x/../\u{301}evil.sh"])
        #expect(pointer.description == "/entries/Backup-x~1..~1\u{301}evil.sh")
        let split = try #require(JSONPointer("/a/\u{301}b"))
        #expect(split.tokens.count == 2)
        #expect(JSONPointer(tokens: ["\u{E9}"]) != JSONPointer(tokens: ["e\u{301}"]))
    }
}

@Suite("Rule ids compare byte for byte")
struct RuleIDTests {
    /// U+212A KELVIN SIGN is canonically equivalent to K: a testee's `MIG-P\u{212A}G-006` was graded
    /// as agreeing with MIG-PKG-006.
    @Test func aKelvinSignIsNotK() {
        #expect(RuleID("MIG-P\u{212A}G-006") != RuleID("MIG-PKG-006"))
        #expect(RuleID("MIG-PKG-006") == RuleID("MIG-PKG-006"))
        #expect(Set([RuleID("MIG-P\u{212A}G-006"), RuleID("MIG-PKG-006")]).count == 2)
    }
}
