import WireCore

/// Output of `conformance check`.
public enum CheckReport {
    public static func text(_ results: [DocumentChecker.Result], color: Bool) -> String {
        let style = Style(enabled: color)
        var out = ""
        for r in results {
            let kind = r.kind.map { " (\($0))" } ?? ""
            if r.violations.isEmpty {
                out += "\(style.green("ok  "))  \(r.name)\(kind)\n"
                continue
            }
            out += "\(style.red("FAIL"))  \(r.name)\(kind)\n"
            for v in r.violations {
                let offset = v.byteOffset.map { " (byte \($0))" } ?? ""
                out += "      \(style.bold(v.rule.rawValue)) at \"\(v.path)\"\(v.namesNote)\(offset)\n"
                out += "        expected \(v.expected)\n        found    \(v.found)\n        see \(v.section)\n"
            }
            if r.omitted > 0 { out += "      and \(r.omitted) more \(r.omitted == 1 ? "violation" : "violations") (at most \(ViolationList.maxListed) are listed per document)\n" }
        }
        let failing = results.filter { !$0.violations.isEmpty }.count
        out += "\n\(results.count - failing) of \(results.count) documents conform\n"
        return out
    }

    public static func json(_ results: [DocumentChecker.Result]) -> String {
        let documents: [JSONValue] = results.map { r in
            var o = JSONObject(["document": .string(r.name), "conforms": .bool(r.violations.isEmpty)])
            if let kind = r.kind { o["kind"] = .string(kind) }
            o["violations"] = .array(r.violations.map(JSONReport.violationJSON))
            if r.omitted > 0 { o["omittedViolations"] = .number(JSONNumber(Int64(r.omitted))) }
            if let canonical = r.canonical { o["canonical"] = canonical }
            return .object(o)
        }
        return JSONSerializer.pretty(["documents": .array(documents)]) + "\n"
    }
}
