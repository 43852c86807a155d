import ConformanceKit
import Foundation
import Reference
import TestFixture
import Testing
import WireCore

/// `check --baseline` and `--write-baseline`: a team adopts `check` in CI with today's findings
/// accepted; a new finding fails, and so does a line whose finding is gone.
@Suite("check baselines")
struct CheckBaselineTests {
    static func model(_ attributes: [(String, Bool)]) -> String {
        let list = attributes.map { #"{"name":"\#($0.0)","type":"String","optional":\#($0.1)}"# }.joined(separator: ",")
        return #"{"entities":[{"name":"Solve","attributes":[\#(list)]}]}"#
    }

    @Test func aBaselineAcceptsTodaysFindingsAndFailsOnNewAndFixedOnes() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A space in the name: the baseline's fields are percent-encoded.
        let file = scratch.appendingPathComponent("Model v2.json")
        let baseline = scratch.appendingPathComponent("baseline.txt").path
        try Data(Self.model([("date", false), ("title", false), ("note", true)]).utf8).write(to: file)

        let adopt = try await Fixture.run("conformance", ["check", "--write-baseline", baseline, file.path])
        #expect(adopt.status == 1, "writing a baseline does not change the verdict: \(adopt.stdout)")
        let written = try String(contentsOfFile: baseline, encoding: .utf8)
        let encoded = file.path.replacingOccurrences(of: " ", with: "%20")
        #expect(written.contains("\(encoded) REC-MODEL-007 Solve.date  # "), "\(written)")
        #expect(written.contains("\(encoded) REC-MODEL-007 Solve.title  # "), "\(written)")

        let gated = try await Fixture.run("conformance", ["check", "--baseline", baseline, file.path])
        #expect(gated.status == 0, "\(gated.stdout)\(gated.stderr)")
        #expect(gated.stdout.contains("ok    \(file.path) (model) · 2 baselined findings"), "\(gated.stdout)")

        // A new finding (note made required) fails; the baselined ones stay quiet.
        try Data(Self.model([("date", false), ("title", false), ("note", false)]).utf8).write(to: file)
        let added = try await Fixture.run("conformance", ["check", "--format", "json", "--baseline", baseline, file.path])
        #expect(added.status == 1)
        let document = try JSONParser.parse(Array(added.stdout.utf8))["documents"]?.arrayValue?.first
        #expect(document?["violations"]?.arrayValue?.compactMap { $0["names"]?.stringValue } == ["Solve.note"], "\(added.stdout)")
        #expect(document?["baselined"]?.arrayValue?.count == 2, "\(added.stdout)")

        // title fixed: its line (the fifth, after three comment lines) matches nothing and fails the run.
        try Data(Self.model([("date", false), ("title", true), ("note", true)]).utf8).write(to: file)
        let fixed = try await Fixture.run("conformance", ["check", "--baseline", baseline, file.path])
        #expect(fixed.status == 1)
        #expect(fixed.stdout.contains("FAIL  baseline line 5: \(file.path) REC-MODEL-007 at Solve.title matches no finding now"), "\(fixed.stdout)")

        // Lines about documents this run does not check are left alone.
        let other = scratch.appendingPathComponent("other.json")
        try Data(Self.model([("date", true)]).utf8).write(to: other)
        let elsewhere = try await Fixture.run("conformance", ["check", "--baseline", baseline, other.path])
        #expect(elsewhere.status == 0, "\(elsewhere.stdout)")
        #expect(elsewhere.stdout.contains("2 about documents not checked in this run"), "\(elsewhere.stdout)")
    }

    @Test func aMalformedBaselineIsAUsageError() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("m.json REC-MODEL-007\n".utf8).write(to: file)
        let run = try await Fixture.run("conformance", ["check", "--baseline", file.path, "-"], stdin: Array(Self.model([("date", true)]).utf8))
        #expect(run.status == 2, "\(run.stdout)")
        #expect(run.stderr.contains("line 1: expected `DOCUMENT RULE AT [xN]  # note`, found 2 fields"), "\(run.stderr)")
    }

    @Test func fieldsRoundTripWhateverTheyHold() throws {
        let names = ["Vault 10.xcdatamodel", "a#b%c", "tab\there", "\u{0301}/é"]
        for name in names {
            let line = CheckBaseline.encode(name) + " REC-X-001 " + CheckBaseline.encode(name)
            let parsed = try CheckBaseline.parse(line)
            #expect(parsed.entries.map(\.document) == [name])
            #expect(parsed.entries.map(\.at) == [name])
        }
        #expect(throws: CheckBaseline.ParseError.self) { try CheckBaseline.parse("a%2 REC-X-001 b") }
        #expect(throws: CheckBaseline.ParseError.self) { try CheckBaseline.parse("a%+F REC-X-001 b") }
    }

    /// A line accepts as many findings as it says: a second finding of its rule and place is new,
    /// and one fixed of two makes it stale (issue 41, case 4: a real model's 12 findings were 10
    /// lines, and a line absorbed every finding of its rule and name).
    @Test func aLineAcceptsItsCountNoMoreNoFewer() throws {
        func result(_ n: Int) -> DocumentChecker.Result {
            let violations = (0..<n).map { _ in
                var v = Violation(rule: "REC-MODEL-002", path: .root / "entities" / 0 / "relationships" / 0 / "optional", expected: "optional", found: "required")
                v.names = "A.bs"
                return v
            }
            return DocumentChecker.Result(name: "m.json", kind: "model", violations: violations, canonical: nil)
        }
        let one = try CheckBaseline.parse(CheckBaseline.render([result(1)]))
        #expect(one.entries.map(\.count) == [1])
        let more = one.apply(to: [result(2)])
        #expect(more.results.first?.violations.count == 1 && more.stale.isEmpty, "the second is new")
        let two = try CheckBaseline.parse(CheckBaseline.render([result(2)]))
        #expect(CheckBaseline.render([result(2)]).contains("m.json REC-MODEL-002 A.bs x2  # "))
        let fewer = two.apply(to: [result(1)])
        #expect(fewer.results.first?.violations.isEmpty == true)
        #expect(fewer.stale.map { "\($0.count) \($0.matched)" } == ["2 1"], "one fixed of two is stale")
        #expect(CheckReport.text([result(1)], color: false, baseline: fewer).contains("accepts 2 findings, 1 now"))
        #expect(throws: CheckBaseline.ParseError.self) { try CheckBaseline.parse("m.json REC-MODEL-002 A.bs x1") }
    }
}
