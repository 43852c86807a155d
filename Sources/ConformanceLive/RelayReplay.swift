import ConformanceKit
import Foundation
import Pairing
import WebSocketTransport
import WireCore

/// Plays the relay machine vectors (Vectors/pairing/relay.json) against a live relay, judging by
/// meaning (after h2spec's verifier): for each frame a step expects, the runner waits on that
/// connection for a frame of the same type and correlation members, up to the frame budget, and
/// judges it with the document checker; frames the case did not ask for are kept, and fail the
/// case only where a rule forbids them (a delivery the relay had to refuse, an answer of a kind
/// the Spec defines where none was due); frames of types the Spec does not define are notes.
/// Each case gets fresh peer ids and codes, fresh connections and, on loopback, source
/// addresses of its own. Only actions can be seen from outside; states are not judged.
struct RelayReplay: Sendable {
    var url: String
    var frameTimeout: Duration
    /// The relay's alias lifetime and guess window, in real milliseconds.
    var liveWindow: Int64
    var includeSlow: Bool
    var levels: RuleLevels
    /// Distinct per run: ids of this run never meet ids of an earlier run on the same relay.
    var nonce: String
    /// With a relay on a 127.x.y.z address, each simulated client connects from an address of its
    /// own (the relay's unit of rate limiting); elsewhere all share the runner's address.
    var sourceBase: (UInt8, UInt8)?

    /// Cases whose events span at most this are played at once, without the relay's clock.
    static let maxSpan: EpochMillis = 60_000
    /// Cases whose schedule takes longer than this need `--include-slow`.
    static let slowLimit: Int64 = 60_000
    /// How often a waiting simulated client sends `{type:"ping"}` (the Spec's cadence: 5 to 30 s).
    static let keepaliveEvery: Duration = .seconds(20)
    /// After the last step, how long to wait for frames nobody asked for.
    static let drain: Duration = .milliseconds(300)

    /// Whom a `wss://` relay must prove to be.
    var trust: TLSClientTrust = .system

    init(url: String, frameTimeout: Duration, liveWindow: Int64, includeSlow: Bool, levels: RuleLevels) {
        self.url = url
        self.frameTimeout = frameTimeout
        self.liveWindow = liveWindow
        self.includeSlow = includeSlow
        self.levels = levels
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        self.nonce = String((0..<8).map { _ in alphabet.randomElement()! })
        if let host = URLComponents(string: url)?.host, host.hasPrefix("127."), host.split(separator: ".").count == 4 {
            sourceBase = (UInt8.random(in: 1...254), UInt8.random(in: 0...254))
        }
    }

    enum Plan: Sendable {
        case play(RelaySchedule?)
        case skip(String)
    }

    static func isRelayCase(_ vector: VectorCase) -> Bool {
        guard case .machine(let name, _, _) = vector.body else { return false }
        return vector.family == "pairing" && name == "relay"
    }

    /// Guess-limit cases run last: where all clients share one source address, their misses
    /// would rate-limit every later case's alias messages for a whole window.
    static func ordered(_ cases: [VectorCase]) -> [VectorCase] {
        let limited = cases.filter(usesGuessLimit)
        return cases.filter { !usesGuessLimit($0) } + limited
    }

    static func usesGuessLimit(_ vector: VectorCase) -> Bool {
        (vector.rules + vector.triggers).contains(PairingRule.guessLimit)
    }

    func plan(_ vector: VectorCase) -> Plan {
        guard case .machine(_, let events, _) = vector.body else { return .skip("not a machine case") }
        let sources = Set(events.compactMap { $0["source"]?.stringValue })
        if sourceBase == nil, sources.count > 1, Self.usesGuessLimit(vector) {
            return .skip("needs a source address per client (\(sources.count)): run it against a relay on a 127.x.y.z address")
        }
        let times = events.compactMap { $0["at"]?.integerValue }
        guard times.count == events.count, let first = times.first, let last = times.max(), last - first > Self.maxSpan else { return .play(nil) }
        guard let schedule = RelaySchedule.make(times: times, vectorWindow: PairingTimeouts.validity, liveWindow: liveWindow) else {
            return .skip("no live schedule keeps its events on their side of a \(liveWindow) ms window with a margin")
        }
        if schedule.duration > Self.slowLimit && !includeSlow {
            return .skip(
                "plays \(schedule.duration / 1000) s of the relay's clock (alias lifetime, guess window): add --include-slow, "
                    + "or start the relay with shorter windows (reference-peer relay --window-ms N) and pass --relay-window-ms N")
        }
        return .play(schedule)
    }

    /// What the runner read on one connection and did not wait for.
    struct Unasked {
        var connection: Int64
        var step: Int
        var frame: LiveFrame
    }

    func run(_ vector: VectorCase, index: Int, schedule: RelaySchedule?) async -> LiveOutcome {
        let wire = WireRecorder()
        wire.begin()
        var outcome = await play(vector, index: index, schedule: schedule, wire: wire)
        outcome.wire = wire.take()
        return outcome
    }

    /// A message the runner sent (isolated) at a step, and the refusal the vector expected for it.
    typealias Sent = (step: Int, payload: JSONValue, refusal: (rule: RuleID, document: JSONValue)?)

    private func play(_ vector: VectorCase, index: Int, schedule: RelaySchedule?, wire: WireRecorder) async -> LiveOutcome {
        guard case .machine(_, let rawEvents, let expected) = vector.body else { return LiveOutcome(status: .skipped("not a machine case"), violations: []) }
        var random = SystemRandomNumberGenerator()
        let documents = rawEvents.compactMap { $0["document"] } + expected.flatMap { $0.actions.compactMap { $0["document"] } }
        let isolation = RelayIsolation(documents: documents, nonce: "\(nonce)\(index)", random: &random)
        var connections: [Int64: LiveConnection] = [:]
        var closed: [Int64: String] = [:]
        var sources: [String: Int] = [:]
        /// Each violation with the connection it was seen on, grouped at the end.
        var found: [(connection: Int64, violation: Violation)] = []
        var unasked: [Unasked] = []
        var sent: [Sent] = []
        let start = ContinuousClock.now
        // Keepalives sent while waiting: their pongs are the runner's, not frames to judge.
        var pings: [Int64: Int] = [:]
        for (i, event) in rawEvents.enumerated() {
            if let schedule { await keepAlive(until: start + .milliseconds(schedule.offsets[i]), connections, pings: &pings) }
            guard let connection = event["connection"]?.integerValue else { continue }
            let actions = i < expected.count ? expected[i].actions : []
            switch event["event"]?.stringValue {
            case "connected":
                let source = event["source"]?.stringValue ?? "?"
                let n = sources[source] ?? (sources.count + 1)
                sources[source] = n
                let local = sourceBase.map { "127.\($0.0).\((Int($0.1) + index) % 255).\(n)" }
                do {
                    connections[connection] = try await LiveConnection.open(url, from: local, trust: trust) { body in
                        wire.record(WireEvent(at: SystemClock().now(), connection: Int(clamping: connection), body))
                    }
                } catch {
                    for live in connections.values { await live.close() }
                    return LiveOutcome(status: .broken(.crashed("cannot connect to \(url): \(error)")), violations: Self.grouped(found))
                }
            case "received":
                let document = event["document"].map { isolation.apply($0) }
                let text = event["text"]?.stringValue ?? document.map { JSONSerializer.compact($0) } ?? ""
                if let payload = document?["payload"] {
                    let refusal = actions.first { $0["rule"] != nil && $0["connection"]?.integerValue == connection }
                    sent.append(
                        (i, payload, refusal.flatMap { a in a["rule"]?.stringValue.map { (RuleID($0), isolation.apply(a["document"] ?? .null)) } }))
                }
                try? await connections[connection]?.send(text: text)
            case "disconnected":
                if let live = connections[connection] {
                    for frame in await live.inbox.leftovers() { unasked.append(Unasked(connection: connection, step: i, frame: frame)) }
                    await live.close()
                }
                connections[connection] = nil
                try? await Task.sleep(for: .milliseconds(100))
            default:
                continue
            }
            let now = event["at"]?.integerValue ?? 0
            for action in actions {
                guard let target = action["connection"]?.integerValue, let raw = action["document"] else { continue }
                let want = isolation.apply(raw)
                let rule = action["rule"]?.stringValue.map { RuleID($0) } ?? PairingRule.relayRouting
                let subject = "connection \(target) at step \(i)"
                if let how = closed[target] {
                    found.append((target, Violation(rule: rule, path: .root, expected: JSONSerializer.compact(want), found: "the connection was closed: \(how)", subject: subject)))
                    continue
                }
                guard let live = connections[target] else { continue }
                let awaited = await awaitFrame(want, on: live, now: now, rule: rule, subject: subject)
                found += awaited.violations.map { (target, $0) }
                unasked += awaited.strays.map { Unasked(connection: target, step: i, frame: $0) }
                if let how = awaited.closed { closed[target] = how }
            }
        }
        try? await Task.sleep(for: Self.drain)
        for (id, live) in connections.sorted(by: { $0.key < $1.key }) {
            for frame in await live.inbox.leftovers() { unasked.append(Unasked(connection: id, step: rawEvents.count - 1, frame: frame)) }
            await live.close()
        }
        let (strays, notes) = Self.judge(unasked, sent: sent, pings: pings)
        let violations = Self.grouped(found, strays: strays)
        return LiveOutcome(status: CaseResult.status(violations: violations, notes: notes, levels: levels), violations: violations, notes: notes)
    }

    /// A simulated client that waits keeps alive at the Spec's cadence (PAIR-CONN-003), so a relay
    /// that drops silent connections (the deployed one after 90 s) has no reason to.
    private func keepAlive(until due: ContinuousClock.Instant, _ connections: [Int64: LiveConnection], pings: inout [Int64: Int]) async {
        let clock = ContinuousClock()
        while due - clock.now > Self.keepaliveEvery {
            try? await clock.sleep(until: clock.now + Self.keepaliveEvery)
            for (id, live) in connections {
                try? await live.send(text: #"{"type":"ping"}"#)
                pings[id, default: 0] += 1
            }
        }
        try? await clock.sleep(until: due)
    }

    /// What waiting for one expected frame on a connection came to: the violations, the frames
    /// that came instead and are not the delivery (unasked), and how the connection closed.
    struct Awaited {
        var violations: [Violation] = []
        var strays: [LiveFrame] = []
        var closed: String?
    }

    /// Waits up to the frame budget for a frame of `want`'s type and correlation members and
    /// judges it by meaning; a frame with its content and another `from` is the delivery, judged
    /// at its members (a wrong `from` is the relay's).
    private func awaitFrame(_ want: JSONValue, on live: LiveConnection, now: EpochMillis, rule: RuleID, subject: String) async -> Awaited {
        let clock = ContinuousClock()
        let deadline = clock.now + frameTimeout
        var instead: [LiveFrame] = []
        let judge = { (text: String) in
            FrameJudge.judge(
                Array(text.utf8), expected: Self.withoutMissingTo(want, text), kind: want["type"]?.stringValue ?? "",
                context: ["now": .number(JSONNumber(now))], rule: rule, subject: subject)
        }
        while true {
            guard let frame = await live.inbox.next(timeout: deadline - clock.now) else {
                if let k = instead.firstIndex(where: { if case .text(let t) = $0 { return Self.matches(t, want, exactly: false) } else { return false } }),
                    case .text(let text) = instead[k]
                {
                    instead.remove(at: k)
                    return Awaited(violations: judge(text), strays: instead)
                }
                let budget = "\(Double(frameTimeout.components.seconds) + Double(frameTimeout.components.attoseconds) / 1e18) s"
                let arrived =
                    instead.isEmpty
                    ? "nothing within \(budget)"
                    : "no such frame within \(budget); arrived instead: " + instead.prefix(3).map(\.quoted).joined(separator: "; ")
                    + (instead.count > 3 ? " and \(instead.count - 3) more" : "")
                // What arrived instead is in this violation: not reported a second time.
                return Awaited(violations: [Violation(rule: rule, path: .root, expected: JSONSerializer.compact(want), found: arrived, subject: subject)])
            }
            if case .closed(let how) = frame {
                let violation = Violation(rule: rule, path: .root, expected: JSONSerializer.compact(want), found: "the connection was closed: \(how)", subject: subject)
                return Awaited(violations: [violation], strays: instead, closed: how)
            }
            if case .text(let text) = frame, Self.matches(text, want, exactly: true) { return Awaited(violations: judge(text), strays: instead) }
            instead.append(frame)
        }
    }

    /// What the relay sent unasked is judged on its own: never the root of a later failure, nor
    /// its consequence. The kinds a relay sends (Spec pairing.md 3.5) break PAIR-RELAY-001 unasked;
    /// a broadcast may come unasked and is checked as a document only; the rest are noted.
    static func judge(_ unasked: [Unasked], sent: [Sent], pings: [Int64: Int]) -> (strays: [(connection: Int64, violation: Violation)], notes: [String]) {
        var pings = pings
        var notes: [String] = []
        var strays: [(connection: Int64, violation: Violation)] = []
        for u in unasked {
            let subject = "connection \(u.connection) (read at step \(u.step))"
            let undefined = "\(subject): \(u.frame.quoted)" + (u.frame.isClose ? "" : " (not a frame the Spec defines; ignored)")
            guard case .text(let text) = u.frame, let document = try? JSONParser.parse(Array(text.utf8)), let kind = PairingFrame(document).documentKind else {
                notes.append(undefined)
                continue
            }
            if kind == .pong, let n = pings[u.connection], n > 0 {
                pings[u.connection] = n - 1
                continue
            }
            if kind.carriers.contains(.relayBroadcast) {
                do throws(Violation) {
                    _ = try PairingCodec.decode(Array(text.utf8), as: kind, context: PairingContext(now: SystemClock().now()))
                    notes.append("\(subject): \(u.frame.quoted) (sent unasked, which the Spec allows; checked, ignored)")
                } catch {
                    var violation = error
                    violation.subject = subject
                    strays.append((u.connection, violation))
                }
                continue
            }
            guard kind.carriers.contains(.relayFrame) else {
                notes.append(undefined)
                continue
            }
            // Which message an unasked delivery carries: of those sent by then with its content,
            // one the relay had to refuse (a spent alias's second ack is the first's twin), else
            // the latest. The first such was step 5's delivered ack, blamed for step 6's.
            let twins = kind == .message ? sent.filter { $0.step <= u.step && JSONDiff.differences(expected: $0.payload, found: document["payload"] ?? .null).isEmpty } : []
            if kind == .message, document["payload"] != nil, let origin = twins.last(where: { $0.refusal != nil }) ?? twins.last {
                let refusal = origin.refusal.map { " (the relay had to answer it with \(JSONSerializer.compact($0.document)))" } ?? ""
                strays.append(
                    (u.connection, Violation(
                        rule: origin.refusal?.rule ?? PairingRule.relayRouting, path: .root,
                        expected: "no delivery of step \(origin.step)'s message\(refusal)", found: FrameJudge.quote(text), subject: subject)))
            } else {
                strays.append(
                    (u.connection, Violation(rule: PairingRule.relayRouting, path: .root, expected: "no \(kind.rawValue) frame here", found: FrameJudge.quote(text), subject: subject)))
            }
        }
        if notes.count > 10 { notes = Array(notes.prefix(10)) + ["and \(notes.count - 10) more"] }
        return (strays, notes)
    }

    /// A connection's first violation is the case's finding; what the same connection gets wrong
    /// after it (the answers a refused register or a closed socket can no longer give) are its
    /// consequences, listed under it and counted once (h2spec reports a case's first failure,
    /// Autobahn marks the rest). Several members wrong in the first wrong frame are findings alike.
    /// One cause (rule, path and expectation) is one finding with its count, whichever connection
    /// broke it. `strays`, what the relay sent unasked (a broadcast, a delivery nobody was owed),
    /// cause nothing later and are caused by nothing earlier: findings of their own, counted alike.
    static func grouped(_ found: [(connection: Int64, violation: Violation)], strays: [(connection: Int64, violation: Violation)] = []) -> [Violation] {
        struct Cause: Hashable {
            var rule: RuleID
            var path: String
            var expected: String
        }
        var roots: [Violation] = []
        var byCause: [Cause: Int] = [:]
        func root(_ v: Violation) -> Int {
            let cause = Cause(rule: v.rule, path: v.path.description, expected: v.expected)
            if let i = byCause[cause] {
                roots[i].count += 1
                return i
            }
            byCause[cause] = roots.count
            roots.append(v)
            return roots.count - 1
        }
        // Each connection's first wrong frame (its subject), and the finding its first violation is.
        var first: [Int64: (subject: String?, root: Int)] = [:]
        for (connection, violation) in found {
            if let f = first[connection], f.subject != violation.subject {
                roots[f.root].consequences.append(violation)
            } else {
                let i = root(violation)
                if first[connection] == nil { first[connection] = (violation.subject, i) }
            }
        }
        for (_, violation) in strays { _ = root(violation) }
        return roots
    }

    /// Whether a received frame is the one an expected document describes: the same `type` and,
    /// where both carry it, the same correlation member (the peer id a reply is about); a
    /// delivery by what it carries, its payload, never by when it arrives (a relay that delivers
    /// two messages late or out of order is judged on each, not on its neighbour's `from`).
    /// `exactly`: a delivery's `from` too (two deliveries of one payload from two senders are
    /// told apart by it); the frame with the right content and another `from` is taken only when
    /// no exact one came.
    static func matches(_ text: String, _ want: JSONValue, exactly: Bool) -> Bool {
        guard let found = try? JSONParser.parse(Array(text.utf8)), case .object = found, let type = want["type"], found["type"] == type else {
            return false
        }
        for key in exactly ? ["peerId", "from"] : ["peerId"] {
            if let f = found[key], let w = want[key], f != w { return false }
        }
        if let payload = want["payload"] {
            guard let got = found["payload"], JSONDiff.differences(expected: payload, found: got).isEmpty else { return false }
        }
        return true
    }
}

extension RelayReplay {
    /// A relay may leave `to` out of a delivery (Spec pairing.md 3.5): then it is not expected.
    static func withoutMissingTo(_ want: JSONValue, _ text: String) -> JSONValue {
        guard PairingFrame(want).documentKind == .message, case .object(var o) = want, (try? JSONParser.parse(Array(text.utf8)))?["to"] == nil else { return want }
        o["to"] = nil
        return .object(o)
    }
}

extension LiveFrame {
    var isClose: Bool {
        if case .closed = self { return true }
        return false
    }
}
