import ConformanceKit
import Reference
import TestFixture
import Testing
import WireCore

/// Text from outside the process (a peer's frame, a testee's reason, a session log's labels, a
/// document's member names) reaches a terminal and a text report escaped: an ESC from a peer
/// could clear the screen and print a green PASS over the real FAIL (Spec security.md, "What
/// reaches a terminal"). Each report is rendered without color, so any steering character left
/// in it came from outside.
@Suite("What reaches a terminal")
struct TerminalSafetyTests {
    /// What a peer sends to take over a terminal: clear the screen, a green PASS, a line break
    /// that forges a line, a C1 CSI, a right-to-left override.
    static let hostile = "\u{1B}[2J\u{1B}[32mPASS\u{1B}[0m\nFORGED\u{9B}31m\u{202E}DIR"

    /// The scalars of `text` that steer a terminal, line breaks aside.
    static func steering(_ text: String) -> [String] {
        text.unicodeScalars.filter { $0 != "\n" && TerminalText.steers($0) }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    @Test func theEscaperWritesEveryControlAsItsCode() {
        #expect(TerminalText.escaped(Self.hostile) == "\\u{1B}[2J\\u{1B}[32mPASS\\u{1B}[0m\\u{A}FORGED\\u{9B}31m\\u{202E}DIR")
        #expect(TerminalText.escaped("plain é 中 🙂") == "plain é 中 🙂")
    }

    @Test func theWatchShowsPeersTextEscaped() {
        var options = PairingWatch.Options()
        options.names = ["desktop-0c48f0b1": "label" + Self.hostile]
        options.judgeRelay = true
        var watch = PairingWatch(options: options)
        let t: EpochMillis = 1_795_632_883_563
        let frames: [WireEvent] = [
            WireEvent(at: t, connection: 1, .open(peer: "127.0.0.1", path: "/")),
            WireEvent(at: t + 1, connection: 1, .text(from: .client, #"{"type":"register","peerId":"desktop-0c48f0b1"}"#)),
            WireEvent(at: t + 2, connection: 1, .text(from: .client, Self.hostile)),
            WireEvent(at: t + 3, connection: 1, .text(from: .client, JSONSerializer.compact(["type": .string(Self.hostile), "peerId": .string(Self.hostile)]))),
            WireEvent(at: t + 4, connection: 1, .text(from: .server, JSONSerializer.compact(["type": "registered", "peerId": .string(Self.hostile)]))),
        ]
        for frame in frames { watch.handle(frame) }
        let result = watch.finish(at: t + 10)
        #expect(!result.findings.isEmpty)
        let text = WatchReport.text(result, color: false)
        #expect(Self.steering(text) == [], "\(text)")
        #expect(text.contains("label\\u{1B}[2J"), "\(text)")
        for frame in frames { #expect(Self.steering(WatchReport.line(frame)) == [], "\(WatchReport.line(frame))") }
    }

    /// 1500 bad frames on 1500 connections: the first 1000 violations are kept, the rest
    /// counted, and the verdict still fails (200,000 once made a 62 MB report).
    @Test func theWatchKeepsAThousandViolationsAndCountsTheRest() {
        var watch = PairingWatch()
        let t: EpochMillis = 1_795_632_883_563
        for c in 1...1500 {
            watch.handle(WireEvent(at: t, connection: c, .open(peer: "127.0.0.1", path: "/")))
            watch.handle(WireEvent(at: t + 1, connection: c, .text(from: .client, #"{"type":"register","peerId":"desktop-\#(c)"}"#)))
            watch.handle(WireEvent(at: t + 2, connection: c, .text(from: .client, "not json")))
        }
        let result = watch.finish(at: t + 3)
        #expect(result.findings.count == 1000)
        #expect(result.findingsOmitted == 500)
        #expect(!result.ok)
        let text = WatchReport.text(result, color: false)
        #expect(text.contains("and 500 more violation(s) (the first 1000 are listed)"), "\(text.suffix(300))")
        #expect(text.hasSuffix("FAIL  1500 violation(s) (unknown 1000 among the first 1000), 0 of 0 session(s) completed\n"), "\(text.suffix(300))")
    }

    /// One fault repeated is one violation with its count and its last frame (issue 38, case
    /// 10: the migration watch printed one window violation 257 times).
    @Test func aRepeatedViolationIsCountedOnce() throws {
        var watch = PairingWatch()
        let t: EpochMillis = 1_795_632_883_563
        watch.handle(WireEvent(at: t, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        watch.handle(WireEvent(at: t + 1, connection: 1, .text(from: .client, #"{"type":"register","peerId":"desktop-0c48f0b1"}"#)))
        for i in 0..<1500 { watch.handle(WireEvent(at: t + 2 + EpochMillis(i), connection: 1, .text(from: .client, "not json \(i)"))) }
        let result = watch.finish(at: t + 2000)
        let only = try #require(result.findings.first)
        #expect(result.findings.count == 1 && result.findingsOmitted == 0, "\(result.findings.count)")
        #expect(only.count == 1500 && only.frame == "not json 0" && only.last == WatchFinding.Last(at: t + 1501, frame: "not json 1499"), "\(only)")
        #expect(WatchReport.text(result, color: false).contains("        seen     1500 times, last at \(t + 1501): not json 1499\n"))
        let json = try JSONParser.parse(Array(WatchReport.json(result).utf8))
        let listed = json["watch"]?["violations"]?.arrayValue?.first
        #expect(listed?["count"] == 1500 && listed?["lastAt"] == .number(JSONNumber(t + 1501)) && listed?["lastFrame"] == "not json 1499", "\(String(describing: listed))")
    }

    @Test func theRunsReportAndItsListShowATesteesTextEscaped() throws {
        let vector = try #require(Fixture.cases.first)
        let said = CaseResult.judged(vector, status: .unsupported("no" + Self.hostile), violations: [], entry: nil)
        let report = RunReport(peer: "impl" + Self.hostile, results: [said], seconds: 1, unknownExpectedFailures: [], notes: ["note" + Self.hostile])
        let text = TextReport.render(report, color: false)
        #expect(Self.steering(text) == [], "\(text)")
        // The list a run writes: one line per case, whatever the testee's reason holds.
        let list = ExpectedFailures.render([said])
        #expect(list.split(separator: "\n").count == 3, "\(list)")
        let parsed = try ExpectedFailures.parse(list)
        #expect(parsed.entries.map(\.value.caseID) == [vector.id])
        #expect(Self.steering(list) == [])
    }

    @Test func checkShowsADocumentsNamesEscaped() throws {
        // A member named twice is quoted as the parser found it: the hostile name itself.
        let key = JSONSerializer.quoted(Self.hostile)
        let document = #"{"type":"register","peerId":"# + key + "," + key + ":1," + key + ":2}"
        let result = DocumentChecker.check(Array(document.utf8), name: "doc.json", kind: nil, context: ["now": 1_747_300_000_000])
        #expect(!result.violations.isEmpty)
        let text = CheckReport.text([result], color: false)
        #expect(Self.steering(text) == [], "\(text)")
        // A baseline keeps the finding's pointer exact, and the file steers nothing.
        let baseline = CheckBaseline.render([result])
        #expect(Self.steering(baseline) == [], "\(baseline)")
        let parsed = try CheckBaseline.parse(baseline)
        #expect(Set(parsed.entries.map(\.at)) == Set(result.violations.map(CheckBaseline.at)))
    }
}
