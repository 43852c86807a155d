import Testing
import WireCore

/// Names and tokens compare as bytes: canonically equivalent text is two names (RFC 8259 8.3).
@Suite("Byte text")
struct ByteTextTests {
    @Test(arguments: [
        ("é", "e\u{301}", false), ("recordName", "recordName", true), ("recordName", "recordNamf", false),
        ("a", "ab", false), ("", "", true), ("长的名字 with more than fifteen bytes", "长的名字 with more than fifteen bytes", true),
        ("长的名字 with more than fifteen bytes", "长的名字 with more than fifteen byteS", false),
    ])
    func bytesEqualComparesBytes(a: String, b: String, equal: Bool) {
        #expect(a.bytesEqual(b) == equal)
        #expect(b.bytesEqual(a) == equal)
        // A Substring (a view into a larger string) compares the same.
        let padded = "x" + b + "y"
        let inner = padded.dropFirst().dropLast()
        #expect(a.bytesEqual(inner) == equal)
        #expect(inner.bytesEqual(a) == equal)
    }
}
