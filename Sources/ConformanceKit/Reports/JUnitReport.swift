import Reference
import WireCore

/// JUnit XML (the Ant/Surefire dialect CI systems read): one `testsuite` per family and
/// kind, one `testcase` per vector, failures carrying the path and rule of each violation.
public enum JUnitReport {
    public static func render(_ report: RunReport) -> String {
        let groups = Dictionary(grouping: report.results, by: { "\($0.vector.family).\($0.vector.subject)" })
        let failures = report.results.filter { !$0.isOK }.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"conformance\" tests=\"\(report.results.count)\" failures=\"\(failures)\" time=\"\(JSONReport.milliseconds(report.seconds))\">\n"
        for name in groups.keys.sorted() {
            let results = groups[name] ?? []
            let suiteFailures = results.filter { !$0.isOK }.count
            let skipped = results.filter { $0.verdict == .expectedFailure || $0.verdict == .skipped }.count
            out += "  <testsuite name=\"\(escape(name))\" tests=\"\(results.count)\" failures=\"\(suiteFailures)\" skipped=\"\(skipped)\">\n"
            // The run's notes (what was trusted, e.g. --insecure-skip-verify; what was skipped) go
            // with every suite: a CI page shows suites, and a trust warning must not be lost there.
            if !report.notes.isEmpty {
                out += "    <properties>\n"
                for note in report.notes { out += "      <property name=\"note\" value=\"\(escape(note))\"/>\n" }
                out += "    </properties>\n"
            }
            for r in results {
                let caseName = String(r.vector.id.split(separator: "/").last ?? "")
                out += "    <testcase classname=\"\(escape(name))\" name=\"\(escape(caseName))\" time=\"\(JSONReport.milliseconds(r.seconds))\">\n"
                switch r.verdict {
                case .pass:
                    break
                case .expectedFailure:
                    out += "      <skipped message=\"\(escape("expected failure: " + (r.expectedEntry?.reason ?? "")))\"/>\n"
                case .skipped:
                    out += "      <skipped message=\"\(escape(r.summary))\"/>\n"
                default:
                    let type = r.signatures.sorted().joined(separator: ",")
                    out += "      <failure message=\"\(escape(r.summary))\" type=\"\(escape(type))\">"
                    out += escape(detail(r))
                    out += "</failure>\n"
                }
                let observations = r.notes + (r.met ? r.violations.map { "\($0.rule) at \"\($0.path)\"\($0.namesNote): expected \($0.expected), found \($0.found)" } : [])
                if !observations.isEmpty {
                    out += "      <system-out>\(escape((["\(r.statusWord):"] + observations).joined(separator: "\n")))</system-out>\n"
                }
                out += "    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    static func detail(_ r: CaseResult) -> String {
        if r.verdict == .unexpectedPass { return "listed as an expected failure but passes" }
        if r.violations.isEmpty { return r.summary }
        return r.violations.map { v in
            "\(v.rule) at \"\(v.path)\"\(v.namesNote): expected \(v.expected), found \(v.found) (\(v.section))"
                + (v.consequences.isEmpty ? "" : "; then \(v.consequences.count) consequences of it, not failed again")
        }
        .joined(separator: "\n")
    }

    static func escape(_ s: String) -> String { Markup.escape(s) }
}
