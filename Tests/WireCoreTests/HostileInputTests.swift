import Foundation
import Testing
import WireCore

/// Inputs built to make the parser or a report slow or huge (security review D1, D8). Bounds are
/// on work and size, never on measured time: the old code missed them by far more than 100x (it
/// copied the member-name set for every member: quadratic).
@Suite("Hostile inputs stay cheap")
struct HostileInputTests {
    @Test(.timeLimit(.minutes(1))) func manyMembersParseInLinearTime() throws {
        var text = "{"
        for i in 0..<200_000 { text += (i == 0 ? "" : ",") + "\"m\(i)\":\(i)" }
        text += "}"
        // The quadratic parser needed about 6 s for 20,000 members, so hours for these: the time
        // limit catches it, and `bench --records` prints the rate against 20,000 members.
        let value = try JSONParser.parse(Array(text.utf8), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64))
        #expect(value.objectValue?.members.count == 200_000)
        // A repeated name at the very end is still found.
        let repeated = String(text.dropLast()) + ",\"m7\":0}"
        let offset = repeated.utf8.count - #""m7":0}"#.utf8.count
        do {
            _ = try JSONParser.parse(Array(repeated.utf8), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64))
            Issue.record("a repeated member name was accepted")
        } catch {
            // The second "m7", named where it stands: the rule and the byte offset of its name.
            #expect(error.rule == CoreRule.duplicateKey)
            #expect(error.byteOffset == offset, "\(error)")
            #expect(error.found == #"a second "m7""#)
        }
    }

    @Test func quotedValuesInViolationsAreCapped() {
        let huge = String(repeating: "é", count: 5_000_000)
        let v = Violation(rule: "CORE-TYPE-003", path: .root / "name", expected: huge, found: huge)
        #expect(v.found.utf8.count < 600)
        #expect(v.found.hasSuffix("… (10000000 bytes)"))
        #expect(v.found.hasPrefix("éé"))
        #expect(!v.found.contains("\u{FFFD}"), "never cut inside a character")
        #expect(v.expected == v.found)
        let short = Violation(rule: "CORE-TYPE-003", path: .root, expected: "a", found: "b")
        #expect(short.found == "b")
    }
}
