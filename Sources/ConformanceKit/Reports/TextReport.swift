import Reference
import WireCore

/// The human summary of a run: one line per family and kind, then every case that did not meet
/// its expectation with its violations, every skipped case with its reason, then one verdict
/// line. Readable in five seconds. Every text a testee, a peer or a merged report wrote reaches
/// the terminal through `terminalSafe` (Spec security.md, "What reaches a terminal").
public enum TextReport {
    public static func render(_ report: RunReport, color: Bool, verbose: Bool = false) -> String {
        let style = Style(enabled: color)
        var out = "conformance run: \(report.results.count) case\(report.results.count == 1 ? "" : "s") against \(report.peer.terminalSafe)\n"
        for note in report.notes { out += "  \(note.terminalSafe)\n" }
        out += "\n"
        let families = Dictionary(grouping: report.results, by: { $0.vector.family })
        for name in families.keys.sorted() {
            let results = families[name] ?? []
            let bySubject = Dictionary(grouping: results, by: { $0.vector.subject })
            out += "  \(name.terminalSafe.padding(12))\(tally(results, style: style))\n"
            for subject in bySubject.keys.sorted() {
                let group = bySubject[subject] ?? []
                out += "    \(subject.terminalSafe.padding(26))\(tally(group, style: style))\n"
                let grades = GradeTally(group)
                if !grades.allAgreed { out += "      \(grades.line)\n" }
            }
        }
        let listed = report.results.filter { r in
            if !r.isOK { return true }
            switch r.status {
            case .skipped, .nonStrict, .informational: return true
            case .notImplemented: return verbose
            default: return verbose && r.verdict == .expectedFailure
            }
        }
        if !listed.isEmpty { out += "\n" }
        for r in listed {
            out += "\(label(r, style: style)) \(r.vector.id.terminalSafe)\n"
            if r.verdict == .unexpectedPass {
                out += "       listed in expected failures (line \(r.expectedEntry?.line ?? 0)) but passes: remove it from the list\n"
                continue
            }
            if r.verdict == .failedDifferently, let entry = r.expectedEntry {
                out += "       listed with \(entry.signatures.isEmpty ? "its own rules" : entry.signatures.sorted().joined(separator: ",").terminalSafe) "
                    + "(line \(entry.line)), now fails with \(r.signatures.sorted().joined(separator: ",").terminalSafe)\n"
            }
            switch r.status {
            case .failed, .nonStrict, .informational:
                for v in r.violations {
                    let origin = v.subject.flatMap { $0 == r.vector.id ? nil : " in \($0)" } ?? ""
                    out += "       \(style.bold(v.rule.terminalSafe)) at \"\(v.path.terminalSafe)\"\((v.namesNote + origin).terminalSafe)\n"
                    out += "         expected \(v.expected.terminalSafe)\n         found    \(v.found.terminalSafe)\n"
                    if v.count > 1 { out += "         seen     \(v.count) times\n" }
                    out += "         see \(v.section.terminalSafe)\n"
                    out += consequences(v)
                }
            default:
                out += "       \(r.summary.terminalSafe)\n"
            }
            for note in r.notes { out += "       note: \(note.terminalSafe)\n" }
            if !r.isOK, let wire = r.wire { out += "       wire: \(wire.count) events both ways, in the JSON and HTML reports\n" }
            if !r.isOK, let replay = report.replay(r.vector.id) { out += "       replay: \(replay.terminalSafe)\n" }
        }
        for entry in report.unknownExpectedFailures {
            out += "\(style.red("STALE")) expected-failure line \(entry.line) names \(entry.caseID.terminalSafe), which matches no case\n"
        }
        for varied in report.varied {
            out += "\(style.red("FLAKY")) \(varied.id.terminalSafe): \(varied.outcomes.joined(separator: ", ").terminalSafe)\n"
        }
        let passed = report.count(.pass)
        let expected = report.count(.expectedFailure)
        let verdict = report.ok ? style.green("PASS") : style.red("FAIL")
        out += "\n\(verdict)  \(passed) passed, \(report.failedCount) failed, \(expected) expected failures"
        for (word, n) in extraCounts(report.results) { out += ", \(n) \(word)" }
        if !report.varied.isEmpty { out += ", \(report.varied.count) flaky" }
        let seconds = (report.seconds * 100).rounded() / 100
        out += " (\(seconds) s)\n"
        return out
    }

    /// Counts worth naming beside pass and fail, in a fixed order, only when not zero.
    public static func extraCounts(_ results: [CaseResult]) -> [(String, Int)] {
        func count(_ word: String) -> Int { results.filter { $0.statusWord == word }.count }
        let verdictOnly = results.filter { $0.verdict == .pass && $0.grade?.diagnosis == .notGiven }.count
        return [
            ("verdict only", verdictOnly), ("non-strict", count("non-strict")), ("informational", count("informational")),
            ("not implemented", count("not-implemented")), ("skipped", count("skipped")),
        ].filter { $0.1 > 0 }
    }

    static func tally(_ results: [CaseResult], style: Style) -> String {
        let passed = results.filter { $0.verdict == .pass }.count
        let expected = results.filter { $0.verdict == .expectedFailure }.count
        let failed = results.filter { !$0.isOK }.count
        var parts = ["\(passed)/\(results.count) passed"]
        if failed > 0 { parts.append(style.red("\(failed) failed")) }
        if expected > 0 { parts.append("\(expected) expected failures") }
        for (word, n) in extraCounts(results) { parts.append("\(n) \(word)") }
        return parts.joined(separator: ", ")
    }

    static func label(_ r: CaseResult, style: Style) -> String {
        switch r.verdict {
        case .expectedFailure: return style.yellow("XFAIL")
        case .unexpectedPass: return style.red("XPASS")
        case .skipped:
            if case .notImplemented = r.status { return style.yellow("NOIMP") }
            return style.yellow("SKIP ")
        default:
            switch r.status {
            case .nonStrict: return style.yellow("WARN ")
            case .informational: return "INFO "
            case .unsupported: return style.red("UNSUP")
            case .broken: return style.red("BROKE")
            default: return style.red("FAIL ")
            }
        }
    }
}

/// ANSI styling, off when the output is not a terminal.
struct Style {
    let enabled: Bool
    func wrap(_ s: String, _ code: String) -> String { enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    func red(_ s: String) -> String { wrap(s, "31") }
    func green(_ s: String) -> String { wrap(s, "32") }
    func yellow(_ s: String) -> String { wrap(s, "33") }
    func bold(_ s: String) -> String { wrap(s, "1") }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

extension TextReport {
    /// A finding's consequences, a line each (at most five, then how many more).
    static func consequences(_ v: Violation) -> String {
        guard !v.consequences.isEmpty else { return "" }
        let n = v.consequences.count
        var out = "         then \(n) \(n == 1 ? "consequence" : "consequences") of it, not failed again:\n"
        for c in v.consequences.prefix(5) {
            let origin = c.subject.map { " in \($0)" } ?? ""
            out += "           \(c.rule.terminalSafe) at \"\(c.path.terminalSafe)\"\(origin.terminalSafe): expected \(c.expected.terminalSafe), found \(c.found.terminalSafe)\n"
        }
        if n > 5 { out += "           and \(n - 5) more\n" }
        return out
    }
}
