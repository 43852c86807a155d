import ConformanceKit
import Pairing
import TestFixture
import Testing
import WireCore

/// The judge (the watch) on thousands of seeded pairings played by the Spec's own machines on
/// virtual time (README, "Watch a desktop and a phone meet"): each session's verdicts must be
/// exactly the faults injected, on the side that broke the rule, the same whether the watch
/// hosted the relay or forwarded to it, and the same again when its session log is judged back
/// (`check --session`). A failure names its seed and prints what the tap saw;
/// `PairingHarnessTests.check(seed:)` plays that seed again.
@Suite("The pairing harness: the judge against injected faults")
struct PairingHarnessTests {
    static let sessions = 10_000
    static let shards = 8

    /// What the judge owes each fault: the clients' findings, and the relay's when it forwards.
    static func expected(_ sim: PairingSim) -> (clients: [String], relay: [String], outcome: String) {
        let scenario = sim.scenario
        switch scenario.fault {
        case .none: return ([], [], scenario.flow == .flowAOffRelay ? "none" : "paired")
        case .desktopIgnoresOffer: return (["desktop PAIR-RTC-006"], [], "paired")
        case .staleQR: return ([], [], "broken")
        case .desktopConfirmsStaleCode: return (["desktop PAIR-DESK-003"], [], "broken")
        case .desktopForgetsAlias: return (["desktop PAIR-CONN-001"], [], "broken")
        case .desktopNeverConfirms: return (["desktop PAIR-DESK-002"], [], "broken")
        case .phoneGivesUp: return ([], [], "abandoned")
        case .phoneRegistersAlias: return (["phone PAIR-SIG-001"], [], "paired")
        case .relayDropsAck: return ([], ["relay PAIR-RELAY-001"], "broken")
        // Off the relay nothing the phone sent shows it a phone: its side is honestly unknown.
        case .phoneSkipsKeepalive: return scenario.flow == .flowAOffRelay ? (["unknown PAIR-CONN-003"], [], "none") : (["phone PAIR-CONN-003"], [], "paired")
        case .phoneBareOffer: return (["phone PAIR-RTC-005"], [], "paired")
        // Announced only when another client was connected as the alias was registered.
        case .relayAnnouncesAlias: return ([], sim.aliasesAnnounced > 0 ? ["relay PAIR-SEC-006"] : [], "paired")
        }
    }

    static func options(forwarded: Bool) -> PairingWatch.Options {
        var options = PairingWatch.Options()
        options.judgeRelay = forwarded
        return options
    }

    static func judge(_ sim: PairingSim, forwarded: Bool) -> WatchResult {
        var watch = PairingWatch(options: options(forwarded: forwarded))
        for event in SimNetwork.ordered(forwarded ? sim.network.forwarded : sim.network.hosted) { watch.handle(event) }
        return watch.finish(at: sim.scenario.horizon)
    }

    /// The same tap written as the watch's session log and judged back as `check --session`
    /// judges one (Conformance/session-log.md): what differs from the live judgement, or nil.
    static func replayDiffers(_ sim: PairingSim, forwarded: Bool, live: WatchResult) -> String? {
        let header = SessionLog.Header(family: "pairing", startedAt: sim.scenario.start, judge: options(forwarded: forwarded).json)
        let lines = [SessionLog.line(header)] + SimNetwork.ordered(forwarded ? sim.network.forwarded : sim.network.hosted).map(SessionLog.line)
            + [SessionLog.endLine(at: sim.scenario.horizon)]
        let contents: SessionLog.Contents
        do throws(SessionLog.Problem) {
            contents = try SessionLog.read(Array(lines.joined(separator: "\n").utf8))
        } catch {
            return "the session log does not read back: \(error)"
        }
        guard let replayed = WatchResult.replay(contents) else { return "no judge for the log's family" }
        if replayed.findings != live.findings { return "check --session finds \(replayed.findings.map(\.violation.rule)), the watch \(live.findings.map(\.violation.rule))" }
        if replayed.sessions != live.sessions { return "check --session ends sessions \(replayed.sessions.map(\.outcome)), the watch \(live.sessions.map(\.outcome))" }
        return nil
    }

    /// What went wrong with one seed, or nil.
    static func check(seed: UInt64) -> String? {
        let scenario = SimScenario(seed: seed)
        var sim = PairingSim(scenario)
        guard sim.run() else { return "\(scenario.testDescription): the simulation did not settle" }
        let want = expected(sim)
        // The hosting watch is the relay: a relay fault cannot happen there.
        let views = scenario.fault.isRelays ? [true] : [false, true]
        var problems: [String] = []
        for forwarded in views {
            let result = judge(sim, forwarded: forwarded)
            let clients = result.findings.filter { $0.side != "relay" }.map { "\($0.side) \($0.violation.rule)" }
            let relay = result.findings.filter { $0.side == "relay" }.map { "\($0.side) \($0.violation.rule)" }
            let outcome = result.sessions.first?.outcome ?? "none"
            let view = forwarded ? "forwarded" : "hosted"
            if clients != want.clients { problems.append("\(view): clients \(clients), expected \(want.clients)") }
            if forwarded, relay != want.relay { problems.append("\(view): relay \(relay), expected \(want.relay)") }
            if outcome != want.outcome { problems.append("\(view): outcome \(outcome) (\(result.sessions.first?.step ?? "")), expected \(want.outcome)") }
            if scenario.flow == .flowAOffRelay, !result.notes.contains(where: { $0.contains("took part in no pairing the relay carried") }) {
                problems.append("\(view): no note that the pairing happened off the relay")
            }
            // Every fifth session is also written as a session log and judged back from it.
            if seed % 5 == 0, let differs = replayDiffers(sim, forwarded: forwarded, live: result) { problems.append("\(view): \(differs)") }
            if !problems.isEmpty {
                let findings = result.findings.prefix(6).map { "  \($0.side) c\($0.connection ?? 0) \($0.violation.rule) \($0.violation.expected) / \($0.violation.found)" }
                return "\(scenario.testDescription):\n  " + problems.joined(separator: "\n  ") + "\n" + findings.joined(separator: "\n")
                    + "\n  notes: \(result.notes.prefix(4))\n  drops: \(sim.drops.prefix(4))\n" + dump(sim, forwarded: forwarded)
            }
        }
        return nil
    }

    /// What the tap saw, as ms after the start, connection and frame (the first 60 events).
    static func dump(_ sim: PairingSim, forwarded: Bool) -> String {
        let events = SimNetwork.ordered(forwarded ? sim.network.forwarded : sim.network.hosted)
        let lines = events.prefix(60).map { e -> String in
            let what: String
            switch e.body {
            case .text(let from, let text): what = "\(from) \(text.prefix(160))"
            default: what = "\(e.body)"
            }
            return "    +\(e.at - sim.scenario.start) c\(e.connection) \(what)"
        }
        return lines.joined(separator: "\n") + (events.count > 60 ? "\n    and \(events.count - 60) more" : "")
    }

    /// Off the concurrency pool: eight shards of seconds of CPU each would hold its two threads.
    @Test(arguments: 0..<shards) func seededSessionsGetTheVerdictsOfTheirFaults(shard: Int) async {
        let (failed, failures) = await Fixture.offPool { () -> (Int, [String]) in
            var failures: [String] = []
            var failed = 0
            for seed in stride(from: shard, to: Self.sessions, by: Self.shards) {
                guard let failure = Self.check(seed: UInt64(seed)) else { continue }
                failed += 1
                if failures.count < 3 { failures.append(failure) }
            }
            return (failed, failures)
        }
        #expect(failed == 0, "\(failed) of \(Self.sessions / Self.shards) sessions misjudged; the first:\n\(failures.joined(separator: "\n"))")
    }

    /// The edges the harness is for happen in its sessions, each many times (a pass says what it
    /// covered): an offer that passes the forwarding tap before the relay's delivery of the
    /// pair-ack it follows, reconnects the restarting relay refused, links cut, a desktop's alias
    /// connection coming back on its own.
    @Test func theSessionsReachTheEdges() async {
        let edges = await Fixture.offPool { () -> [String: Int] in
            var edges: [String: Int] = ["offer before the ack's delivery": 0, "refused reconnect": 0, "cut": 0, "alias connection back": 0]
            for seed in 0..<UInt64(1000) {
                var sim = PairingSim(SimScenario(seed: seed))
                _ = sim.run()
                edges["refused reconnect"]! += sim.refusedAttempts > 0 ? 1 : 0
                edges["cut"]! += sim.cuts
                let forwarded = SimNetwork.ordered(sim.network.forwarded)
                let texts = forwarded.compactMap { e -> (Int, WireEvent.Side, String)? in
                    if case .text(let side, let text) = e.body { return (e.connection, side, text) }
                    return nil
                }
                let delivery = texts.firstIndex { $0.1 == .server && $0.2.contains(#""type":"pair-ack""#) }
                let offer = texts.firstIndex { $0.1 == .client && $0.2.contains(#""type":"offer""#) }
                if let delivery, let offer, offer < delivery { edges["offer before the ack's delivery"]! += 1 }
                if sim.scenario.aliasSocket, sim.scenario.restartAt != nil,
                    texts.filter({ $0.1 == .client && $0.2.contains(#""peerId":"pairing-code:"#) }).count >= 2
                {
                    edges["alias connection back"]! += 1
                }
            }
            return edges
        }
        for (edge, count) in edges.sorted(by: { $0.key < $1.key }) { #expect(count >= 10, "\(edge): \(count) of 1000 sessions") }
    }

    /// Every fault is drawn, with and without a restart, in both flows where it applies: the
    /// seeds above cover what the judge is asked.
    @Test func theSeedsCoverEveryFault() {
        var seen: Set<String> = []
        for seed in 0..<UInt64(Self.sessions) {
            let s = SimScenario(seed: seed)
            seen.insert("\(s.fault.rawValue) \(s.flow.rawValue) \(s.restartAt != nil) \(s.cut != nil)")
        }
        for fault in SimFault.allCases {
            #expect(seen.contains { $0.hasPrefix(fault.rawValue + " ") }, "\(fault)")
        }
        for flow in SimFlow.allCases {
            #expect(seen.contains { $0.contains(" \(flow.rawValue) ") }, "\(flow)")
        }
        #expect(seen.count >= 40, "\(seen.count): \(seen.sorted())")
    }
}

