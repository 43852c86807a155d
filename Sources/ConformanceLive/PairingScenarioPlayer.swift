import ConformanceKit
import Foundation
import Pairing
import PairingPeer
import WebSocketTransport
import WireCore

/// The timing a pairing peer under test states (PAIR-CONN-002, -003), and how much faster than
/// real time it runs (a test build's `--time-scale`).
struct PairingTiming: Sendable {
    var policy = SignalingConnectionMachine.Policy.seed
    var scale = 1.0

    func scaled(_ ms: EpochMillis) -> Double { Double(ms) * scale }
    /// The WebRTC exchange's 30 s (PAIR-RTC-006), scaled.
    var webrtcTimeout: EpochMillis { max(1, EpochMillis(scaled(WebRTCNegotiationMachine.seedTimeout))) }

    /// PAIR-CONN-002's tolerance, of the delay scaled.
    func delayWindow(_ ms: EpochMillis) -> ClosedRange<Double> { ObservedConnection.Tolerance.delay(scaled(ms)) }

    /// The stated policy with its times scaled, as the peer under test runs it.
    var scaledPolicy: SignalingConnectionMachine.Policy {
        var scaled = policy
        scaled.keepaliveInterval = EpochMillis(self.scaled(policy.keepaliveInterval).rounded())
        scaled.backoff = policy.backoff.map { EpochMillis(self.scaled($0).rounded()) }
        return scaled
    }

    /// How long a silenced connection may take to be dropped and come back registered: a
    /// keepalive's latest gap for each one the peer lets go unanswered and for the one at which
    /// it drops, then its first back-off's latest, then a second for the registration.
    var deadConnectionAllowance: Double {
        Double(policy.unansweredLimit + 1) * keepaliveWindow.upperBound + delayWindow(policy.delay(afterFailures: 1)).upperBound + 1000
    }

    /// PAIR-CONN-003's tolerance for a gap between keepalives, of the interval scaled.
    var keepaliveWindow: ClosedRange<Double> { ObservedConnection.Tolerance.keepaliveGap(scaled(policy.keepaliveInterval)) }
}

/// Plays one pairing scenario: the runner hosts the relay (every frame of the peer under test
/// passes through it and is judged there) and plays the other side with the reference peer,
/// whose machine checks what the peer under test sends, as in the vectors.
struct PairingScenarioPlayer {
    var options: LiveOptions
    var relay: RelayServer
    var observer: RelayObserver
    /// The relay's URL as the peer under test reaches it.
    var relayURL: String
    /// The desktop under test's QR texts across scenarios.
    var qrs = DesktopQRs()

    static let timeout: Duration = .seconds(120)

    func play(_ scenario: PairingScenario, since start: ContinuousClock.Instant) async -> LiveOutcome {
        let collector = Collector(subject: "the \(scenario.role.rawValue) under test")
        let firstConnection = scenario.role == .phone ? observer.lastConnectionID : 0
        do {
            try await withDeadline(limit(scenario)) {
                switch scenario.role {
                case .phone: try await asDesktop(scenario, collector, since: start)
                default: try await asPhone(scenario, collector)
                }
            }
        } catch let error as DeadlineExceeded {
            return collector.timedOut(error.limit, levels: options.levels)
        } catch let skip as SkipScenario {
            return LiveOutcome(status: .skipped(skip.reason), violations: [])
        } catch let error as LiveError {
            return LiveOutcome(status: .broken(.crashed(error.description)), violations: collector.violations)
        } catch {
            return LiveOutcome(status: .broken(.crashed("\(error)")), violations: collector.violations)
        }
        // Every frame the peer sent in the scenario, by the Spec (after the play: nothing waits on it).
        judgeFrames(scenario, since: start, after: firstConnection, collector)
        collector.settle()
        let notes = collector.notes
        let violations = collector.violations
        return LiveOutcome(status: CaseResult.status(violations: violations, notes: notes, levels: options.levels), violations: violations, notes: notes)
    }

    // MARK: the phone under test; the runner is the desktop

    private func asDesktop(_ scenario: PairingScenario, _ collector: Collector, since start: ContinuousClock.Instant) async throws {
        guard let handoff = options.handoffOut else { throw LiveError("--role phone needs --handoff-out FILE (the phone under test reads the QR text or code there)") }
        try? FileManager.default.removeItem(at: handoff)
        if scenario.flow == "flow-a" { return try await scanPhone(scenario, collector, handoff: handoff) }
        let desktopId = "conformance-desktop-" + String(UUID().uuidString.prefix(8)).lowercased()
        observer.claim(desktopId)
        var context = DesktopContext(
            pcPeerId: desktopId, device: DesktopDeviceInfo(name: "Conformance Desktop", platform: "linux", version: "1.0.0"), relayUrl: relayURL)
        if scenario.lanRefused { context.signalingUrl = relayURL + RelayObserver.lanPath }
        var desktop = DesktopPeer.Options(desktop: context)
        desktop.trust = options.trust
        desktop.report = { reason in collector.add(Self.violation(reason, subject: "the phone's message")) }
        let checks = ConnectionChecks(player: self, scenario: scenario, collector: collector, after: observer.lastConnectionID)
        desktop.hold = { await checks.run(holding: []) }
        desktop.webrtcTimeout = exchangeWait(scenario)
        desktop.reportSignal = exchangeReport(scenario, collector, subject: "the phone's WebRTC signals")
        let peer = DesktopPeer(desktop)
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &random) }
        let announce = options.announce
        let pairing = Task {
            await peer.pair(random: bytes) { qr in
                let text = Self.handoffText(qr, scenario)
                announce(scenario.flow == "manual" ? "type the code \(text) on the phone" : "scan this QR text: \(text)")
                try? Data(text.utf8).write(to: handoff, options: .atomic)
            }
        }
        let outcome: PairingOutcome
        if scenario.expectPaired {
            // A phone that never acks must not keep the run for the code's 5 minutes.
            let exchange = Duration.milliseconds(exchangeWait(scenario))
            let limit = Task {
                try? await Task.sleep(for: .seconds(30) + timingAllowance(scenario) + exchange)
                await peer.cancel()
            }
            outcome = await pairing.value
            limit.cancel()
        } else {
            // Nothing may come of it: wait for the phone to take the handoff, then a quiet spell.
            let deadline = ContinuousClock.now + .seconds(30)
            while FileManager.default.fileExists(atPath: handoff.path) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            try await Task.sleep(for: options.frameTimeout)
            await peer.cancel()
            outcome = await pairing.value
        }
        try? FileManager.default.removeItem(at: handoff)
        if scenario.lanRefused, !observer.attempts(since: start).contains(where: { $0.path.hasBytePrefix(RelayObserver.lanPath) }) {
            collector.add(
                Violation(
                    rule: PairingRule.relayFallback, path: .root / "signalingUrl", expected: "an attempt on the QR's LAN URL before the relay",
                    found: "none", subject: "the phone's connections"))
        }
        if outcome.succeeded != scenario.expectPaired {
            collector.add(
                Violation(
                    rule: scenario.rules.first ?? PairingRule.registerOwnID, path: .root,
                    expected: scenario.expectPaired ? "the runner's desktop paired" : "no pairing", found: outcome.state,
                    subject: "the runner's desktop at the end"))
        }
        negotiated(outcome, scenario, collector, by: "the runner's desktop")
    }

    /// After every pairing the runner's side goes on into the WebRTC exchange, as a peer that
    /// implements it would (4.6): a peer under test that offers or answers after each pairing
    /// is served at once. Only a `webrtc` scenario waits the exchange's (scaled) 30 s for it; the
    /// others give it the frame timeout and judge nothing of how it ended.
    private func exchangeWait(_ scenario: PairingScenario) -> EpochMillis {
        scenario.webrtc ? options.timing.webrtcTimeout : max(1, EpochMillis(options.frameTimeout / .milliseconds(1)))
    }

    /// What the runner's side of the exchange reports as it goes: only the signals its own rule
    /// drops (from someone else, of the wrong kind), since every signal the peer sends is judged as
    /// a frame already, and how it ended is judged at the end (`negotiated`); nothing outside a
    /// `webrtc` scenario.
    private func exchangeReport(_ scenario: PairingScenario, _ collector: Collector, subject: String) -> @Sendable (FailureReason) -> Void {
        guard scenario.webrtc else { return { _ in } }
        return { reason in
            if reason.rule == PairingRule.rtcNegotiation, reason.path != .root { collector.add(Self.violation(reason, subject: subject)) }
        }
    }

    /// PAIR-RTC-006: how the runner's side of the exchange ended. A failure already reported as a
    /// dropped signal or a timeout is not counted twice.
    private func negotiated(_ outcome: PairingOutcome, _ scenario: PairingScenario, _ collector: Collector, by side: String) {
        guard let expected = scenario.expectNegotiated, outcome.succeeded, (outcome.negotiated ?? false) != expected else { return }
        // A malformed or bare signal, judged as a frame, explains an exchange that never completed.
        collector.addUnlessExplained(
            Violation(
                rule: PairingRule.rtcNegotiation, path: .root, expected: expected ? "the WebRTC exchange negotiated" : "no WebRTC exchange",
                found: outcome.state, subject: "\(side) at the end"),
            note: "\(side) did not negotiate (\(outcome.state)), after the violations above")
    }

    /// Flow A: the phone shows its own QR; the runner's desktop scans it and confirms to its DID.
    private func scanPhone(_ scenario: PairingScenario, _ collector: Collector, handoff: URL) async throws {
        guard let qrFile = options.qrFile else { throw SkipScenario("Flow A needs --qr-file FILE, where the phone under test's own QR text is put") }
        try? FileManager.default.removeItem(at: qrFile)
        let desktopId = "conformance-desktop-" + String(UUID().uuidString.prefix(8)).lowercased()
        observer.claim(desktopId)
        var desktop = DesktopPeer.Options(
            desktop: DesktopContext(
                pcPeerId: desktopId, device: DesktopDeviceInfo(name: "Conformance Desktop", platform: "linux", version: "1.0.0"), relayUrl: relayURL))
        desktop.trust = options.trust
        desktop.report = { reason in collector.add(Self.violation(reason, subject: "the phone's QR")) }
        desktop.webrtcTimeout = exchangeWait(scenario)
        desktop.reportSignal = exchangeReport(scenario, collector, subject: "the phone's WebRTC signals")
        options.announce("show the phone's own QR (Flow A); its text goes to \(qrFile.path)")
        try Data("show-qr".utf8).write(to: handoff, options: .atomic)
        guard let text = try await HandoffFile.take(qrFile, within: .seconds(30)) else {
            throw LiveError("no QR text from the phone under test in \(qrFile.path) within 30 seconds")
        }
        try? FileManager.default.removeItem(at: handoff)
        // The confirmation is routed to the DID: it must be on the relay while the QR is shown (4.2).
        if let did = (try? JSONParser.parse(Array(text.utf8)))?["did"]?.stringValue, !(await waitRegistered([did], within: options.frameTimeout)).contains(did) {
            collector.add(
                Violation(
                    rule: PairingRule.registerOwnID, path: .root / "did", expected: "the phone's DID registered on the relay while its QR is shown",
                    found: "not registered", subject: "the phone's registrations"))
        }
        let before = collector.violations.count
        let outcome = await DesktopPeer(desktop).scan(text)
        if !outcome.succeeded && collector.violations.count == before {
            collector.add(
                Violation(
                    rule: PairingRule.desktopConfirms, path: .root, expected: "the runner's desktop paired", found: outcome.state,
                    subject: "the runner's desktop at the end"))
        }
    }

    /// What the phone under test is handed: the QR text, or its six digits, as the scenario says.
    static func handoffText(_ qr: String, _ scenario: PairingScenario) -> String {
        guard var value = try? JSONParser.parse(Array(qr.utf8)), let code = value["code"]?.stringValue else { return qr }
        if scenario.flow == "manual" {
            guard scenario.codeNotLive, let n = Int(code) else { return code }
            return String(format: "%06d", (n + 1) % 1_000_000)
        }
        if let age = scenario.qrAgeMs, case .object(var o) = value, let timestamp = o["timestamp"]?.integerValue {
            o["timestamp"] = .number(JSONNumber(timestamp - PairingTimeouts.validity - age))
            value = .object(o)
        }
        return JSONSerializer.compact(value)
    }

    // MARK: the desktop under test; the runner is the phone

    private func asPhone(_ scenario: PairingScenario, _ collector: Collector) async throws {
        guard let qrFile = options.qrFile else { throw LiveError("--role desktop needs --qr-file FILE (the desktop under test writes its QR text there)") }
        // Decided before a QR is taken, so the scenario after it finds the code untouched.
        if scenario.lateAck && options.desktopValidityMs > 59_000 && !options.includeSlow {
            throw SkipScenario("waits \(options.desktopValidityMs / 1000 + 1) s for the code to expire: add --include-slow")
        }
        // A desktop in its back-off may be about to write a new QR: wait out the longest delay.
        let (qrText, reused) = try await qrs.take(from: qrFile, grace: qrGrace, within: .seconds(60))
        if reused {
            collector.note("no new QR after the scenario before, which did not pair: its code, still live (PAIR-DESK-001), is used again")
        }
        let did = DIDKey.random()
        observer.claim(did)
        // The QR as a phone reads it: every rule of desktop-pairing (PAIR-DESK-001's "valid QR").
        var scan = ScanDesktopPairingMachine(phone: phoneContext(did))
        _ = scan.handle(.scanned(text: Array(qrText.utf8), at: SystemClock().now()))
        guard case .sending(let sending) = scan.state else {
            if case .failed(let reason) = scan.state { collector.add(Self.violation(reason, subject: "the desktop's QR")) }
            return
        }
        let qr = sending.qr
        let alias = PeerID.alias(forCode: qr.code)
        // PAIR-DESK-001: both ids on the relay while the code is shown.
        let registered = await waitRegistered([qr.pcPeerId, alias], within: options.frameTimeout)
        for (id, path) in [(qr.pcPeerId, "pcPeerId"), (alias, "code")] where !registered.contains(id) {
            collector.add(
                Violation(
                    rule: PairingRule.desktopShows, path: .root / path, expected: "\(id) registered on the relay while the code is shown",
                    found: "not registered", subject: "the desktop's registrations"))
        }
        await ConnectionChecks(player: self, scenario: scenario, collector: collector, after: 0).run(holding: [qr.pcPeerId, alias])
        if scenario.wrongCodeFirst {
            let wrong = String(format: "%06d", ((Int(qr.code) ?? 0) + 1) % 1_000_000)
            try await sendRefusedAck(to: qr.pcPeerId, code: wrong, from: did, collector, subject: "the desktop's answer to a wrong code")
        }
        if scenario.lateAck {
            // The right code, once it is no longer valid.
            try await Task.sleep(for: .milliseconds(max(0, qr.timestamp + options.desktopValidityMs - SystemClock().now() + 1000)))
            // To the code's alias, as a typed code goes: a desktop that took it would confirm (4.3).
            return try await sendRefusedAck(
                to: PeerID.alias(forCode: qr.code), code: qr.code, from: did, collector, subject: "the desktop's answer to an ack after its code expired")
        }
        if scenario.flow == "flow-a" { return try await showPhone(did, scenario, collector) }
        var phone = PhonePeer.Options(phone: phoneContext(did))
        phone.trust = options.trust
        phone.confirmationWait = 10_000
        phone.report = { reason in collector.add(Self.violation(reason, subject: "the desktop's confirmation")) }
        phone.webrtcTimeout = exchangeWait(scenario)
        phone.reportSignal = exchangeReport(scenario, collector, subject: "the desktop's WebRTC signals")
        let outcome = await PhonePeer(phone).pair(scenario.flow == "manual" ? qr.code : qrText)
        ended(
            outcome, collector,
            Violation(
                rule: scenario.flow == "manual" ? PairingRule.desktopConfirms : PairingRule.desktopShows, path: .root,
                expected: scenario.flow == "manual" ? "a pairing:confirmation for code \(qr.code) to \(did)" : "the pair-ack delivered",
                found: outcome.state, subject: "the runner's phone at the end"))
        negotiated(outcome, scenario, collector, by: "the runner's phone")
    }

    /// The runner's phone's pairing ended. Not paired is a violation of its own only when nothing
    /// reported so far explains it (a missing alias, a late reconnection, a bad confirmation):
    /// one fault is reported once, and the failed pairing is a note beside it.
    private func ended(_ outcome: PairingOutcome, _ collector: Collector, _ violation: Violation) {
        if outcome.succeeded {
            qrs.used()
        } else if collector.violations.isEmpty {
            collector.add(violation)
        } else {
            collector.note("the runner's phone did not pair (\(outcome.state)), after the violations above")
        }
    }

    /// Flow A: the runner's phone shows its QR; the desktop under test must scan it and confirm.
    private func showPhone(_ did: String, _ scenario: PairingScenario, _ collector: Collector) async throws {
        guard let scanOut = options.scanOut else { throw SkipScenario("Flow A needs --scan-out FILE, where the desktop under test scans the runner's phone QR") }
        var phone = PhonePeer.Options(phone: phoneContext(did))
        phone.trust = options.trust
        phone.report = { reason in collector.add(Self.violation(reason, subject: "the desktop's confirmation")) }
        phone.webrtcTimeout = exchangeWait(scenario)
        phone.reportSignal = exchangeReport(scenario, collector, subject: "the desktop's WebRTC signals")
        let peer = PhonePeer(phone)
        let limit = Task {
            try? await Task.sleep(for: .seconds(30) + .milliseconds(exchangeWait(scenario)))
            await peer.cancel()
        }
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &random) }
        let announce = options.announce
        let outcome = await peer.display(random: bytes) { qr in
            announce("scan the phone's QR on the desktop: \(qr)")
            try? Data(qr.utf8).write(to: scanOut, options: .atomic)
        }
        limit.cancel()
        try? FileManager.default.removeItem(at: scanOut)
        ended(
            outcome, collector,
            Violation(
                rule: PairingRule.desktopConfirms, path: .root, expected: "a pairing:confirmation of the phone's QR code, to \(did)",
                found: outcome.state, subject: "the runner's phone at the end"))
    }

    /// An ack the desktop must drop, never confirm (PAIR-DESK-003): one with another code on the
    /// desktop's own id, or one that comes after its code expired on the code's alias.
    private func sendRefusedAck(to target: String, code: String, from did: String, _ collector: Collector, subject: String) async throws {
        let frames = FrameLog()
        let client = SignalingClient(
            url: relayURL, policy: .seed, trust: options.trust, now: SystemClock().now, log: { _ in }, onFrame: { text in frames.add(text) })
        await client.register(did)
        let ack = PairAck(pairingCode: code, mobileDid: did, deviceInfo: phoneContext(did).device, timestamp: SystemClock().now())
        _ = await client.send(JSONSerializer.compact(SignalMessage(to: target, payload: .pairAck(ack)).canonical))
        try await Task.sleep(for: options.frameTimeout)
        await client.stop()
        // Parsed, not searched: `pairing\u003aconfirmation` is the same type to every JSON reader.
        let confirmations = frames.all.filter { text in
            (try? JSONParser.parse(Array(text.utf8))).map(PairingFrame.init)?.payloadKind == .pairingConfirmation
        }
        for text in confirmations {
            collector.add(
                Violation(
                    rule: PairingRule.desktopRefuses, path: .root / "payload" / "pairingCode", expected: "no confirmation of an ack with code \(code) here",
                    found: FrameJudge.quote(text), subject: subject))
        }
    }

    func phoneContext(_ did: String) -> PhoneContext {
        PhoneContext(
            activeDid: did, device: MobileDeviceInfo(deviceId: "conformance-phone", name: "Conformance Phone", platform: "android"),
            signalingUrl: relayURL)
    }

    /// Peer ids compare byte for byte (PAIR-PEER-001): a Set<String> would take the NFD twin of an id for it.
    private func waitRegistered(_ ids: [String], within limit: Duration) async -> Set<String> {
        let deadline = ContinuousClock.now + limit
        while true {
            let now = Set(await relay.registered().map(ByteString.init))
            let found = Set(ids.filter { now.contains(ByteString($0)) })
            if found.count == Set(ids).count || ContinuousClock.now >= deadline { return found }
            try? await Task.sleep(for: .milliseconds(25))
        }
    }

    /// The scenario's limit: the Spec's waits it may spend (a desktop's new QR after its longest
    /// back-off, keepalives and reconnection, the WebRTC exchange, a late ack's code life) plus
    /// a margin. A real desktop's 60 s back-off and its exchange outlasted a fixed 120 s.
    func limit(_ scenario: PairingScenario) -> Duration {
        var limit = Self.timeout + timingAllowance(scenario) + .milliseconds(exchangeWait(scenario))
        if scenario.role == .desktop { limit += qrGrace }
        if scenario.lateAck { limit += .milliseconds(options.desktopValidityMs) }
        return limit
    }

    /// How long a desktop in its back-off may take to write a new QR: its longest delay's window
    /// and a frame's time.
    var qrGrace: Duration {
        .milliseconds(Int64(options.timing.delayWindow(options.timing.policy.backoff.max() ?? 0).upperBound)) + options.frameTimeout
    }

    /// How long the scenario's keepalives and reconnection may take at the most.
    func timingAllowance(_ scenario: PairingScenario) -> Duration {
        var ms = Double(scenario.keepalives + 1) * options.timing.keepaliveWindow.upperBound
        if scenario.silent { ms += options.timing.deadConnectionAllowance }
        for k in 0...(scenario.dropRefusing ?? 0) { ms += options.timing.delayWindow(options.timing.policy.delay(afterFailures: k + 1)).upperBound }
        return .milliseconds(Int64(ms))
    }

    // MARK: judging every frame

    private func judgeFrames(_ scenario: PairingScenario, since start: ContinuousClock.Instant, after first: Int, _ collector: Collector) {
        let connections = observer.peerConnections(after: first)
        for stranger in observer.strangerConnections(after: first) {
            collector.note(
                "connection \(stranger.id) registered \(stranger.registered.map(JSONSerializer.quoted).joined(separator: ", ")): another client on the runner's relay, not the \(scenario.role.rawValue) under test; its \(stranger.frames.count) frame(s) not judged")
        }
        let frames = connections.flatMap { c in c.frames.filter { $0.at >= start }.map { (c.id, $0) } }
        // The peer's own id: a phone's DID (from its ack), a desktop's pcPeerId (from its QR).
        let acks = frames.filter { $0.1.classified?.payloadKind == .pairAck }.compactMap { $0.1.json?["payload"] }
        let own =
            scenario.role == .phone
            ? acks.first?["mobileDid"]?.stringValue : connections.lazy.flatMap(\.registered).first { PeerID.aliasCode($0) == nil }
        var messages = 0
        for (connection, frame) in frames {
            let subject = "connection \(connection): \(FrameJudge.quote(frame.text, limit: 120))"
            guard let json = frame.json else {
                collector.add(Violation(rule: CoreRule.syntax, path: .root, expected: "a JSON text frame", found: FrameJudge.quote(frame.text), subject: subject))
                continue
            }
            let classified = PairingFrame(json)
            switch classified.kind {
            case .document(.register):
                let context = PairingContext(now: SystemClock().now(), localPeerId: scenario.role == .desktop ? nil : own)
                do throws(Violation) {
                    let register = try Register.decode(json, context: context)
                    // Only a desktop registers aliases (PAIR-SIG-001, the role is known here).
                    if scenario.role == .phone, PeerID.aliasCode(register.peerId) != nil {
                        throw Violation(
                            rule: PairingRule.registerOwnID, path: .root / "peerId", expected: "the phone's own DID\(own.map { " " + JSONSerializer.quoted($0) } ?? "")",
                            found: JSONSerializer.quoted(register.peerId))
                    }
                } catch {
                    var v = error
                    v.subject = subject
                    collector.add(v)
                }
            case .document(.message):
                // WebRTC signals are the exchange's (PAIR-RTC-006), not the pairing's messages.
                if classified.signal == nil { messages += 1 }
                do throws(Violation) {
                    // With the peer's own id: a signal it sends to itself is the echo loop (PAIR-RTC-004).
                    _ = try SignalMessage.decode(json, context: PairingContext(now: SystemClock().now(), localPeerId: own))
                } catch {
                    var v = error
                    v.subject = subject
                    collector.add(v)
                }
                if let max = scenario.maxMessages, messages > max {
                    collector.add(
                        Violation(
                            rule: scenario.rules.first ?? PairingRule.relayRouting, path: .root,
                            expected: max == 0 ? "no message" : "at most \(max) message(s)", found: "message \(messages)", subject: subject))
                }
            case .document(.ping):
                break
            case .bareSignal(let type):
                collector.add(
                    Violation(
                        rule: PairingRule.rtcBareFrame, path: .root / "type", expected: "a WebRTC signal as the payload of a message",
                        found: "a bare \(JSONSerializer.quoted(type)) frame", subject: subject))
            case .document(.desktopPairing), .document(.pairAck), .document(.devicePairing), .document(.pairingConfirmation), .document(.registered),
                .document(.peerOffline), .document(.relayError), .document(.pairedDesktop), .document(.pong), .document(.peerStatus), .other:
                collector.note("\(subject): a frame of a type the Spec does not define for clients (not judged)")
            }
        }
    }

    static func violation(_ reason: FailureReason, subject: String) -> Violation {
        Violation(rule: reason.rule, path: reason.path, expected: "a document the reference accepts", found: reason.detail, subject: subject)
    }
}

/// A scenario this run cannot play, and why (a file option it was not given).
struct SkipScenario: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Text frames one client received, in order.
final class FrameLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ text: String) { lock.withLock { list.append(text) } }
    var all: [String] { lock.withLock { list } }
}
