import ConformanceKit
import Foundation
import Reference
import TestFixture
import TesteeProtocol
import Testing
import WireCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("Reports and expected-failure lists")
struct ReportTests {
    /// A run with one failing case: the reference with one vector's expectation altered.
    static func failingReport() throws -> (RunReport, VectorCase) {
        var cases = Fixture.cases
        let index = try #require(cases.firstIndex { if case .document(_, _, .reject) = $0.body { return true } else { return false } })
        guard case .document(let kind, let input, .reject(let expected)) = cases[index].body, !expected.isEmpty else {
            throw ReportTestError.noRejectingCase
        }
        // Expect a different rule than the reference reports.
        cases[index].body = .document(kind: kind, input: input, expected: .reject([ExpectedViolation(path: expected[0].path, rule: "PAIR-TIME-003")]))
        return (Runner.run(cases, against: LocalPeer()), cases[index])
    }

    @Test func junitHasOneTestcasePerVectorAndFailuresCarryPathAndRule() throws {
        let (report, broken) = try Self.failingReport()
        let xml = JUnitReport.render(report)
        let document = try XMLDocument(data: Data(xml.utf8))
        let testcases = try document.nodes(forXPath: "//testcase")
        #expect(testcases.count == Fixture.cases.count)
        let failures = try document.nodes(forXPath: "//testcase/failure")
        #expect(failures.count == 1)
        let failure = try #require(failures.first as? XMLElement)
        #expect(failure.attribute(forName: "type")?.stringValue?.contains("PAIR-TIME-003") == true)
        #expect(failure.stringValue?.contains("PAIR-TIME-003 at \"") == true)
        let testcase = try #require(failure.parent as? XMLElement)
        #expect(testcase.attribute(forName: "name")?.stringValue == String(broken.id.split(separator: "/").last!))
    }

    @Test func jsonReportParsesAndNamesTheViolation() throws {
        let (report, broken) = try Self.failingReport()
        let json = try JSONParser.parse(JSONReport.render(report), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64))
        #expect(json["summary"]?["ok"] == .bool(false))
        #expect(json["summary"]?["failed"] == .number(JSONNumber(1)))
        let failing = json["cases"]?.arrayValue?.first { $0["id"] == .string(broken.id) }
        #expect(failing?["verdict"] == "fail")
        #expect(failing?["violations"]?.arrayValue?.contains { $0["rule"] == "PAIR-TIME-003" } == true)
    }

    @Test func textReportEndsWithAVerdictLine() throws {
        let (report, broken) = try Self.failingReport()
        let text = TextReport.render(report, color: false)
        #expect(text.contains("FAIL  \(broken.id)") || text.contains("FAIL \(broken.id)"))
        #expect(text.split(separator: "\n").last?.hasPrefix("FAIL  \(Fixture.cases.count - 1) passed, 1 failed") == true)
        let ok = TextReport.render(Runner.run(Fixture.cases, against: LocalPeer()), color: false)
        #expect(ok.split(separator: "\n").last?.hasPrefix("PASS  \(Fixture.cases.count) passed, 0 failed") == true)
    }

    @Test func expectedFailureListSyntax() throws {
        let list = try ExpectedFailures.parse("""
            # comment line
            pairing/a/b PAIR-CODE-001,PAIR-TIME-001   # reason here

            pairing/a/c   # any of its own rules
            """)
        #expect(list.entries["pairing/a/b"]?.signatures == ["PAIR-CODE-001", "PAIR-TIME-001"])
        #expect(list.entries["pairing/a/b"]?.reason == "reason here")
        #expect(list.entries["pairing/a/c"]?.signatures == [])
        #expect(throws: ExpectedFailures.ParseError.self) { try ExpectedFailures.parse("x\nx") }
        // A list saved on Windows: CR LF is one Character, and once swallowed every line after the first.
        let crlf = try ExpectedFailures.parse("pairing/a PAIR-CODE-001 # one\r\npairing/b # two\r\n")
        #expect(crlf.entries.keys.sorted() == ["pairing/a", "pairing/b"])
        #expect(crlf.entries["pairing/a"]?.reason == "one")
        #expect(crlf.entries["pairing/a"]?.signatures == ["PAIR-CODE-001"])
        #expect(throws: ExpectedFailures.ParseError.self) { try ExpectedFailures.parse("a b c") }
    }

    @Test func aListedCaseFailingOnAnotherRuleFailsTheRun() throws {
        let (_, broken) = try Self.failingReport()
        var cases = Fixture.cases
        cases[try #require(cases.firstIndex { $0.id == broken.id })] = broken
        let pinnedWrong = try ExpectedFailures.parse("\(broken.id) PAIR-CODE-001")
        let report = Runner.run(cases, against: LocalPeer(), expectedFailures: pinnedWrong)
        #expect(report.results.first { $0.vector.id == broken.id }?.verdict == .failedDifferently)
        let reportOK = report.ok
        #expect(!reportOK)
        let stale = try ExpectedFailures.parse("pairing/no-such/case")
        let staleOK = Runner.run(Fixture.cases, against: LocalPeer(), expectedFailures: stale).ok
        #expect(!staleOK)
    }
}

extension ReportTests {
    /// Globs and whole kinds in expected-failure lists: an exact id wins, then the first pattern.
    @Test func expectedFailurePatterns() throws {
        let list = try ExpectedFailures.parse("""
            pairing/flow-a/happy-path  PAIR-FLOWA-001  # exact
            pairing/flow-a/*       unsupported     # the whole kind, as a glob
            pairing/flow-b         unsupported     # the whole kind, by name
            pairing/no-such-*                      # matches nothing: stale
            """)
        #expect(list.entry(for: "pairing/flow-a/happy-path")?.line == 1)
        #expect(list.entry(for: "pairing/flow-a/expired")?.line == 2)
        #expect(list.entry(for: "pairing/flow-b/happy-lan")?.line == 3)
        #expect(list.entry(for: "pairing/flow-bb/x") == nil)
        #expect(list.entry(for: "pairing/manual/x") == nil)
        #expect(list.stale(among: Fixture.cases).map(\.line) == [4])
        // A whole kind answered `unsupported` passes as expected failures.
        let unsupported = Fixture.cases.filter { $0.id.hasPrefix("pairing/flow-a/") }
        let listed = try ExpectedFailures.parse("pairing/flow-a/*  unsupported  # not built yet")
        let report = Runner.run(unsupported, against: Unsupporting(), expectedFailures: listed)
        #expect(report.ok)
        #expect(report.count(.expectedFailure) == unsupported.count)
    }

    @Test func caseFilterRepeatsAndExcludes() {
        let filter = CaseFilter(globs: ["pairing/flow-a/*", "pairing/manual/*"], excludes: ["*expired*"])
        let selected = Fixture.cases.filter(filter.matches).map(\.id)
        #expect(!selected.isEmpty)
        #expect(selected.allSatisfy { ($0.hasPrefix("pairing/flow-a/") || $0.hasPrefix("pairing/manual/")) && !$0.contains("expired") })
        #expect(selected.contains { $0.hasPrefix("pairing/manual/") })
        #expect(Fixture.cases.contains { $0.id.hasPrefix("pairing/flow-a/") && $0.id.contains("expired") })
    }

    /// Only SHOULD rules missed: the case is non-strict, reported and not failed.
    @Test func recommendationsMakeACaseNonStrict() throws {
        let (report, broken) = try Self.failingReport()
        let rules = try #require(report.results.first { $0.vector.id == broken.id }?.violations.map(\.rule))
        #expect(!rules.isEmpty)
        let lenient = Runner.run([broken], against: LocalPeer(), levels: RuleLevels(recommendations: Set(rules)))
        #expect(lenient.results.first?.status == .nonStrict)
        #expect(lenient.ok)
        let text = TextReport.render(lenient, color: false)
        #expect(text.contains("WARN  \(broken.id)"), "\(text)")
        #expect(text.contains("1 non-strict"))
        let strict = Runner.run([broken], against: LocalPeer())
        #expect(strict.results.first?.status == .failed)
    }

    /// Skipped cases are visible in every format, with their reason and a duration.
    @Test func skippedCasesAppearInEveryFormat() throws {
        let vector = try #require(Fixture.cases.first)
        let skipped = CaseResult.judged(vector, status: .skipped("needs the relay's clock"), violations: [], entry: nil, seconds: 0.25)
        let report = RunReport(peer: "p", results: [skipped], seconds: 1, unknownExpectedFailures: [])
        #expect(report.ok)
        #expect(TextReport.render(report, color: false).contains("SKIP  \(vector.id)\n       skipped: needs the relay's clock"))
        let json = try JSONParser.parse(JSONReport.render(report), limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 64))
        let entry = json["cases"]?.arrayValue?.first
        #expect(entry?["status"] == "skipped")
        #expect(entry?["detail"] == "skipped: needs the relay's clock")
        #expect(entry?["seconds"] == .number(JSONNumber(literal: "0.250")))
        #expect(json["summary"]?["skipped"] == .number(JSONNumber(1)))
        let xml = try XMLDocument(data: Data(JUnitReport.render(report).utf8))
        let node = try #require(try xml.nodes(forXPath: "//testcase/skipped").first as? XMLElement)
        #expect(node.attribute(forName: "message")?.stringValue == "skipped: needs the relay's clock")
    }
}

/// A testee that implements nothing.
final class Unsupporting: Peer {
    var name: String { "unsupporting" }
    func evaluate(_ request: TesteeRequest) -> Result<Outcome, PeerFailure> { .success(.unsupported(reason: "not built yet")) }
    func close() {}
}

enum ReportTestError: Error {
    case noRejectingCase
}

/// A testee that keeps one undeclared member in every canonical form it answers.
final class KeepsUnknownMembers: Peer {
    var name: String { "keeps unknown members" }
    func evaluate(_ request: TesteeRequest) -> Result<Outcome, PeerFailure> {
        guard case .accept(.object(var canonical)) = Reference.answer(request) else { return .success(Reference.answer(request)) }
        canonical["extra"] = 1
        return .success(.accept(canonical: .object(canonical)))
    }
    func close() {}
}

extension ReportTests {
    /// A canonical answer that keeps an undeclared member is blamed on CORE-MEMBER-001 at that member.
    @Test func keptUnknownMembersAreBlamedOnTheirRule() throws {
        let vector = try #require(Fixture.cases.first { $0.id == "pairing/desktop-pairing/unknown-members-ignored" })
        let report = Runner.run([vector], against: KeepsUnknownMembers())
        let violation = try #require(report.results.first?.violations.first)
        #expect(violation.rule == CoreRule.unknownMembers)
        #expect(violation.path.description == "/extra")
    }
}
