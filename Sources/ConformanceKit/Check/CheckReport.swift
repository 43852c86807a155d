import Reference
import TesteeProtocol
import WireCore

/// Output of `conformance check`.
public enum CheckReport {
    public static func text(_ results: [DocumentChecker.Result], color: Bool, baseline: CheckBaseline.Outcome? = nil) -> String {
        let style = Style(enabled: color)
        var out = ""
        for r in results {
            let kind = r.kind.map { " (\($0))" } ?? ""
            let accepted = baseline?.baselined[r.name]?.count ?? 0
            let note = accepted == 0 ? "" : " · \(accepted) baselined \(accepted == 1 ? "finding" : "findings")"
            let notes = r.notes.map { "      note: \($0.terminalSafe)\n" }.joined()
            if r.violations.isEmpty {
                out += "\(style.green("ok  "))  \((r.name + kind).terminalSafe)\(note)\n" + notes
                continue
            }
            out += "\(style.red("FAIL"))  \((r.name + kind).terminalSafe)\(note)\n"
            // A document's member names, values and model names are the document author's text.
            for v in r.violations {
                let offset = v.byteOffset.map { " (byte \($0))" } ?? ""
                out += "      \(style.bold(v.rule.terminalSafe)) at \"\(v.path.terminalSafe)\"\(v.namesNote.terminalSafe)\(offset)\n"
                out += "        expected \(v.expected.terminalSafe)\n        found    \(v.found.terminalSafe)\n        see \(v.section.terminalSafe)\n"
            }
            if r.omitted > 0 { out += "      and \(r.omitted) more \(r.omitted == 1 ? "violation" : "violations") (at most \(ViolationList.maxListed) are listed per document)\n" }
            out += notes
        }
        for entry in baseline?.stale ?? [] {
            if entry.matched == 0 {
                out += "\(style.red("FAIL"))  baseline line \(entry.line): \("\(entry.document) \(entry.rule) at \(entry.at)".terminalSafe) matches no finding now\n"
                out += "        fixed? take the line out of the baseline\n"
            } else {
                out += "\(style.red("FAIL"))  baseline line \(entry.line): \("\(entry.document) \(entry.rule) at \(entry.at)".terminalSafe) accepts \(entry.count) findings, \(entry.matched) now\n"
                out += "        fixed some? write the line's count as x\(entry.matched)\(entry.matched == 1 ? " (or leave it out)" : "")\n"
            }
        }
        let failing = results.filter { !$0.violations.isEmpty }.count
        out += "\n\(results.count - failing) of \(results.count) documents conform"
        if let baseline {
            let accepted = baseline.baselined.values.reduce(0) { $0 + $1.count }
            out += " · \(accepted) baselined \(accepted == 1 ? "finding" : "findings"), \(baseline.stale.count) stale baseline \(baseline.stale.count == 1 ? "line" : "lines")"
            if baseline.elsewhere > 0 { out += ", \(baseline.elsewhere) about documents not checked in this run" }
        }
        return out + "\n"
    }

    public static func json(_ results: [DocumentChecker.Result], baseline: CheckBaseline.Outcome? = nil) -> String {
        let documents: [JSONValue] = results.map { r in
            var o = JSONObject(["document": .string(r.name), "conforms": .bool(r.violations.isEmpty)])
            if let kind = r.kind { o["kind"] = .string(kind) }
            o["violations"] = .array(r.violations.map(JSONReport.violationJSON))
            if let accepted = baseline?.baselined[r.name] { o["baselined"] = .array(accepted.map(JSONReport.violationJSON)) }
            if r.omitted > 0 { o["omittedViolations"] = .number(JSONNumber(Int64(r.omitted))) }
            if !r.notes.isEmpty { o["notes"] = .array(r.notes.map { .string($0) }) }
            if let canonical = r.canonical { o["canonical"] = canonical }
            return .object(o)
        }
        var top = JSONObject(["documents": .array(documents)])
        if let baseline {
            top["baseline"] = [
                "stale": .array(baseline.stale.map { e in
                    [
                        "line": .number(JSONNumber(Int64(e.line))), "document": .string(e.document), "rule": .string(e.rule), "at": .string(e.at),
                        "count": .number(JSONNumber(Int64(e.count))), "matched": .number(JSONNumber(Int64(e.matched))),
                    ]
                }),
                "elsewhere": .number(JSONNumber(Int64(baseline.elsewhere))),
            ]
        }
        return JSONSerializer.pretty(.object(top)) + "\n"
    }
}
