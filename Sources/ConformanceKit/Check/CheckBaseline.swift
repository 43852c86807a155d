import Reference
import TesteeProtocol
import WireCore

/// `check --baseline`: findings a team has accepted for now, so `check` can gate CI from the
/// day it is adopted and only new findings fail. One line per rule and place,
/// `DOCUMENT RULE AT [xN]  # note`, where AT is what the findings name (`Solve.date`) or, without
/// a name, their JSON pointer (a name survives an entity added before it, an index does not),
/// and `xN` how many findings the line accepts when more than one: one more is new, one fewer
/// makes the line stale, so a line never absorbs every finding of its rule and place. Fields are
/// percent-encoded where they hold a space, `#` or `%`.
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
        /// How many findings the line accepts (`xN`, 1 when not written).
        public var count = 1
        /// For a stale line: how many of them this run found.
        public var matched = 0
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
        /// Lines that match fewer findings than they accept (none, or some fixed), of a
        /// document this run checked.
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
            guard fields.count == 3 || fields.count == 4 else {
                throw ParseError(line: n + 1, problem: "expected `DOCUMENT RULE AT [xN]  # note`, found \(fields.count) fields")
            }
            var count = 1
            if fields.count == 4 {
                guard fields[3].hasPrefix("x"), let accepted = Int(fields[3].dropFirst()), accepted >= 2, accepted <= 1_000_000 else {
                    throw ParseError(line: n + 1, problem: "the fourth field is xN, how many findings the line accepts (2 or more), found \(fields[3])")
                }
                count = accepted
            }
            guard let document = decode(fields[0]), let at = decode(fields[2]) else {
                throw ParseError(line: n + 1, problem: "a % not followed by two hex digits")
            }
            guard seen.insert([document, fields[1], at]).inserted else {
                throw ParseError(line: n + 1, problem: "\(fields[0]) \(fields[1]) \(fields[2]) is listed twice")
            }
            entries.append(Entry(document: document, rule: fields[1], at: at, line: n + 1, count: count))
        }
        return CheckBaseline(entries: entries)
    }

    /// Every finding of `results` as a baseline, in report order, a line per rule and place
    /// with how many findings it holds.
    public static func render(_ results: [DocumentChecker.Result]) -> String {
        var out = "# Findings accepted for now, written by `conformance check --write-baseline`.\n"
        out += "# A line a rule and place: DOCUMENT RULE AT [xN]  # note, xN when it holds N findings. One more is new;\n"
        out += "# one fewer fails `check --baseline` until the line says so (or goes).\n"
        var order: [[String]] = []
        var counts: [[String]: (count: Int, first: Violation)] = [:]
        for r in results {
            for v in r.violations {
                let key = [r.name, v.rule.rawValue, at(v)]
                if let seen = counts[key] { counts[key] = (seen.count + 1, seen.first) } else {
                    counts[key] = (1, v)
                    order.append(key)
                }
            }
        }
        for key in order {
            let (count, v) = counts[key]!
            out += "\(encode(key[0])) \(key[1]) \(encode(key[2]))\(count > 1 ? " x\(count)" : "")  # expected \(oneLine(v.expected)), found \(oneLine(v.found))\n"
        }
        return out
    }

    public func apply(to results: [DocumentChecker.Result]) -> Outcome {
        let checked = Set(results.map(\.name))
        var accepts: [[String]: Int] = [:]
        for e in entries { accepts[[e.document, e.rule, e.at]] = e.count }
        var used: [[String]: Int] = [:]
        var baselined: [String: [Violation]] = [:]
        let remaining = results.map { r -> DocumentChecker.Result in
            var copy = r
            copy.violations = r.violations.filter { v in
                let key = [r.name, v.rule.rawValue, Self.at(v)]
                // Past the count the line accepts, a finding is new.
                guard let accepted = accepts[key], used[key, default: 0] < accepted else { return true }
                used[key, default: 0] += 1
                baselined[r.name, default: []].append(v)
                return false
            }
            return copy
        }
        let stale = entries.compactMap { e -> Entry? in
            let matched = used[[e.document, e.rule, e.at], default: 0]
            guard checked.contains(e.document), matched < e.count else { return nil }
            var stale = e
            stale.matched = matched
            return stale
        }
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
