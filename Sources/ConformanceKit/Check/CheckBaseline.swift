import Reference
import TesteeProtocol
import WireCore

/// `check --baseline`: findings a team has accepted for now, so `check` can gate CI from the
/// day it is adopted and only new findings fail. One finding a line, `DOCUMENT RULE AT  # note`,
/// where AT is what the finding names (`Solve.date`) or, without a name, its JSON pointer: a
/// name survives an entity added before it, an index does not. Fields are percent-encoded
/// where they hold a space, `#` or `%`.
///
/// The semantics are those of an expected-failure list: a line that matches no finding of a
/// document checked in this run fails the run, so a fixed finding is taken off the list, never
/// left to hide its return. Lines for documents this run did not check are left alone.
public struct CheckBaseline: Sendable {
    public struct Entry: Sendable, Hashable {
        public var document: String
        public var rule: String
        public var at: String
        public var line: Int
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let problem: String
        public var description: String { "line \(line): \(problem)" }
    }

    /// What a baseline did to one run's results.
    public struct Outcome: Sendable {
        /// The results without their baselined findings.
        public var results: [DocumentChecker.Result]
        /// Baselined findings, by document name.
        public var baselined: [String: [Violation]]
        /// Lines that match no finding of a document this run checked.
        public var stale: [Entry]
        /// Lines about documents this run did not check.
        public var elsewhere: Int
    }

    public let entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// The finding's AT field: its name when the checker knows one, else its pointer.
    public static func at(_ v: Violation) -> String { v.names ?? v.path.description }

    public static func parse(_ text: String) throws(ParseError) -> CheckBaseline {
        var entries: [Entry] = []
        var seen: Set<[String]> = []
        for (n, raw) in text.unicodeScalars.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }).enumerated() {
            let body = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let fields = body.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { String(String.UnicodeScalarView($0)) }
            if fields.isEmpty { continue }
            guard fields.count == 3 else {
                throw ParseError(line: n + 1, problem: "expected `DOCUMENT RULE AT  # note`, found \(fields.count) fields")
            }
            guard let document = decode(fields[0]), let at = decode(fields[2]) else {
                throw ParseError(line: n + 1, problem: "a % not followed by two hex digits")
            }
            guard seen.insert([document, fields[1], at]).inserted else {
                throw ParseError(line: n + 1, problem: "\(fields[0]) \(fields[1]) \(fields[2]) is listed twice")
            }
            entries.append(Entry(document: document, rule: fields[1], at: at, line: n + 1))
        }
        return CheckBaseline(entries: entries)
    }

    /// Every finding of `results` as a baseline, in report order, one line each.
    public static func render(_ results: [DocumentChecker.Result]) -> String {
        var out = "# Findings accepted for now, written by `conformance check --write-baseline`.\n"
        out += "# One a line: DOCUMENT RULE AT  # note. A line that stops matching fails `check --baseline`: remove it.\n"
        var seen: Set<[String]> = []
        for r in results {
            for v in r.violations where seen.insert([r.name, v.rule.rawValue, at(v)]).inserted {
                out += "\(encode(r.name)) \(v.rule.rawValue) \(encode(at(v)))  # expected \(oneLine(v.expected)), found \(oneLine(v.found))\n"
            }
        }
        return out
    }

    public func apply(to results: [DocumentChecker.Result]) -> Outcome {
        let checked = Set(results.map(\.name))
        let keys = Set(entries.map { [$0.document, $0.rule, $0.at] })
        var used: Set<[String]> = []
        var baselined: [String: [Violation]] = [:]
        let remaining = results.map { r -> DocumentChecker.Result in
            var copy = r
            copy.violations = r.violations.filter { v in
                let key = [r.name, v.rule.rawValue, Self.at(v)]
                guard keys.contains(key) else { return true }
                used.insert(key)
                baselined[r.name, default: []].append(v)
                return false
            }
            return copy
        }
        let stale = entries.filter { checked.contains($0.document) && !used.contains([$0.document, $0.rule, $0.at]) }
        return Outcome(results: remaining, baselined: baselined, stale: stale, elsewhere: entries.filter { !checked.contains($0.document) }.count)
    }

    /// A field as a baseline line holds it: a space, `#`, `%` or a character that steers a
    /// terminal (`TerminalText.steers`) as `%XX`, a byte of its UTF-8 each.
    public static func encode(_ field: String) -> String {
        var out = ""
        for scalar in field.unicodeScalars {
            if scalar.value <= 0x20 || scalar == "#" || scalar == "%" || TerminalText.steers(scalar) {
                for byte in String(scalar).utf8 { out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true) }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func decode(_ field: String) -> String? {
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            let digits = Array(utf8.prefix(2))
            guard digits.count == 2, digits.allSatisfy({ UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 || UInt8(ascii: "A")...UInt8(ascii: "F") ~= $0 || UInt8(ascii: "a")...UInt8(ascii: "f") ~= $0 }),
                let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A note stays on its line, and steers no terminal that shows the file.
    static func oneLine(_ text: String) -> String { TerminalText.escaped(text) }
}
