import Foundation
import Reference
import WireCore

/// The reports of `conformance watch` and `conformance check --session`: text, JSON, JUnit and
/// HTML (each session a sequence diagram: a lane per connection, frames as arrows, violations
/// marked and linked to their rule).
public enum WatchReport {
    /// The side named as the report names it: `phone (android-pixel)`.
    static func who(_ f: WatchFinding) -> String {
        let side = f.side + (f.name.map { " (\($0))" } ?? "")
        return f.connection.map { "\(side), connection \($0)" } ?? side
    }

    /// Each session's findings, found once (a filter per session was quadratic).
    static func bySession(_ r: WatchResult) -> (sessions: [Int: [WatchFinding]], loose: [WatchFinding]) {
        var sessions: [Int: [WatchFinding]] = [:]
        var loose: [WatchFinding] = []
        for f in r.findings {
            if let i = f.session { sessions[i, default: []].append(f) } else { loose.append(f) }
        }
        return (sessions, loose)
    }

    /// Every text a peer, a log or a label wrote reaches the terminal through `terminalSafe`.
    public static func text(_ r: WatchResult, color: Bool) -> String {
        let style = Style(enabled: color)
        var out = "conformance watch: \(r.family.terminalSafe), \(r.connections.count) connection(s), \(r.sessions.count) session(s)\n\n"
        for c in r.connections {
            let ids = c.registered.map(JSONSerializer.quoted).joined(separator: ", ")
            out += "  connection \(c.id)  \(c.side)\(c.name.map { " (\($0))" } ?? "")\(ids.isEmpty ? "" : "  registered \(ids)")".terminalSafe + "\n"
        }
        if !r.sessions.isEmpty { out += "\n" }
        let grouped = bySession(r)
        for (i, s) in r.sessions.enumerated() {
            let word = s.outcome == "broken" ? style.red(s.outcome) : s.outcome == "abandoned" ? style.yellow(s.outcome) : style.green(s.outcome)
            let sides = s.connections.keys.sorted().map { "\($0) \(s.connections[$0]!)" }.joined(separator: ", ")
            let count = grouped.sessions[i]?.count ?? 0
            out += "  session \(i + 1)  \(s.flow.padding(9))\(word)\((s.step.map { " at \($0)" } ?? "").terminalSafe)  (\(sides))\(count > 0 ? ", \(count) violation(s)" : "")\n"
        }
        if !r.findings.isEmpty { out += "\n" }
        for f in r.findings {
            let v = f.violation
            out += "\(style.red("FAIL"))  \(who(f).terminalSafe): \(style.bold(v.rule.terminalSafe)) at \"\(v.path.terminalSafe)\"\(f.session.map { " in session \($0 + 1)" } ?? "")\n"
            out += "        expected \(v.expected.terminalSafe)\n        found    \(v.found.terminalSafe)\n"
            if let frame = f.frame { out += "        frame    \(frame.terminalSafe)\n" }
            if let repeats = repeats(f) { out += "        seen     \(repeats.terminalSafe)\n" }
            out += "        see \(v.section.terminalSafe)\n"
        }
        if r.findingsOmitted > 0 { out += "\(style.red("FAIL"))  and \(r.findingsOmitted) more violation(s) (the first \(r.findings.count) are listed)\n" }
        for note in r.notes.prefix(50) { out += "  note: \(note.terminalSafe)\n" }
        if r.notes.count > 50 { out += "  and \(r.notes.count - 50) more notes\n" }
        let bySide = Dictionary(grouping: r.findings, by: \.side).map { "\($0.key) \($0.value.count)" }.sorted().joined(separator: ", ")
        out += "\n" + (r.ok ? style.green("PASS") : style.red("FAIL"))
        out += "  \(r.findings.count + r.findingsOmitted) violation(s)\(bySide.isEmpty ? "" : " (\(bySide)\(r.findingsOmitted > 0 ? " among the first \(r.findings.count)" : ""))"), "
        out += "\(r.sessions.filter { $0.outcome == "paired" || $0.outcome == "migrated" }.count) of \(r.sessions.count) session(s) completed\n"
        return out
    }

    /// A violation seen more than once: how often, and the last time (its frame too).
    static func repeats(_ f: WatchFinding) -> String? {
        guard f.count > 1 else { return nil }
        return "\(f.count) times" + (f.last.map { ", last at \($0.at)" + ($0.frame.map { ": \($0)" } ?? "") } ?? "")
    }

    static func findingJSON(_ f: WatchFinding) -> JSONValue {
        guard case .object(var o) = JSONReport.violationJSON(f.violation) else { return .null }
        o["side"] = .string(f.side)
        if let name = f.name { o["name"] = .string(name) }
        if let c = f.connection { o["connection"] = .number(JSONNumber(Int64(c))) }
        if let frame = f.frame { o["frame"] = .string(frame) }
        o["at"] = .number(JSONNumber(f.at))
        if f.count > 1 {
            o["count"] = .number(JSONNumber(Int64(f.count)))
            if let last = f.last {
                o["lastAt"] = .number(JSONNumber(last.at))
                if let frame = last.frame { o["lastFrame"] = .string(frame) }
            }
        }
        return .object(o)
    }

    public static func json(_ r: WatchResult) -> String {
        let grouped = bySession(r)
        let sessions: [JSONValue] = r.sessions.enumerated().map { i, s in
            var o = JSONObject(["flow": .string(s.flow), "outcome": .string(s.outcome)])
            if let step = s.step { o["step"] = .string(step) }
            if let code = s.code { o["code"] = .string(code) }
            var sides = JSONObject()
            for key in s.connections.keys.sorted() { sides[key] = .number(JSONNumber(Int64(s.connections[key]!))) }
            o["connections"] = .object(sides)
            o["startedAt"] = .number(JSONNumber(s.startedAt))
            if let end = s.endedAt { o["endedAt"] = .number(JSONNumber(end)) }
            o["violations"] = .array((grouped.sessions[i] ?? []).map(findingJSON))
            return .object(o)
        }
        let connections: [JSONValue] = r.connections.map { c in
            var o = JSONObject(["id": .number(JSONNumber(Int64(c.id))), "side": .string(c.side), "registered": .array(c.registered.map { .string($0) })])
            if let name = c.name { o["name"] = .string(name) }
            o["opened"] = .number(JSONNumber(c.opened))
            if let closed = c.closed { o["closed"] = .number(JSONNumber(closed)) }
            return .object(o)
        }
        var bySide = JSONObject()
        for (side, list) in Dictionary(grouping: r.findings, by: \.side).sorted(by: { $0.key < $1.key }) { bySide[side] = .number(JSONNumber(Int64(list.count))) }
        var watch = JSONObject([
            "family": .string(r.family), "ok": .bool(r.ok), "violationsBySide": .object(bySide), "connections": .array(connections),
            "sessions": .array(sessions), "violations": .array(r.findings.map(findingJSON)), "notes": .array(r.notes.map { .string($0) }),
        ])
        if r.findingsOmitted > 0 { watch["omittedViolations"] = .number(JSONNumber(Int64(r.findingsOmitted))) }
        if r.unforwarded > 0 { watch["unforwardedConnections"] = .number(JSONNumber(Int64(r.unforwarded))) }
        let root: JSONValue = ["watch": .object(watch)]
        return JSONSerializer.pretty(root) + "\n"
    }

    /// One test case per session, and one for what belongs to no session.
    public static func junit(_ r: WatchResult) -> String {
        func failures(_ list: [WatchFinding]) -> String {
            list.map { f in
                let v = f.violation
                let text = "\(who(f)): \(v.rule) at \"\(v.path)\": expected \(v.expected), found \(v.found)" + (f.frame.map { "\nframe \($0)" } ?? "")
                    + (repeats(f).map { "\nseen \($0)" } ?? "")
                return "      <failure message=\"\(Markup.escape("\(f.side): \(v.rule) at \"\(v.path)\""))\" type=\"\(Markup.escape(v.rule.rawValue))\">\(Markup.escape(text))</failure>\n"
            }.joined()
        }
        let (grouped, loose) = bySession(r)
        let total = r.sessions.count + 1
        let failed = grouped.count + (loose.isEmpty && r.findingsOmitted == 0 ? 0 : 1)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"conformance watch\" tests=\"\(total)\" failures=\"\(failed)\">\n"
        out += "  <testsuite name=\"watch.\(Markup.escape(r.family))\" tests=\"\(total)\" failures=\"\(failed)\">\n"
        for (i, s) in r.sessions.enumerated() {
            out += "    <testcase classname=\"watch.\(Markup.escape(r.family))\" name=\"session \(i + 1) \(Markup.escape(s.flow))\">\n"
            out += failures(grouped[i] ?? [])
            out += "      <system-out>\(Markup.escape(s.outcome + (s.step.map { " at \($0)" } ?? "")))</system-out>\n    </testcase>\n"
        }
        out += "    <testcase classname=\"watch.\(Markup.escape(r.family))\" name=\"outside any session\">\n\(failures(loose))"
        if r.findingsOmitted > 0 {
            out += "      <failure message=\"\(r.findingsOmitted) more violation(s)\" type=\"omitted\">the first \(r.findings.count) are listed; the session log holds every frame</failure>\n"
        }
        if !r.notes.isEmpty { out += "      <system-out>\(Markup.escape(r.notes.joined(separator: "\n")))</system-out>\n" }
        out += "    </testcase>\n  </testsuite>\n</testsuites>\n"
        return out
    }
}

extension WatchReport {
    /// One self-contained page: a summary, then each session as a sequence diagram (a lane per
    /// connection and one for the server, frames as arrows in time order, a violation's frame in
    /// red with its rule linked to `specBase`), then the findings outside any session.
    public static func html(_ r: WatchResult, specBase: String) -> String {
        var body = "<h1>conformance watch: \(Markup.escape(r.family))</h1>\n"
        body += "<p class=\"\(r.ok ? "pass" : "fail")\">\(r.ok ? "PASS" : "FAIL"): \(r.findings.count) violation(s) in \(r.sessions.count) session(s) over \(r.connections.count) connection(s)</p>\n"
        let (grouped, loose) = bySession(r)
        let lanesById = Dictionary(r.connections.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for (i, s) in r.sessions.enumerated() {
            // One connection may be both sides of a session (a frame to its own id): one lane.
            let lanes = Set(s.connections.values).sorted()
            let first = lanes.compactMap { lanesById[$0]?.opened }.min() ?? s.startedAt
            let last = s.endedAt.map { $0 + 1000 } ?? .max
            let events = r.events.filter { lanes.contains($0.connection) && $0.at >= first && $0.at <= last }
            body += "<section id=\"session-\(i + 1)\"><h2>Session \(i + 1): \(Markup.escape(s.flow)), \(Markup.escape(s.outcome))\(Markup.escape(s.step.map { " at \($0)" } ?? ""))</h2>\n"
            body += diagram(events, lanes: lanes, r, specBase: specBase)
            body += findingList(grouped[i] ?? [], specBase: specBase) + "</section>\n"
        }
        if !loose.isEmpty || r.sessions.isEmpty {
            body += "<section id=\"connections\"><h2>Outside any session</h2>\n"
            body += diagram(r.events, lanes: r.connections.map(\.id), r, specBase: specBase)
            body += findingList(loose, specBase: specBase) + "</section>\n"
        }
        if r.findingsOmitted > 0 { body += "<p class=\"fail\">And \(r.findingsOmitted) more violation(s): the first \(r.findings.count) are listed.</p>\n" }
        if r.eventsOmitted > 0 { body += "<p>The diagrams show the first \(WatchResult.maxEvents) events; \(r.eventsOmitted) more are in the session log.</p>\n" }
        if !r.notes.isEmpty { body += "<h2>Notes</h2><ul>" + r.notes.prefix(200).map { "<li>\(Markup.escape($0))</li>" }.joined() + "</ul>\n" }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>conformance watch: \(Markup.escape(r.family))</title>
            <style>
            body { font: 14px system-ui, sans-serif; margin: 1.5em; }
            .pass { color: #176b2c; } .fail { color: #b00020; }
            svg text { font: 12px ui-monospace, monospace; }
            li.finding { margin: .4em 0; }
            </style></head><body>
            \(body)</body></html>

            """
    }

    static func findingList(_ list: [WatchFinding], specBase: String) -> String {
        guard !list.isEmpty else { return "" }
        return "<ul>" + list.map { f in
            let v = f.violation
            let link = "<a href=\"\(Markup.escape(specBase + v.section.replacingOccurrences(of: "Spec/", with: "")))\">\(Markup.escape(v.rule.rawValue))</a>"
            return "<li class=\"finding\"><b>\(Markup.escape(who(f)))</b>: \(link) at <code>\(Markup.escape(v.path.description))</code>: expected \(Markup.escape(v.expected)), found \(Markup.escape(v.found))"
                + (f.frame.map { "<br><code>\(Markup.escape($0))</code>" } ?? "") + (repeats(f).map { "<br>seen \(Markup.escape($0))" } ?? "") + "</li>"
        }.joined() + "</ul>\n"
    }

    /// Lanes left to right: the connections, then the server. At most 300 rows.
    static func diagram(_ events: [WireEvent], lanes: [Int], _ r: WatchResult, specBase: String) -> String {
        let rows = events.prefix(300)
        let laneX = Dictionary(lanes.enumerated().map { ($0.element, 90 + $0.offset * 150) }, uniquingKeysWith: { a, _ in a })
        let lanesById = Dictionary(r.connections.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        // The findings by connection and time, once (two scans a row were 300 scans a diagram).
        var findingsAt: [Pair: [WatchFinding]] = [:]
        for f in r.findings { if let c = f.connection { findingsAt[Pair(connection: c, at: f.at), default: []].append(f) } }
        let serverX = 90 + lanes.count * 150 + 60
        let width = serverX + 520
        let height = 40 + rows.count * 22 + 10
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\">\n"
        for c in lanes {
            let lane = lanesById[c]
            let title = "\(lane?.side ?? "?") \(c)" + (lane?.name.map { " \($0)" } ?? "")
            svg += "<text x=\"\(laneX[c]! - 40)\" y=\"16\">\(Markup.escape(title))</text><line x1=\"\(laneX[c]!)\" y1=\"22\" x2=\"\(laneX[c]!)\" y2=\"\(height)\" stroke=\"#999\"/>\n"
        }
        svg += "<text x=\"\(serverX - 20)\" y=\"16\">\(r.family == "migration" ? "sender" : "relay")</text><line x1=\"\(serverX)\" y1=\"22\" x2=\"\(serverX)\" y2=\"\(height)\" stroke=\"#999\"/>\n"
        for (n, e) in rows.enumerated() {
            guard let x = laneX[e.connection] else { continue }
            let y = 40 + n * 22
            let here = findingsAt[Pair(connection: e.connection, at: e.at)] ?? []
            let broken = here.first { $0.side != "relay" && isClientFrame(e) } ?? here.first { $0.side == "relay" && !isClientFrame(e) }
            let colour = broken == nil ? "#333" : "#b00020"
            let (from, to) = isClientFrame(e) ? (x, serverX) : (serverX, x)
            let head = to > from ? to - 8 : to + 8
            svg += "<line x1=\"\(from)\" y1=\"\(y)\" x2=\"\(to)\" y2=\"\(y)\" stroke=\"\(colour)\"/><polygon points=\"\(to),\(y) \(head),\(y - 4) \(head),\(y + 4)\" fill=\"\(colour)\"/>"
            var label = Markup.escape(summary(e))
            if let broken {
                let v = broken.violation
                label += " <a href=\"\(Markup.escape(specBase + v.section.replacingOccurrences(of: "Spec/", with: "")))\"><tspan fill=\"#b00020\">\(Markup.escape(v.rule.rawValue))</tspan></a>"
            }
            svg += "<text x=\"\(serverX + 10)\" y=\"\(y + 4)\" fill=\"\(colour)\"><title>\(Markup.escape(detail(e)))</title>\(label)</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    struct Pair: Hashable {
        var connection: Int
        var at: EpochMillis
    }

    static func isClientFrame(_ e: WireEvent) -> Bool {
        switch e.body {
        case .open: return true
        case .text(let from, _), .binary(let from, _), .ping(let from), .pong(let from): return from == .client
        case .close(let by, _): return by != .server
        case .owner, .envelope, .segments: return false
        }
    }

    /// A short label: the frame's type and what it is about.
    static func summary(_ e: WireEvent) -> String {
        switch e.body {
        case .open: return "connect"
        case .owner(let label): return "held by \(label)'s process"
        case .close(_, let code): return "close" + (code.map { " \($0)" } ?? "")
        case .ping: return "ping"
        case .pong: return "pong"
        case .binary(_, let frame): return "binary \(frame.length) bytes"
        case .envelope(let sha256, let length): return "envelope of \(length) bytes, SHA-256 \(sha256.prefix(16))…"
        case .segments(let opened, nil): return "\(opened) envelope segments authenticated"
        case .segments(_, let refused?): return "envelope refused: \(refused)"
        case .text(_, let text):
            guard let json = try? JSONParser.parse(Array(text.utf8)) else { return FrameJudge.quote(text, limit: 60) }
            var parts = [json["type"]?.stringValue ?? "?"]
            if let peer = json["peerId"]?.stringValue { parts.append(peer) }
            if let to = json["to"]?.stringValue { parts.append("→ " + to) }
            if let inner = json["payload"]?["type"]?.stringValue { parts.append("(" + inner + ")") }
            return FrameJudge.quote(parts.joined(separator: " "), limit: 70)
        }
    }

    static func detail(_ e: WireEvent) -> String {
        if case .text(_, let text) = e.body { return FrameJudge.quote(text, limit: 400) }
        return summary(e)
    }
}

extension WatchReport {
    /// One line per event, as a terminal shows them while watching.
    public static func line(_ e: WireEvent) -> String {
        let seconds = Double(e.at % 86_400_000) / 1000
        let clock = String(format: "%02d:%02d:%06.3f", Int(seconds) / 3600, Int(seconds) / 60 % 60, seconds.truncatingRemainder(dividingBy: 60))
        let arrow = isClientFrame(e) ? "→" : "←"
        return "\(clock)  connection \(e.connection) \(arrow) \(summary(e).terminalSafe)"
    }
}
