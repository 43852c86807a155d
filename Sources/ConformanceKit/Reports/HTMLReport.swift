import Foundation
import Reference
import WireCore

/// The report of a run as one self-contained HTML file (`--format html`): no network, no
/// external file. A summary by family and kind, then every case that did not simply pass, each
/// failure with its rule, JSON Pointer, expected and found, a link to the rule's text, and the
/// document the case sent; checkboxes hide passed, skipped or not-implemented cases.
public enum HTMLReport {
    /// `specBase`: where the links to `Spec/<chapter>.md#ID` point (the repository's folder, a
    /// URL of its published copy); the rule's section is appended.
    public static func render(_ report: RunReport, specBase: String) -> String {
        var body = ""
        let verdict = report.ok ? "PASS" : "FAIL"
        body += "<h1><span class=\"\(report.ok ? "pass" : "fail")\" id=\"verdict\">\(verdict)</span> conformance run against \(escape(report.peer))</h1>\n"
        body += "<p id=\"summary\">\(report.results.count) case\(report.results.count == 1 ? "" : "s"): \(report.count(.pass)) passed, \(report.failedCount) failed, "
            + "\(report.count(.expectedFailure)) expected failures, \(count(report, "skipped")) skipped, \(count(report, "not-implemented")) not implemented "
            + "(\(String(format: "%.1f", report.seconds)) s)</p>\n"
        for note in report.notes { body += "<p class=\"note\">\(escape(note))</p>\n" }
        body += summaryTable(report)
        body += """
            <p class="filters">Show:
            <label><input type="checkbox" data-status="passed"> passed</label>
            <label><input type="checkbox" data-status="not-implemented"> not implemented</label>
            <label><input type="checkbox" data-status="skipped" checked> skipped</label>
            <label><input type="checkbox" data-status="failed" checked> failed</label></p>

            """
        body += "<div id=\"cases\">\n"
        for r in report.results {
            body += caseSection(r, specBase: specBase)
        }
        body += "</div>\n"
        for entry in report.unknownExpectedFailures {
            body += "<p class=\"fail\">Stale expected-failure line \(entry.line): \(escape(entry.caseID)) matches no case</p>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>conformance: \(verdict)</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
            table { border-collapse: collapse; margin: 1em 0; }
            td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
            .pass { color: #176f2c; } .fail { color: #b00020; } .note { color: #555; }
            section.case { border-left: 4px solid #ccc; margin: 0.8em 0; padding: 0 0.8em; }
            section.case[data-status="failed"] { border-color: #b00020; }
            section.case[data-status="passed"] { border-color: #176f2c; }
            pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; max-height: 20em; }
            .hidden { display: none; }
            </style></head>
            <body>
            \(body)<script>
            function apply() {
              const shown = new Set([...document.querySelectorAll('input[data-status]')].filter(b => b.checked).map(b => b.dataset.status));
              for (const s of document.querySelectorAll('section.case')) {
                const group = ['passed', 'skipped', 'not-implemented'].includes(s.dataset.status) ? s.dataset.status : 'failed';
                s.classList.toggle('hidden', !shown.has(group));
              }
            }
            for (const b of document.querySelectorAll('input[data-status]')) b.addEventListener('change', apply);
            apply();
            </script>
            </body></html>

            """
    }

    static func count(_ report: RunReport, _ status: String) -> Int { report.results.filter { $0.statusWord == status }.count }

    static func summaryTable(_ report: RunReport) -> String {
        var out = "<table id=\"kinds\"><tr><th>family</th><th>kind or machine</th><th>cases</th><th>passed</th><th>failed</th></tr>\n"
        let groups = Dictionary(grouping: report.results, by: { "\($0.vector.family)\u{0}\($0.vector.subject)" })
        for key in groups.keys.sorted() {
            let group = groups[key] ?? []
            let failed = group.filter { !$0.isOK }.count
            out += "<tr><td>\(escape(group[0].vector.family))</td><td>\(escape(group[0].vector.subject))</td><td>\(group.count)</td>"
                + "<td>\(group.filter { $0.verdict == .pass }.count)</td><td class=\"\(failed > 0 ? "fail" : "")\">\(failed)</td></tr>\n"
        }
        return out + "</table>\n"
    }

    static func caseSection(_ r: CaseResult, specBase: String) -> String {
        let status = r.isOK ? (r.verdict == .skipped ? "skipped" : (r.statusWord == "not-implemented" ? "not-implemented" : "passed")) : "failed"
        var out = "<section class=\"case\" data-status=\"\(status)\" id=\"\(escape(r.vector.id))\">\n"
        out += "<h3>\(escape(r.statusWord)) \(escape(r.vector.id))</h3>\n<p>\(escape(r.vector.comment))</p>\n"
        if r.violations.isEmpty {
            if status != "passed" { out += "<p>\(escape(r.summary))</p>\n" }
        } else {
            out += "<table><tr><th>rule</th><th>path</th><th>expected</th><th>found</th></tr>\n"
            for v in r.violations {
                let link = specBase + String(v.section.dropFirst("Spec/".count))
                out += "<tr><td><a href=\"\(escape(link))\">\(escape(v.rule.rawValue))</a></td><td><code>\(escape(v.path.description))</code>\(escape(v.namesNote))</td>"
                    + "<td>\(escape(v.expected))</td><td>\(escape(v.found))\(v.count > 1 ? " (seen \(v.count) times)" : "")</td></tr>\n"
                for c in v.consequences {
                    out += "<tr class=\"consequence\"><td>↳ \(escape(c.rule.rawValue))</td><td><code>\(escape(c.path.description))</code> \(escape(c.subject ?? ""))</td>"
                        + "<td>\(escape(c.expected))</td><td>\(escape(c.found)) (a consequence, not failed again)</td></tr>\n"
                }
            }
            out += "</table>\n"
        }
        for note in r.notes { out += "<p class=\"note\">note: \(escape(note))</p>\n" }
        if status == "failed", case .document(let kind, let input, _) = r.vector.body {
            out += "<details><summary>the \(escape(kind)) document sent</summary><pre>\(escape(shown(input)))</pre></details>\n"
        }
        if let wire = r.wire {
            // Open on a failure: the frames are what the violations are about.
            out += "<details class=\"wire\"\(status == "failed" ? " open" : "")><summary>wire log: \(wire.count) events (session-log lines)</summary><pre>"
            out += wire.events.map { escape(SessionLog.line($0)) }.joined(separator: "\n")
            if wire.omitted > 0 { out += "\n… and \(wire.omitted) more" }
            out += "</pre></details>\n"
        }
        return out + "</section>\n"
    }

    /// A document as text when it is UTF-8, else as base64; long ones cut at 8 KiB.
    static func shown(_ bytes: [UInt8]) -> String {
        let limit = 8 << 10
        let head = Array(bytes.prefix(limit))
        let text = String(decoding: head, as: UTF8.self)
        let body = text.utf8.elementsEqual(head) ? text : "base64: " + Data(head).base64EncodedString()
        return bytes.count > limit ? body + "\n… (\(bytes.count) bytes)" : body
    }

    static func escape(_ text: String) -> String { Markup.escape(text) }
}
