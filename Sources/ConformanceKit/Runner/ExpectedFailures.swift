import Foundation
import WireCore

/// An expected-failure list: cases another implementation is known to fail, so it can adopt
/// the kit gradually. One case a line: `CASE-ID [SIGNATURE,...]  # reason`. CASE-ID may be a
/// glob (`pairing/flow-a/*`) or a whole kind (`pairing/flow-a`); an exact id wins over a
/// pattern, and among patterns the first line that matches.
///
/// A signature is a rule id, or `unsupported`, `invalid-request`, `testee-crashed`,
/// `testee-timeout`, `testee-garbled`. With signatures, the case must fail with exactly those;
/// without, it must fail on its own rules only. A listed case that passes, or fails otherwise,
/// fails the run: the list never goes stale silently.
public struct ExpectedFailures: Sendable {
    public struct Entry: Sendable, Hashable {
        public var caseID: String
        public var signatures: Set<String>
        public var reason: String
        public var line: Int
    }

    /// Entries by their CASE-ID text (an id or a pattern).
    public var entries: [String: Entry]
    /// Entries in file order (patterns are tried in this order).
    public let ordered: [Entry]

    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let problem: String
        public var description: String { "line \(line): \(problem)" }
    }

    public init(entries: [Entry] = []) {
        self.entries = Dictionary(entries.map { ($0.caseID, $0) }, uniquingKeysWith: { a, _ in a })
        self.ordered = entries
    }

    /// The entry that lists case `id`, if any.
    public func entry(for id: String) -> Entry? {
        if let exact = entries[id] { return exact }
        return ordered.first { $0.caseID != id && CaseFilter.matches(pattern: $0.caseID, id: id) }
    }

    /// Entries that list no case among `cases` (a stale list fails the run).
    public func stale(among cases: [VectorCase]) -> [Entry] {
        ordered.filter { entry in !cases.contains { CaseFilter.matches(pattern: entry.caseID, id: $0.id) } }
    }

    public static func parse(_ text: String) throws -> ExpectedFailures {
        var entries: [Entry] = []
        var seen: Set<String> = []
        // CR LF is one Character: split on any line break (a list saved on Windows), not on "\n".
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let parts = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let body = parts[0].trimmingCharacters(in: .whitespaces)
            let reason = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            if body.isEmpty { continue }
            let fields = body.unicodeScalars.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { String(String.UnicodeScalarView($0)) }
            guard fields.count <= 2 else {
                throw ParseError(line: n + 1, problem: "expected `CASE-ID [SIGNATURE,...] # reason`, found \(fields.count) fields")
            }
            let id = fields[0]
            guard seen.insert(id).inserted else { throw ParseError(line: n + 1, problem: "\(id) is listed twice") }
            let signatures = fields.count == 2 ? Set(fields[1].unicodeScalars.split(separator: ",").map { String(String.UnicodeScalarView($0)) }) : []
            entries.append(Entry(caseID: id, signatures: signatures, reason: reason, line: n + 1))
        }
        return ExpectedFailures(entries: entries)
    }

    /// The text of a list naming `results`' failures, for adopting the kit in one step.
    public static func render(_ results: [CaseResult]) -> String {
        var out = "# Expected failures written by `conformance run --write-expected-failures`.\n"
        out += "# One case a line: CASE-ID SIGNATURES  # reason\n"
        // A testee's rule ids and reasons are its own text: a line break in one wrote list
        // entries of its choosing. A field keeps to its field, the reason to its comment.
        func field(_ text: String) -> String {
            String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.isWhitespace || $0 == "#" || $0 == "," || TerminalText.steers($0) ? "?" : $0 }))
        }
        for r in results where !r.met && r.verdict != .skipped {
            out += "\(field(r.vector.id)) \(r.signatures.sorted().map(field).joined(separator: ","))  # \(r.summary.terminalSafe)\n"
        }
        return out
    }
}
