import ConformanceKit
import Foundation
import Pairing
import PairingPeer
import WireCore

/// The checks of a client's connection that need the runner to act (Spec pairing.md 4.4): it
/// watches the keepalives (PAIR-CONN-003), then drops the connection, refuses the next attempts
/// and times them (PAIR-CONN-002), and reads what the client sends first on its new connection
/// (PAIR-CONN-001). Once per scenario, while the runner's side holds its answer back.
actor ConnectionChecks {
    let player: PairingScenarioPlayer
    let scenario: PairingScenario
    let collector: Collector
    /// Connections up to this id are earlier scenarios'.
    let after: Int
    private var done = false

    init(player: PairingScenarioPlayer, scenario: PairingScenario, collector: Collector, after: Int) {
        self.player = player
        self.scenario = scenario
        self.collector = collector
        self.after = after
    }

    var timing: PairingTiming { player.options.timing }
    var observer: RelayObserver { player.observer }

    /// `holding`: the ids whose connections are checked (a desktop's pcPeerId and its code's
    /// alias: every connection that holds one, since a desktop may register them apart); empty
    /// for the phone's connection that sent the last message.
    func run(holding ids: [String]) async {
        guard !done, scenario.keepalives > 0 || scenario.dropRefusing != nil || scenario.silent else { return }
        done = true
        let candidates = observer.peerConnections(after: after).filter { $0.closed == nil }
        let targets =
            ids.isEmpty
            ? Array(candidates.last { c in c.frames.contains { $0.classified?.documentKind == .message } }.map { [$0] } ?? [])
            : ids.compactMap { id in candidates.last { $0.registered.contains { $0.bytesEqual(id) } } }.reduce(into: [RelayObserver.Connection]()) { list, c in
                if !list.contains(where: { $0.id == c.id }) { list.append(c) }
            }
        guard !targets.isEmpty else {
            collector.add(
                Violation(
                    rule: scenario.rules.first ?? PairingRule.reRegister, path: .root, expected: "an open connection of the peer to check",
                    found: "none", subject: "the peer's connections"))
            return
        }
        if scenario.keepalives > 0 {
            await withTaskGroup(of: Void.self) { group in
                for target in targets { group.addTask { await self.keepalives(on: target) } }
            }
        }
        if scenario.silent {
            await withTaskGroup(of: Void.self) { group in
                for target in targets { group.addTask { await self.deadConnection(target) } }
            }
        }
        // One connection at a time: each drop's reconnection is told apart from the others'. A
        // client may close its other connections when one drops (a desktop whose alias socket
        // follows its main one): those came back in the earlier drop's window, so only their
        // ids are owed, never attempts of a drop that did not happen.
        if let refusing = scenario.dropRefusing {
            for target in targets {
                let now = observer.connection(target.id) ?? target
                if let closed = now.closed {
                    await cameBack(now, closedAt: closed, refusing: refusing)
                } else {
                    await reconnect(now, refusing: refusing)
                }
            }
        }
    }

    private func keepalives(on connection: RelayObserver.Connection) async {
        let window = timing.keepaliveWindow
        let wanted = scenario.keepalives
        let deadline = connection.opened + .milliseconds(Int64(Double(wanted) * window.upperBound) + 1000)
        var seen = connection
        while seen.keepalives.count < wanted, ContinuousClock.now < deadline, seen.closed == nil {
            try? await Task.sleep(for: .milliseconds(20))
            seen = observer.connection(connection.id) ?? seen
        }
        let subject = "keepalives on connection \(connection.id)"
        let interval = Int64(timing.scaled(timing.policy.keepaliveInterval))
        // Through the connection machine, as the watch judges; the runner's relay answered each.
        var observed = ObservedConnection(policy: timing.scaledPolicy, openedAt: 0)
        for at in seen.keepalives.prefix(wanted) {
            let ms = EpochMillis(Self.ms(at - seen.opened).rounded())
            observed.keepalive(at: ms)
            observed.heard(at: ms)
        }
        if let breach = observed.breach {
            var violation = breach.violation
            violation.subject = subject
            collector.add(violation)
        }
        if seen.keepalives.count < wanted {
            collector.add(
                Violation(
                    rule: PairingRule.keepaliveInterval, path: .root, expected: "\(wanted) keepalives (ping frames or {\"type\":\"ping\"}) every \(interval) ms",
                    found: "\(seen.keepalives.count) within \(Int(Self.ms(ContinuousClock.now - seen.opened))) ms", subject: subject))
        }
    }

    /// PAIR-CONN-003's dead connection: the runner's relay goes silent on it (no frame, no pong)
    /// and waits for the client to drop it and register its ids again on a new one. Judged
    /// through the connection machine (`ObservedConnection`), replaying the client's keepalives,
    /// answered before the silence and not after: one sent where the machine drops, or the
    /// connection still open past the next one's tolerance, is the breach.
    private func deadConnection(_ connection: RelayObserver.Connection) async {
        let held = Self.held(connection)
        let silencedAt = ContinuousClock.now
        await player.relay.silence(connection.id)
        let allowance = timing.deadConnectionAllowance
        let deadline = silencedAt + .milliseconds(Int64(allowance))
        func back() -> RelayObserver.Connection? {
            observer.peerConnections(after: connection.id).first { c in c.opened >= silencedAt && held.allSatisfy { id in c.registered.contains { $0.bytesEqual(id) } } }
        }
        while back() == nil, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        let seen = observer.connection(connection.id) ?? connection
        let subject = "connection \(connection.id), silenced by the relay"
        var observed = ObservedConnection(policy: timing.scaledPolicy, openedAt: 0)
        for at in seen.keepalives {
            let ms = EpochMillis(Self.ms(at - seen.opened))
            observed.keepalive(at: ms)
            if at < silencedAt { observed.heard(at: ms) }
        }
        if seen.closed == nil { observed.silence(until: EpochMillis(Self.ms(ContinuousClock.now - seen.opened))) }
        if let breach = observed.breach {
            var violation = breach.violation
            violation.subject = subject + ", keepalive \(breach.keepalive)"
            return collector.add(violation)
        }
        guard back() == nil else { return }
        collector.add(
            Violation(
                rule: PairingRule.reRegister, path: .root, expected: "register \(held.map(JSONSerializer.quoted).joined(separator: ", ")) again on a new connection",
                found: seen.closed == nil
                    ? "connection \(connection.id) still open \(Int(allowance)) ms after the relay went silent"
                    : "none within \(Int(allowance)) ms of the relay going silent (connection \(connection.id) dropped)",
                subject: subject))
    }

    /// The ids a connection holds: every distinct one it registered, in order.
    static func held(_ connection: RelayObserver.Connection) -> [String] {
        var held: [String] = []
        for id in connection.registered where !held.contains(where: { $0.bytesEqual(id) }) { held.append(id) }
        return held
    }

    /// The time a drop's reconnection may take: the stated delays' upper bounds, plus 3 s.
    func allowance(refusing: Int) -> Double {
        var allowance = 3000.0
        for k in 1...(refusing + 1) { allowance += timing.delayWindow(timing.policy.delay(afterFailures: k)).upperBound }
        return allowance
    }

    /// The first connection opened since `since` that registers one of `held`, else the first
    /// opened since: a client with two connections brings both back, in either order.
    func next(after connection: RelayObserver.Connection, since: ContinuousClock.Instant, held: [String]) -> RelayObserver.Connection? {
        let fresh = observer.peerConnections(after: connection.id).filter { $0.opened >= since }
        return fresh.first { c in c.registered.contains { id in held.contains { $0.bytesEqual(id) } } } ?? fresh.first
    }

    /// A connection the client closed itself (with another one the runner dropped): by the end
    /// of that drop's allowance its ids are registered again on a new connection (PAIR-CONN-001).
    private func cameBack(_ connection: RelayObserver.Connection, closedAt: ContinuousClock.Instant, refusing: Int) async {
        let held = Self.held(connection)
        let deadline = closedAt + .milliseconds(Int64(allowance(refusing: refusing)))
        func back() -> RelayObserver.Connection? {
            observer.peerConnections(after: connection.id).first { c in c.opened >= closedAt && held.allSatisfy { id in c.registered.contains { $0.bytesEqual(id) } } }
        }
        while back() == nil, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        guard back() == nil else { return }
        collector.add(
            Violation(
                rule: PairingRule.reRegister, path: .root,
                expected: "register \(held.map(JSONSerializer.quoted).joined(separator: ", ")) again on a new connection",
                found: "none within \(Int(allowance(refusing: refusing))) ms of connection \(connection.id) closing (the client closed it when its other connection dropped)",
                subject: "connection \(connection.id) after the drop"))
    }

    private func reconnect(_ connection: RelayObserver.Connection, refusing: Int) async {
        let held = Self.held(connection)
        let dropped = ContinuousClock.now
        observer.refuseNext(refusing)
        await player.relay.drop(connection.id)
        let allowance = allowance(refusing: refusing)
        let deadline = dropped + .milliseconds(Int64(allowance))
        func attempts() -> [RelayObserver.Attempt] { observer.attempts(since: dropped).filter { !$0.path.hasBytePrefix(RelayObserver.lanPath) } }
        func next() -> RelayObserver.Connection? { self.next(after: connection, since: dropped, held: held) }
        while ContinuousClock.now < deadline {
            if attempts().count > refusing, let fresh = next(), fresh.frames.count >= held.count || fresh.frames.contains(where: { $0.classified?.documentKind != .register }) {
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        // PAIR-CONN-002: each wait, from the drop or the refused attempt before.
        var previous = dropped
        let seen = attempts()
        for (k, attempt) in seen.prefix(refusing + 1).enumerated() {
            let delay = timing.policy.delay(afterFailures: k + 1)
            let gap = Self.ms(attempt.at - previous)
            let window = timing.delayWindow(delay)
            if !window.contains(gap) {
                collector.add(
                    Violation(
                        rule: PairingRule.backoff, path: .root,
                        expected: "a wait of \(Int(timing.scaled(delay))) ms (\(Int(window.lowerBound))...\(Int(window.upperBound)) ms) \(k == 0 ? "after the drop" : "after refused attempt \(k)")",
                        found: "\(Int(gap)) ms", subject: "reconnection attempt \(k + 1)"))
            }
            previous = attempt.at
        }
        if seen.count <= refusing {
            collector.add(
                Violation(
                    rule: PairingRule.backoff, path: .root, expected: "\(refusing + 1) attempts to reconnect (\(refusing) refused with HTTP 503)",
                    found: "\(seen.count) within \(Int(allowance)) ms", subject: "reconnection"))
            return
        }
        // PAIR-CONN-001: the held ids registered again, before anything else.
        guard let fresh = next() else {
            collector.add(
                Violation(rule: PairingRule.reRegister, path: .root, expected: "a new connection after the drop", found: "none", subject: "reconnection"))
            return
        }
        let leading = fresh.frames.prefix { $0.classified?.documentKind == .register }.compactMap { $0.json?["peerId"]?.stringValue }
        for id in held where !leading.contains(where: { $0.bytesEqual(id) }) {
            collector.add(
                Violation(
                    rule: PairingRule.reRegister, path: .root,
                    expected: "register \(JSONSerializer.quoted(id)) again before any other frame",
                    found: fresh.frames.isEmpty
                        ? "no frame" : "first frames: " + fresh.frames.prefix(held.count).map { FrameJudge.quote($0.text, limit: 100) }.joined(separator: ", "),
                    subject: "connection \(fresh.id) after the drop"))
        }
    }

    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
