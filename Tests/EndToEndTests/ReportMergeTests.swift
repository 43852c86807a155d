import ConformanceKit
import Foundation
import TestFixture
import Testing
import WireCore

/// Shard reports merge into the report of the unsharded run (issue 31.2), and a JSON report
/// reads back as it was written, in every format (`conformance report merge`).
@Suite("Report merge", .serialized)
struct ReportMergeTests {
    static let faulty = "exec:'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes"

    /// The JSON report without its times, which differ between any two runs.
    static func timeless(_ json: String) throws -> JSONValue {
        func strip(_ v: JSONValue) -> JSONValue {
            switch v {
            case .object(let o): return .object(JSONObject(o.members.filter { $0.key != "seconds" }.map { .init(key: $0.key, value: strip($0.value)) }))
            case .array(let a): return .array(a.map(strip))
            default: return v
            }
        }
        return strip(try JSONParser.parse(Array(json.utf8)))
    }

    /// The first few places two reports differ (a whole report in a failure message is
    /// unreadable); empty when they are equal, member order included.
    static func differences(_ a: JSONValue, _ b: JSONValue) -> String {
        let found = JSONDiff.differences(expected: a, found: b).prefix(3).map { "\($0.path): \($0.expected) vs \($0.found)" }
        if !found.isEmpty { return found.joined(separator: "; ") }
        return a == b ? "" : "the same members in another order"
    }

    /// A text report without its times.
    static func timeless(text: String) -> String {
        text.replacingOccurrences(of: #"\(\d+\.\d+ s\)"#, with: "(T)", options: .regularExpression)
    }

    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aReportReadsBackAsItWasWrittenInEveryFormat() throws {
        // Failures, expected failures (one matched, one failing differently), a stale line, a
        // varied case, notes, grades and a replay command: every member a report can hold.
        let five = WrongTesteeTests.fiveDigitCases.keys.sorted()
        try #require(five.count >= 3)
        let list = try ExpectedFailures.parse("\(five[0])  # known\n\(five[1]) PAIR-DID-001  # wrong signature\npairing/no-such/case  # stale\n")
        let peer = ExecPeer(command: "'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes")
        _ = try peer.start().get()
        var report = Runner.run(Fixture.cases, against: peer, expectedFailures: list, filter: CaseFilter(family: "pairing"))
        peer.close()
        report.varied = [VariedCase(id: five[2], outcomes: ["passed", "failed"])]
        report.notes = ["a note"]
        report.replay = "conformance run --peer 'exec:x y'"
        // A live case's wire log, every kind of event.
        report.results[0].wire = WireLog(events: [
            WireEvent(at: 1, connection: 1, .open(peer: "ws://x", path: "/")), WireEvent(at: 2, connection: 1, .text(from: .client, #"{"type":"ping"}"#)),
            WireEvent(at: 3, connection: 1, .binary(from: .server, .init(Array(repeating: 7, count: 100), cap: 0))),
            WireEvent(at: 4, connection: 1, .ping(from: .server)), WireEvent(at: 5, connection: 1, .close(by: .client, code: 1000)),
        ], omitted: 12)
        // A report keeps milliseconds; the run's own total is a Double with more digits.
        report.seconds = 1.5
        #expect(report.count(.expectedFailure) == 1 && report.count(.failedDifferently) == 1 && report.unknownExpectedFailures.count == 1)
        let vectors = Dictionary(Fixture.cases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let json = JSONReport.render(report)
        let back = try ReportReader.read(Array(json.utf8), name: "report.json", vectors: vectors)
        #expect(try Self.differences(JSONParser.parse(Array(json.utf8)), JSONParser.parse(Array(JSONReport.render(back).utf8))) == "")
        // Compared whole but reported by name: a report is too long for a failure message.
        let same = [
            ("JSON", JSONReport.render(back) == json),
            ("text", TextReport.render(back, color: false, verbose: true) == TextReport.render(report, color: false, verbose: true)),
            ("JUnit", JUnitReport.render(back) == JUnitReport.render(report)),
            ("HTML", HTMLReport.render(back, specBase: "Spec/") == HTMLReport.render(report, specBase: "Spec/")),
        ]
        #expect(same.filter { !$0.1 }.map(\.0) == [])
    }

    @Test func fourShardsMergedEqualTheUnshardedRun() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let selection = ["--peer", Self.faulty, "--family", "pairing"]
        let whole = folder.appendingPathComponent("whole.json").path
        let full = try await Fixture.run("conformance", ["run"] + selection + ["--format", "json", "--output", whole], limit: 600)
        #expect(full.status == 1, "the faulty testee fails: \(full.stderr)")
        var shards: [String] = []
        for i in 1...4 {
            let path = folder.appendingPathComponent("shard-\(i).json").path
            let shard = try await Fixture.run("conformance", ["run"] + selection + ["--shard", "\(i)/4", "--format", "json", "--output", path], limit: 600)
            #expect(shard.status == 0 || shard.status == 1, "\(shard.stderr)")
            shards.append(path)
        }
        let merged = try await Fixture.run("conformance", ["report", "merge", "--format", "json"] + shards)
        #expect(merged.status == 1, "the merged report fails as the run did: \(merged.stderr)")
        let wholeText = try String(contentsOfFile: whole, encoding: .utf8)
        #expect(try Self.differences(Self.timeless(wholeText), Self.timeless(merged.stdout)) == "")
        let cases = try Self.timeless(merged.stdout)["cases"]?.arrayValue ?? []
        #expect(cases.count == Fixture.cases.filter { $0.family == "pairing" }.count)

        // The same in the other formats, read from the JSON of the whole run.
        let text = try await Fixture.run("conformance", ["report", "merge", "--format", "text"] + shards)
        let wholeAgain = try await Fixture.run("conformance", ["report", "merge", "--format", "text", whole])
        let sameText = Self.timeless(text: text.stdout) == Self.timeless(text: wholeAgain.stdout)
        #expect(sameText, "the merged text report differs from the whole run's")
        #expect(text.stdout.contains("replay: ") && !text.stdout.contains("shard "))
    }

    @Test func overlappingOrForeignReportsAreUsageErrors() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let one = folder.appendingPathComponent("one.json").path
        _ = try await Fixture.run("conformance", ["run", "--family", "pairing", "--case", "pairing/pair-ack/*", "--format", "json", "--output", one])
        let twice = try await Fixture.run("conformance", ["report", "merge", one, one])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("is in report 1 and report 2: the shards overlap"), "\(twice.stderr)")

        let other = folder.appendingPathComponent("other.json").path
        let text = try String(contentsOfFile: one, encoding: .utf8).replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
        try text.write(toFile: other, atomically: true, encoding: .utf8)
        let future = try await Fixture.run("conformance", ["report", "merge", other])
        #expect(future.status == 2)
        #expect(future.stderr.contains("not a report of version 1 (its version: 2)"), "\(future.stderr)")
    }

    @Test func everyReportMatchesThePublishedSchema() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [String] = []
        for (name, arguments) in [
            ("reference", ["run", "--family", "records"]),
            ("faulty", ["run", "--peer", Self.faulty, "--family", "pairing", "--repeat", "2"]),
        ] {
            let path = folder.appendingPathComponent("\(name).json").path
            _ = try await Fixture.run("conformance", arguments + ["--format", "json", "--output", path], limit: 600)
            paths.append(path)
        }
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            for path in sys.argv[2:]:
                jsonschema.Draft202012Validator(schema).validate(json.load(open(path)))
            print("valid", len(sys.argv) - 2)
            """
        let checked = try await PythonToolsTests().python(["-c", script, Fixture.root.appendingPathComponent("Conformance/report.schema.json").path] + paths)
        #expect(checked.status == 0, "\(checked.output)")
        #expect(checked.output.contains("valid 2"))
    }
}
