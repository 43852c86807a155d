import Foundation
import TesteeProtocol
import WireCore

/// Reads a JSON report (`--format json`, version `JSONReport.version`) back into the run it
/// describes, so shard reports can be merged and rendered in any format
/// (`conformance report merge`). A case the kit's vectors hold gets its vector back (an HTML
/// report shows a failed document's bytes); any other (a live scenario) is rebuilt from what the
/// report says of it.
public enum ReportReader {
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    public static func read(_ bytes: [UInt8], name: String, vectors: [String: VectorCase]) throws -> RunReport {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 1 << 30, maxDepth: 64))
        } catch {
            throw Problem("\(name): not a JSON report: \(error)")
        }
        guard root["version"]?.integerValue == JSONReport.version else {
            throw Problem("\(name): not a report of version \(JSONReport.version) (its version: \(root["version"].map(JSONSerializer.compact) ?? "absent"))")
        }
        func fail(_ what: String) -> Problem { Problem("\(name): \(what)") }
        guard let summary = root["summary"], let peer = summary["peer"]?.stringValue, let seconds = summary["seconds"]?.number,
            let cases = root["cases"]?.arrayValue
        else { throw fail("summary.peer, summary.seconds and cases are required") }
        var results: [CaseResult] = []
        for (i, c) in cases.enumerated() {
            results.append(try result(c, at: "cases/\(i)", vectors: vectors, fail: fail))
        }
        let stale = try (root["staleExpectedFailures"]?.arrayValue ?? []).enumerated().map { i, e in
            try entry(e, fail: { fail("staleExpectedFailures/\(i): \($0)") })
        }
        var report = RunReport(
            peer: peer, results: results, seconds: seconds, unknownExpectedFailures: stale,
            notes: (root["notes"]?.arrayValue ?? []).compactMap(\.stringValue))
        report.replay = root["command"]?.stringValue
        report.varied = (root["varied"]?.arrayValue ?? []).compactMap { v in
            v["id"]?.stringValue.map { VariedCase(id: $0, outcomes: (v["outcomes"]?.arrayValue ?? []).compactMap(\.stringValue)) }
        }
        return report
    }

    static func result(_ c: JSONValue, at path: String, vectors: [String: VectorCase], fail: (String) -> Problem) throws -> CaseResult {
        guard let id = c["id"]?.stringValue, let family = c["family"]?.stringValue, let subject = c["subject"]?.stringValue,
            let verdictWord = c["verdict"]?.stringValue, let statusWord = c["status"]?.stringValue, let seconds = c["seconds"]?.number
        else { throw fail("\(path): id, family, subject, verdict, status and seconds are required") }
        guard let verdict = verdicts[verdictWord] else { throw fail("\(path)/verdict: unknown verdict \(verdictWord)") }
        let reason = c["reason"]?.stringValue ?? ""
        let status: CaseResult.Status
        switch statusWord {
        case "passed": status = .passed
        case "non-strict": status = .nonStrict
        case "informational": status = .informational
        case "failed": status = .failed
        case "unsupported": status = .unsupported(reason)
        case "invalid-request": status = .invalidRequest(reason)
        case "testee-crashed": status = .broken(.crashed(reason))
        case "testee-timeout": status = .broken(.timeout(reason))
        case "testee-garbled": status = .broken(.garbled(reason))
        case "not-implemented": status = .notImplemented(reason)
        case "skipped": status = .skipped(reason)
        default: throw fail("\(path)/status: unknown status \(statusWord)")
        }
        let vector =
            vectors[id]
            ?? VectorCase(
                id: id, family: family, comment: c["comment"]?.stringValue ?? "", flags: [], rules: [], triggers: [], context: .null,
                body: .machine(name: subject, events: [], expected: []), file: "")
        guard vector.family == family, vector.subject == subject else {
            throw fail("\(path): case \(id) is \(family)/\(subject) in the report but \(vector.family)/\(vector.subject) in this kit's vectors")
        }
        var grade: Grade?
        if let g = c["grade"] {
            func level(_ key: String) throws -> Grade.Agreement {
                guard let word = g[key]?.stringValue, let a = Grade.Agreement(rawValue: word) else { throw fail("\(path)/grade/\(key): unknown agreement") }
                return a
            }
            grade = Grade(verdict: try level("verdict"), diagnosis: try level("diagnosis"), canonical: try level("canonical"))
        }
        var result = CaseResult(
            vector: vector, status: status,
            violations: try (c["violations"]?.arrayValue ?? []).enumerated().map { i, v in try violation(v, at: "\(path)/violations/\(i)", fail: fail) },
            verdict: verdict, expectedEntry: try c["expectedEntry"].map { try entry($0, fail: { fail("\(path)/expectedEntry: \($0)") }) },
            grade: grade, notes: (c["notes"]?.arrayValue ?? []).compactMap(\.stringValue), seconds: seconds)
        result.verdict = verdict
        if let wire = c["wire"] {
            var events: [WireEvent] = []
            for (i, e) in (wire["events"]?.arrayValue ?? []).enumerated() {
                do throws(Violation) {
                    events.append(try SessionLog.event(from: e))
                } catch {
                    throw fail("\(path)/wire/events/\(i): \(error)")
                }
            }
            result.wire = WireLog(events: events, omitted: Int(wire["omitted"]?.integerValue ?? 0))
        }
        return result
    }

    static let verdicts: [String: CaseResult.Verdict] = Dictionary(
        uniqueKeysWithValues: [CaseResult.Verdict.pass, .fail, .expectedFailure, .unexpectedPass, .failedDifferently, .skipped].map { (JSONReport.word($0), $0) })

    static func violation(_ v: JSONValue, at path: String, fail: (String) -> Problem) throws -> Violation {
        guard let rule = v["rule"]?.stringValue, let pointerText = v["path"]?.stringValue, let pointer = JSONPointer(pointerText),
            let expected = v["expected"]?.stringValue, let found = v["found"]?.stringValue
        else { throw fail("\(path): rule, path (a JSON Pointer), expected and found are required") }
        var violation = Violation(rule: RuleID(rule), path: pointer, expected: "", found: "")
        // As written: the report quoted them capped already, and capping again would change them.
        violation.expected = expected
        violation.found = found
        violation.byteOffset = v["byteOffset"]?.integerValue.map { Int($0) }
        violation.subject = v["subject"]?.stringValue
        violation.names = v["names"]?.stringValue
        violation.location = v["location"]?.stringValue
        violation.consequences = try (v["consequences"]?.arrayValue ?? []).enumerated().map { i, c in
            try Self.violation(c, at: "\(path)/consequences/\(i)", fail: fail)
        }
        violation.count = max(1, Int(clamping: v["count"]?.integerValue ?? 1))
        return violation
    }

    static func entry(_ e: JSONValue, fail: (String) -> Problem) throws -> ExpectedFailures.Entry {
        guard let caseID = e["caseID"]?.stringValue, let line = e["line"]?.integerValue else { throw fail("caseID and line are required") }
        return ExpectedFailures.Entry(
            caseID: caseID, signatures: Set((e["signatures"]?.arrayValue ?? []).compactMap(\.stringValue)), reason: e["reason"]?.stringValue ?? "",
            line: Int(line))
    }
}

extension JSONValue {
    /// A number member's value as a `Double` (report times).
    fileprivate var number: Double? {
        if case .number(let n) = self { return n.double }
        return nil
    }
}
