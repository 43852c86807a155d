import WireCore

/// The machine-readable report of a run (`--format json`).
public enum JSONReport {
    public static func render(_ report: RunReport) -> String {
        let cases: [JSONValue] = report.results.map { r in
            var o = JSONObject([
                "id": .string(r.vector.id), "family": .string(r.vector.family), "subject": .string(r.vector.subject),
                "verdict": .string(word(r.verdict)), "status": .string(status(r.status)),
            ])
            if !r.violations.isEmpty { o["violations"] = .array(r.violations.map(violationJSON)) }
            if case .passed = r.status {} else if r.violations.isEmpty { o["detail"] = .string(r.summary) }
            return .object(o)
        }
        let summary: JSONValue = [
            "peer": .string(report.peer), "cases": .number(JSONNumber(Int64(report.results.count))),
            "passed": .number(JSONNumber(Int64(report.count(.pass)))),
            "expectedFailures": .number(JSONNumber(Int64(report.count(.expectedFailure)))),
            "failed": .number(JSONNumber(Int64(report.results.count - report.count(.pass) - report.count(.expectedFailure)))),
            "ok": .bool(report.ok),
        ]
        var root = JSONObject(["summary": summary, "cases": .array(cases)])
        if !report.unknownExpectedFailures.isEmpty {
            root["staleExpectedFailures"] = .array(report.unknownExpectedFailures.map { .string($0.caseID) })
        }
        return JSONSerializer.pretty(.object(root)) + "\n"
    }

    public static func violationJSON(_ v: Violation) -> JSONValue {
        var o = JSONObject([
            "path": .string(v.path.description), "rule": .string(v.rule.rawValue), "expected": .string(v.expected),
            "found": .string(v.found), "section": .string(v.section),
        ])
        if let offset = v.byteOffset { o["byteOffset"] = .number(JSONNumber(Int64(offset))) }
        return .object(o)
    }

    static func word(_ verdict: CaseResult.Verdict) -> String {
        switch verdict {
        case .pass: return "pass"
        case .fail: return "fail"
        case .expectedFailure: return "expected-failure"
        case .unexpectedPass: return "unexpected-pass"
        case .failedDifferently: return "failed-differently"
        }
    }

    static func status(_ status: CaseResult.Status) -> String {
        switch status {
        case .passed: return "passed"
        case .failed: return "failed"
        case .unsupported: return "unsupported"
        case .invalidRequest: return "invalid-request"
        case .broken(let f): return f.signature
        }
    }
}
