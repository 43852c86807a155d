import ConformanceKit
import Foundation
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

enum ReportTestError: Error {
    case noRejectingCase
}
