import ConformanceKit
import Foundation
import Testing
import WireCore

@Suite("conformance check and the executables", .serialized)
struct CheckCommandTests {
    static let valid = #"{"type":"desktop-pairing","code":"048213","pcPeerId":"desktop-4f9c2a","deviceInfo":{"name":"DESKTOP-7F3K","platform":"win32"},"timestamp":1747299990000,"relayUrl":"wss://signaling.chainlesschain.com"}"#

    @Test func unknownTypeNamesTheClosestKinds() {
        let result = DocumentChecker.check(Array(#"{"type":"pair-ak"}"#.utf8), name: "x", kind: nil, context: ["now": 1_747_300_000_000])
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.rule == CoreRule.knownKind)
        #expect(result.violations.first?.path.description == "/type")
        #expect(result.violations.first?.expected.contains("\"pair-ack\"") == true)
    }

    @Test func aKnownTypeIsAccepted() {
        let result = DocumentChecker.check(Array(#"{"type":"register","peerId":"did:cc:me"}"#.utf8), name: "x", kind: nil, context: ["now": 1_747_300_000_000])
        #expect(result.violations.isEmpty)
        #expect(result.kind == "register")
    }

    @Test func missingTypeIsCoreType001() {
        let result = DocumentChecker.check(Array("{}".utf8), name: "x", kind: nil, context: ["now": 1])
        #expect(result.violations.map(ExpectedViolation.init) == [ExpectedViolation(path: .root / "type", rule: CoreRule.required)])
    }

    @Test func exitStatusesAndJSONOutput() throws {
        let ok = try Fixture.run("conformance", ["check", "--now", "1747300000000", "-"], stdin: Array(Self.valid.utf8))
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        let bad = Self.valid.replacingOccurrences(of: "048213", with: "48213")
        let failed = try Fixture.run("conformance", ["check", "--now", "1747300000000", "--format", "json", "-"], stdin: Array(bad.utf8))
        #expect(failed.status == 1)
        let json = try JSONParser.parse(failed.stdout)
        let violation = json["documents"]?.arrayValue?.first?["violations"]?.arrayValue?.first
        #expect(violation?["path"] == "/code")
        #expect(violation?["rule"] == "PAIR-CODE-001")
        let noDID = try Fixture.run("conformance", ["check", "--now", "1747300000000", "--no-active-did", "-"], stdin: Array(Self.valid.utf8))
        #expect(noDID.status == 1)
        #expect(noDID.stdout.contains("PAIR-DID-002"))
        let missing = try Fixture.run("conformance", ["check", "/nonexistent/file.json"])
        #expect(missing.status == 2)
        let usage = try Fixture.run("conformance", ["check", "--kind", "no-such-kind", "-"], stdin: [])
        #expect(usage.status == 2)
    }

    @Test func runExitsZeroOnTheReferenceAndPrintsTheSummary() throws {
        let run = try Fixture.run("conformance", ["run"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("PASS  \(Fixture.cases.count) passed, 0 failed"))
        let none = try Fixture.run("conformance", ["run", "--case", "no/such/*"])
        #expect(none.status == 2)
    }

    /// The example list in Conformance/ matches what the faulty testee really fails, and is
    /// stale against the correct reference.
    @Test func exampleExpectedFailureListIsExact() throws {
        let list = "Conformance/expected-failures/example-accepts-five-digit-codes.txt"
        let faulty = "exec:'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes"
        let adopted = try Fixture.run("conformance", ["run", "--peer", faulty, "--expected-failures", list])
        #expect(adopted.status == 0, "\(adopted.stdout)")
        #expect(adopted.stdout.contains("6 expected failures"))
        let honest = try Fixture.run("conformance", ["run", "--expected-failures", list])
        #expect(honest.status == 1)
        #expect(honest.stdout.contains("XPASS pairing/pair-ack/code-five-digits"))
    }
}
