import Foundation
import WireCore

/// The matrix: implementations by roles, each cell a run's counts and a link to its reports,
/// in text, JSON and HTML (the QUIC interop runner's table, Autobahn's agents by cases).
public struct MatrixReport: Sendable {
    public struct Cell: Sendable {
        public var implementation: String
        public var role: MatrixFile.Role
        /// The counts of the run's report, when it wrote one. Only they are kept: the report
        /// itself is in the cell's files, and a matrix of many cells holds no more than its counts.
        public var counts: Counts?
        /// Why the cell has no report (the peer did not start, the run exited 2), or nil.
        public var error: String?
        /// The cell's files, relative to the matrix's folder: `cells/<implementation>--<role>`.
        public var stem: String

        /// A run's cases by outcome, and whether it passed.
        public struct Counts: Sendable, Hashable {
            public var cases: Int
            /// Not skipped.
            public var judged: Int
            /// Passed, or failed as expected.
            public var passed: Int
            public var failed: Int
            public var ok: Bool

            public init(_ report: RunReport) {
                cases = report.results.count
                judged = report.results.filter { $0.verdict != .skipped }.count
                passed = report.results.filter { $0.verdict == .pass || $0.verdict == .expectedFailure }.count
                failed = report.failedCount
                ok = report.ok
            }
        }

        public init(implementation: String, role: MatrixFile.Role, report: RunReport?, error: String?, stem: String) {
            self.implementation = implementation
            self.role = role
            counts = report.map(Counts.init)
            self.error = error
            self.stem = stem
        }

        public var ok: Bool { error == nil && (counts?.ok ?? false) }

        /// `passed/cases` with the failures, or the error.
        public var summary: String {
            guard let counts, error == nil else { return "error: \(error ?? "no report")" }
            var text = "\(counts.passed)/\(counts.judged) passed"
            if counts.failed > 0 { text += ", \(counts.failed) failed" }
            let skipped = counts.cases - counts.judged
            if skipped > 0 { text += ", \(skipped) skipped" }
            return text
        }
    }

    /// Two implementations (or one with itself) through `conformance watch`, which judges both
    /// sides: a phone pairing with a desktop, or a sender migrating to a receiver.
    public struct Pair: Sendable {
        public enum Kind: String, Sendable {
            /// `first` is the phone, `second` the desktop.
            case pairing
            /// `first` is the sender (the old phone), `second` the receiver.
            case migration

            var roles: (MatrixFile.Role, MatrixFile.Role) { self == .pairing ? (.phone, .desktop) : (.sender, .receiver) }
        }

        public var kind: Kind
        public var first: String
        public var second: String
        /// The relay implementation the pair went through (the watch forwarding to it), or nil
        /// when the watch hosted the Spec's relay itself.
        public var relay: String?
        public var ok: Bool
        /// The first session's outcome and the violations by side, or the error.
        public var summary: String
        /// `pairs/<first>--<second>` or `transfers/<first>--<second>`: the watch's JSON, HTML and session log.
        public var stem: String

        public init(kind: Kind, first: String, second: String, relay: String? = nil, ok: Bool, summary: String, stem: String) {
            self.relay = relay
            self.kind = kind
            self.first = first
            self.second = second
            self.ok = ok
            self.summary = summary
            self.stem = stem
        }

        var title: String {
            kind == .pairing
                ? "\(first) phone with \(second) desktop" + (relay.map { " through \($0) relay" } ?? "") : "\(first) sender to \(second) receiver"
        }
    }

    public var implementations: [String]
    public var cells: [Cell]
    public var pairs: [Pair]

    public init(implementations: [String], cells: [Cell], pairs: [Pair] = []) {
        self.implementations = implementations
        self.cells = cells
        self.pairs = pairs
    }

    public var ok: Bool { cells.allSatisfy(\.ok) && pairs.allSatisfy(\.ok) }
    var played: Int { cells.count + pairs.count }
    var passed: Int { cells.filter(\.ok).count + pairs.filter(\.ok).count }

    /// The roles some implementation plays, in the file format's order.
    public var roles: [MatrixFile.Role] { MatrixFile.Role.allCases.filter { role in cells.contains { $0.role == role } } }

    public func cell(_ implementation: String, _ role: MatrixFile.Role) -> Cell? {
        cells.first { $0.implementation == implementation && $0.role == role }
    }

    public func text() -> String {
        var out = "conformance matrix: \(implementations.count) implementations, \(cells.count) cells, \(pairs.count) pairs\n\n"
        for name in implementations {
            for role in roles {
                guard let c = cell(name, role) else { continue }
                out += "\(c.ok ? "PASS" : "FAIL")  \(name) as \(role.rawValue): \(c.summary.terminalSafe)  (\(c.stem).html)\n"
            }
        }
        for p in pairs {
            out += "\(p.ok ? "PASS" : "FAIL")  \(p.title): \(p.summary.terminalSafe)  (\(p.stem).html)\n"
        }
        out += "\n\(ok ? "PASS" : "FAIL")  \(passed) of \(played) cells passed\n"
        return out
    }

    public func json() -> String {
        let list: [JSONValue] = cells.map { c in
            var o = JSONObject([
                "implementation": .string(c.implementation), "role": .string(c.role.rawValue), "ok": .bool(c.ok), "summary": .string(c.summary),
                "report": .string(c.stem + ".json"), "html": .string(c.stem + ".html"),
            ])
            if let error = c.error { o["error"] = .string(error) }
            if let counts = c.counts {
                o["cases"] = .number(JSONNumber(Int64(counts.cases)))
                o["failed"] = .number(JSONNumber(Int64(counts.failed)))
            }
            return .object(o)
        }
        let pairList: [JSONValue] = pairs.map { p in
            let (a, b) = p.kind.roles
            var o = JSONObject([
                "family": .string(p.kind.rawValue), a.rawValue: .string(p.first), b.rawValue: .string(p.second), "ok": .bool(p.ok),
                "summary": .string(p.summary), "report": .string(p.stem + ".json"), "html": .string(p.stem + ".html"), "log": .string(p.stem + ".jsonl"),
            ])
            if let relay = p.relay { o["relay"] = .string(relay) }
            return .object(o)
        }
        let root: JSONValue = [
            "matrix": .number(JSONNumber(MatrixFile.version)), "ok": .bool(ok), "implementations": .array(implementations.map { .string($0) }),
            "roles": .array(roles.map { .string($0.rawValue) }), "cells": .array(list), "pairs": .array(pairList),
        ]
        return JSONSerializer.pretty(root) + "\n"
    }

    /// One self-contained page: rows are implementations, columns roles, each played cell a link
    /// to its run's HTML report.
    public func html() -> String {
        func escape(_ s: String) -> String { Markup.escape(s) }
        var rows = ""
        for name in implementations {
            rows += "<tr><th>\(escape(name))</th>"
            for role in roles {
                if let c = cell(name, role) {
                    rows += "<td class=\"\(c.ok ? "pass" : "fail")\"><a href=\"\(escape(c.stem)).html\">\(escape(c.summary))</a></td>"
                } else {
                    rows += "<td class=\"none\">not played</td>"
                }
            }
            rows += "</tr>\n"
        }
        var pairTable = ""
        // One table per kind and relay: the watch's own relay first, then each relay implementation.
        var groups: [(Pair.Kind, String?)] = []
        for p in pairs where !groups.contains(where: { $0.0 == p.kind && $0.1 == p.relay }) { groups.append((p.kind, p.relay)) }
        for (kind, relay) in groups {
            let (a, b) = kind.roles
            let rowsOf = implementations.filter { cell($0, a) != nil }
            let colsOf = implementations.filter { cell($0, b) != nil }
            let through = relay.map { "through the \(escape($0)) relay, watched" } ?? "through conformance watch"
            pairTable += "<h2>\(kind == .pairing ? "Phones with desktops" : "Senders to receivers") \(through)</h2>\n"
            pairTable += "<table class=\"\(kind.rawValue)\"><tr><th>\(a.rawValue) \\ \(b.rawValue)</th>" + colsOf.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
            for row in rowsOf {
                pairTable += "<tr><th>\(escape(row))</th>"
                for col in colsOf {
                    if let p = pairs.first(where: { $0.kind == kind && $0.relay == relay && $0.first == row && $0.second == col }) {
                        pairTable += "<td class=\"\(p.ok ? "pass" : "fail")\"><a href=\"\(escape(p.stem)).html\">\(escape(p.summary))</a></td>"
                    } else {
                        pairTable += "<td class=\"none\">not played</td>"
                    }
                }
                pairTable += "</tr>\n"
            }
            pairTable += "</table>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>conformance matrix</title>
            <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.4em .8em}
            td.pass{background:#e6f4ea}td.fail{background:#fce8e6}td.none{color:#888}</style></head>
            <body><h1>conformance matrix</h1>
            <p id="verdict">\(ok ? "PASS" : "FAIL"): \(passed) of \(played) cells passed</p>
            <table id="matrix"><tr><th></th>\(roles.map { "<th>\(escape($0.rawValue))</th>" }.joined())</tr>
            \(rows)</table>
            \(pairTable)</body></html>

            """
    }
}
