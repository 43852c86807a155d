import Reference
import WireCore

/// The machine-readable report of a run (`--format json`), published as
/// `Conformance/report.schema.json`. It holds everything the other formats show, so that
/// `conformance report merge` can read shard reports back (`ReportReader`) and render any format.
public enum JSONReport {
    /// The report format's version, `version` in the report; a reader refuses any other.
    public static let version: Int64 = 1

    public static func render(_ report: RunReport) -> String {
        let cases: [JSONValue] = report.results.map { r in
            var o = JSONObject([
                "id": .string(r.vector.id), "family": .string(r.vector.family), "subject": .string(r.vector.subject),
                "comment": .string(r.vector.comment),
                "verdict": .string(word(r.verdict)), "status": .string(r.statusWord),
                "seconds": .number(JSONNumber(literal: milliseconds(r.seconds))),
            ])
            if !r.violations.isEmpty { o["violations"] = .array(r.violations.map(violationJSON)) }
            if case .passed = r.status {} else if r.violations.isEmpty { o["detail"] = .string(r.summary) }
            if let reason = r.statusReason { o["reason"] = .string(reason) }
            if let entry = r.expectedEntry { o["expectedEntry"] = entryJSON(entry) }
            if let wire = r.wire {
                o["wire"] = ["events": .array(wire.events.map(SessionLog.json)), "omitted": .number(JSONNumber(Int64(wire.omitted)))]
            }
            if let grade = r.grade {
                o["grade"] = .object(JSONObject(Grade.Level.allCases.map { JSONObject.Member(key: $0.rawValue, value: .string(grade[$0].rawValue)) }))
            }
            if !r.notes.isEmpty { o["notes"] = .array(r.notes.map { .string($0) }) }
            if !r.isOK, let replay = report.replay(r.vector.id) { o["replay"] = .string(replay) }
            return .object(o)
        }
        func count(_ n: Int) -> JSONValue { .number(JSONNumber(Int64(n))) }
        let summary: JSONValue = [
            "peer": .string(report.peer), "cases": count(report.results.count),
            "passed": count(report.count(.pass)),
            "expectedFailures": count(report.count(.expectedFailure)),
            "failed": count(report.failedCount),
            "skipped": count(report.results.filter { $0.statusWord == "skipped" }.count),
            "notImplemented": count(report.results.filter { $0.statusWord == "not-implemented" }.count),
            "nonStrict": count(report.results.filter { $0.statusWord == "non-strict" }.count),
            "informational": count(report.results.filter { $0.statusWord == "informational" }.count),
            // Passed on the verdict alone: the testee rejected without naming a rule.
            "verdictOnly": count(report.results.filter { $0.verdict == .pass && $0.grade?.diagnosis == .notGiven }.count),
            "varied": count(report.varied.count),
            "ok": .bool(report.ok),
            "seconds": .number(JSONNumber(literal: milliseconds(report.seconds))),
        ]
        let groups = Dictionary(grouping: report.results, by: { "\($0.vector.family)/\($0.vector.subject)" })
        let kinds: [JSONValue] = groups.keys.sorted().map { key in
            let group = groups[key] ?? []
            let tally = GradeTally(group)
            var levels = JSONObject()
            for level in Grade.Level.allCases {
                let c = tally.levels[level] ?? GradeTally.Counts()
                levels[level.rawValue] = ["agreed": count(c.agreed), "disagreed": count(c.disagreed), "notGiven": count(c.notGiven)]
            }
            return [
                "family": .string(group[0].vector.family), "subject": .string(group[0].vector.subject), "cases": count(group.count),
                "passed": count(group.filter { $0.verdict == .pass }.count), "levels": .object(levels),
            ]
        }
        var root = JSONObject(["version": .number(JSONNumber(version)), "summary": summary, "kinds": .array(kinds), "cases": .array(cases)])
        if let command = report.replay { root["command"] = .string(command) }
        if !report.notes.isEmpty { root["notes"] = .array(report.notes.map { .string($0) }) }
        if !report.varied.isEmpty {
            root["varied"] = .array(report.varied.map { ["id": .string($0.id), "outcomes": .array($0.outcomes.map { .string($0) })] })
        }
        if !report.unknownExpectedFailures.isEmpty {
            root["staleExpectedFailures"] = .array(report.unknownExpectedFailures.map(entryJSON))
        }
        return JSONSerializer.pretty(.object(root)) + "\n"
    }

    /// Seconds with millisecond precision, as a JSON number literal.
    static func milliseconds(_ seconds: Double) -> String {
        let ms = Int64((max(0, seconds) * 1000).rounded())
        let fraction = String(ms % 1000)
        return "\(ms / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// An expected-failure line as the report keeps it.
    static func entryJSON(_ e: ExpectedFailures.Entry) -> JSONValue {
        [
            "caseID": .string(e.caseID), "signatures": .array(e.signatures.sorted().map { .string($0) }), "reason": .string(e.reason),
            "line": .number(JSONNumber(Int64(e.line))),
        ]
    }

    public static func violationJSON(_ v: Violation) -> JSONValue {
        var o = JSONObject([
            "path": .string(v.path.description), "rule": .string(v.rule.rawValue), "expected": .string(v.expected),
            "found": .string(v.found), "section": .string(v.section),
        ])
        if let offset = v.byteOffset { o["byteOffset"] = .number(JSONNumber(Int64(offset))) }
        if let subject = v.subject { o["subject"] = .string(subject) }
        if let names = v.names { o["names"] = .string(names) }
        if let location = v.location { o["location"] = .string(location) }
        if !v.consequences.isEmpty { o["consequences"] = .array(v.consequences.map(violationJSON)) }
        if v.count > 1 { o["count"] = .number(JSONNumber(Int64(v.count))) }
        return .object(o)
    }

    static func word(_ verdict: CaseResult.Verdict) -> String {
        switch verdict {
        case .pass: return "pass"
        case .fail: return "fail"
        case .expectedFailure: return "expected-failure"
        case .unexpectedPass: return "unexpected-pass"
        case .failedDifferently: return "failed-differently"
        case .skipped: return "skipped"
        }
    }
}
