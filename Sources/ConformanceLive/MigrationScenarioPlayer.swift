import ConformanceKit
import Foundation
import Migration
import MigrationPackage
import MigrationPeer
import WebSocketTransport
import WireCore

/// Plays one migration scenario as the counterpart of the peer under test: the reference
/// machines do the checking (every message and chunk the peer sends goes through their codecs
/// and rules), the faults are injected by the reference peers, and the outcome is the runner's
/// final state and the rules its machine reported.
struct MigrationScenarioPlayer {
    var options: LiveOptions
    var scratch: URL
    /// Where a receiver under test connects, and what it is sent (with `--role receiver`).
    var listener: WebSocketListener?
    var package: PreparedPackage?
    /// Each hostile scenario's package by scenario id, sealed before the listener opened: a
    /// receiver waiting on the listener is greeted within MIG-XFER-007's 10 s, however slow the
    /// sealing is.
    var hostilePackages: [String: PreparedPackage] = [:]
    /// Every file of `package`, `manifest.json` included: what a restored store holds (MIG-REST-001).
    var packageFiles: [RestoredStore.File] = []
    /// The checkout's root: hostile scenarios read their package vectors under it.
    var root: URL
    /// Whether the scenario before read the receiver's PIN (`--pin-file` is removed before the
    /// listener opens, so the first scenario starts as if it had).
    var pinTaken = PINTaken()

    static let timeout: Duration = .seconds(90)

    func play(_ scenario: MigrationScenario) async -> LiveOutcome {
        // The runner's machine judges what the peer under test sends: its violations point into
        // that peer's message or chunk.
        let collector = Collector(subject: "a message from the \(scenario.role.rawValue) under test")
        collector.wire.begin()
        var outcome = await play(scenario, collector)
        outcome.wire = collector.wire.take()
        return outcome
    }

    private func play(_ scenario: MigrationScenario, _ collector: Collector) async -> LiveOutcome {
        let result: Result<String, any Error>
        do {
            let state = try await withDeadline(Self.timeout) {
                switch scenario.role {
                case .sender: return try await asReceiver(scenario, collector)
                default:
                    var before: [RestoredStore.File]?
                    var stamps: [String: DeviceStore.Stamp] = [:]
                    if let store = options.store { before = try await Self.contents(of: store, until: .now + Self.restoreWait, stamps: &stamps) }
                    let ended = try await asSender(scenario, collector)
                    if let hostile = scenario.hostile, let failure = ended.failedUnoffered, collector.violations.isEmpty {
                        // Nothing was there to refuse: not a pass, and no rule of the receiver's seen broken.
                        throw SkipScenario(
                            "the session ended (\(failure)) before the runner offered its package: the hostile package was never sent, so its refusal (\(hostile.refused)) was not seen")
                    }
                    if let before {
                        try await checkStore(
                            before: before, restores: ended.phase == SenderMachine.Phase.done.rawValue && scenario.hostile == nil, stamps: &stamps, collector)
                    } else if scenario.hostile != nil, ended.phase == SenderMachine.Phase.done.rawValue {
                        collector.note("the receiver verified the transfer; that it restored nothing of this package is not checked (give --store DIR)")
                    }
                    return ended.phase
                }
            }
            result = .success(state)
        } catch let error as DeadlineExceeded {
            return collector.timedOut(error.limit, levels: options.levels)
        } catch let skip as SkipScenario {
            return LiveOutcome(status: .skipped(skip.reason), violations: [])
        } catch {
            result = .failure(error)
        }
        var violations: [Violation] = []
        let reported = collector.violations
        var expected = scenario.expectRejects
        for violation in reported {
            if let i = expected.firstIndex(of: violation.rule.rawValue) {
                expected.remove(at: i)
            } else {
                violations.append(violation)
            }
        }
        let rule = scenario.rules.first ?? MigrationRule.order
        for missing in expected {
            violations.append(
                Violation(
                    rule: RuleID(missing), path: .root, expected: "the runner's machine to report \(missing)", found: "no such report",
                    subject: "the scenario's faults"))
        }
        // A receiver that never greeted is that violation alone, not also a wrong final state.
        let neverGreeted = reported.contains { $0.rule == MigrationRule.greeting } && !scenario.expectRejects.contains(MigrationRule.greeting.rawValue)
        // So is one that began a new session where it had to resume.
        let neverResumed = reported.contains { $0.rule == MigrationRule.resume } && !scenario.expectRejects.contains(MigrationRule.resume.rawValue)
        switch result {
        case .success(let state) where scenario.hostile != nil:
            // Refused either way: cancelled in the transfer (a streaming receiver), or verified
            // and nothing restored (a file-first one; its store is checked with --store).
            if let hostile = scenario.hostile, state != SenderMachine.Phase.done.rawValue, state != SenderMachine.Phase.failed.rawValue {
                violations.append(
                    Violation(
                        rule: hostile.refused, path: .root, expected: "the package refused: the transfer cancelled, or verified and nothing restored",
                        found: "final state \(state)", subject: "the runner's machine at the end"))
            }
        case .success(let state) where state != scenario.expectState && !neverGreeted && !neverResumed:
            violations.append(
                Violation(rule: rule, path: .root, expected: "final state \(scenario.expectState)", found: state, subject: "the runner's machine at the end"))
        case .failure(let error):
            if let package = error as? PackageError, let v = package.violation {
                violations.append(v)
            } else {
                return LiveOutcome(status: .broken(.crashed("\(error)")), violations: violations)
            }
        default:
            break
        }
        return LiveOutcome(status: CaseResult.status(violations: violations, notes: [], levels: options.levels), violations: violations)
    }

    /// The peer under test is a sender: connect to it as a receiver.
    private func asReceiver(_ scenario: MigrationScenario, _ collector: Collector) async throws -> String {
        guard let url = options.peerURL else { throw LiveError("--role sender needs --peer ws://HOST:PORT") }
        guard let pinOut = options.pinOut else { throw LiveError("--role sender needs --pin-out FILE (the sender under test reads its PIN there)") }
        let folder = scratch.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        try? FileManager.default.removeItem(at: pinOut)
        var peer = ReceiverPeer.Options(url: url, incoming: IncomingPackage(folder: folder.appendingPathComponent("incoming")))
        peer.trust = options.trust
        peer.faults = scenario.faults
        if let maxChunkSize = options.maxChunkSize { peer.configuration.maxChunkSize = maxChunkSize }
        let password = options.password
        let policy = EnvelopePolicy(iterations: options.minimumIterations...EnvelopePolicy.standard.iterations.upperBound)
        let pins = scenario.pins
        var hooks = ReceiverPeer.Hooks(
                showPIN: { shown in
                    Task { await PINFile.write(pins.map { $0 == "right" ? shown : PINFile.wrong(shown) }, to: pinOut) }
                },
                confirmWipe: { _ in true },
                restore: { file, meta in
                    // With the sender's password the whole package is checked as a receiver restores it.
                    guard let password else { return }
                    var restore = Restorer.Options()
                    restore.expectedBackupId = meta.backupId
                    restore.policy = policy
                    _ = try Restorer.restore(file, password: password, into: DeviceStore(folder.appendingPathComponent("store")), options: restore)
                },
                report: collector.report,
                checkPassword: { header in
                    // Without the sender's password the runner still judges the header's parameters
                    // (MIG-ENV-003: iterations at least the floor), as any receiver must.
                    ReceiverMachine.PasswordCheck(header: header, password: password, policy: policy)
                })
        hooks.frame = { collector.wire.record($0, runner: .client) }
        let ending = try await ReceiverPeer.run(options: peer, hooks: hooks)
        if let needed = scenario.faults.lastFrame, ending.chunkFrames < needed {
            // Not a pass, and not the sender's fault: the scenario never happened.
            throw SkipScenario(
                "its fault needs chunk frame \(needed), and the sender sent \(ending.chunkFrames): nothing was injected (send smaller chunks, a larger store, or give the runner --max-chunk-size 16384 to play it)")
        }
        return ending.state.phase.rawValue
    }

    /// The peer under test is a receiver: listen, and send it a package when it connects.
    /// How a session of the runner's sender ended: its phase, and the failure when it failed
    /// before its BackupMeta offered the package.
    struct Ending {
        var phase: String
        var failedUnoffered: SessionFailure?

        init(_ state: SenderMachine.State?) {
            phase = (state?.phase ?? .listening).rawValue
            if case .failed(let failure, nil)? = state { failedUnoffered = failure }
        }
    }

    private func asSender(_ scenario: MigrationScenario, _ collector: Collector) async throws -> Ending {
        guard let listener, let good = package, let (host, _) = options.listen else { throw LiveError("--role receiver needs --listen HOST:PORT") }
        guard let pinFile = options.pinFile else { throw LiveError("--role receiver needs --pin-file FILE (the receiver under test writes its PIN there)") }
        // A receiver may connect, and show its PIN, before its scenario starts (its connection
        // waits on the listener): the file is a leftover only when the scenario before read none.
        if !pinTaken.reset() { try? FileManager.default.removeItem(at: pinFile) }
        let pinTaken = self.pinTaken
        options.announce("waiting for the receiver under test on \(options.tlsIdentity == nil ? "ws" : "wss")://\(host):\(listener.port) (\(scenario.id))")
        guard let package = scenario.hostile == nil ? good : hostilePackages[scenario.id] else { throw LiveError("no package was sealed for \(scenario.id)") }
        var peer = SenderPeer.Options()
        peer.configuration.chunkSize = 16 << 10
        peer.configuration.ackTimeout = 2000
        peer.faults = scenario.faults
        // The runner drops the connection itself: the receiver must come back resuming.
        let resumes = scenario.faults.disconnectAfterChunks.isEmpty ? nil : ResumeWatch()
        let typed = PINSequence(scenario.pins)
        // A receiver that connects and never greets is closed after 10 s (MIG-XFER-007), and the
        // sender keeps listening; nobody else will come, so the scenario ends there instead of at
        // its 90 s limit.
        let options = peer
        let asked = FirstCall()
        let session: @Sendable (PINSequence) async throws -> Ending = { typed in
            let (idle, closedIdle) = AsyncStream<Void>.makeStream()
            // A receiver that began a new session where it had to resume keeps coming back with
            // new ones, each closed 10 s after its Handshake: the verdict is in after the first.
            resumes?.whenFound { closedIdle.yield() }
            let report: @Sendable (PeerEvent) -> Void = { event in
                collector.report(event)
                if case .violation(let v) = event, v.rule == MigrationRule.greeting { closedIdle.yield() }
            }
            return try await withThrowingTaskGroup(of: SenderMachine.State?.self) { group in
                group.addTask {
                    try await Self.sender(on: listener, package, options, typed, pinFile, pinTaken, asked, report, wire: collector.wire, resumes: resumes)
                }
                group.addTask {
                    for await _ in idle { return nil }
                    return nil
                }
                defer { group.cancelAll() }
                return Ending(try await group.next() ?? nil)
            }
        }
        let ended = try await session(typed)
        if let violation = resumes?.violation() { collector.add(violation) }
        guard scenario.lockout else { return ended }
        guard ended.phase == SenderMachine.Phase.locked.rawValue else {
            collector.add(
                Violation(
                    rule: MigrationRule.pinAttempts, path: .root, expected: "the session locked after \(scenario.pins.count) wrong PINs", found: "it ended \(ended.phase)",
                    subject: "the receiver under test"))
            return ended
        }
        // MIG-PIN-003: the next session (its PIN is asked for at its Handshake) not before the
        // wait, less the time the lock took to arrive.
        let lockedAt = ContinuousClock.now
        asked.reset()
        let next = try await session(PINSequence(["right"]))
        if let at = asked.instant {
            let waited = Int((at - lockedAt) / .milliseconds(1))
            let wait = self.options.pinLockoutMs
            if waited < wait - min(Self.lockTravel, wait / 2) {
                collector.add(
                    Violation(
                        rule: MigrationRule.pinLockout, path: .root,
                        expected: "no new session within \(wait) ms of the locked one (\(min(Self.lockTravel, wait / 2)) ms allowed for the lock to reach the runner)",
                        found: "its next Handshake after \(waited) ms", subject: "the receiver under test"))
            }
        }
        return next
    }

    /// A package vector's zip sealed with the receiver's password, its envelope broken as the
    /// scenario says, announced with the scenario's `backupId`.
    static func hostilePackage(_ hostile: HostilePackage, root: URL, password: String, scratch: URL) throws -> PreparedPackage {
        guard let zip = FileManager.default.contents(atPath: root.appendingPathComponent(hostile.zipPath).path) else {
            throw LiveError("cannot read \(hostile.zipPath) (the package of \(hostile.vector))")
        }
        var random = GeneratorBytes(SystemRandomNumberGenerator())
        var envelope = try Envelope.seal(
            [UInt8](zip), password: password, iterations: hostile.envelope == .weak ? 1000 : EnvelopePolicy.defaultIterations, random: &random)
        // Part of the last segment's tag: the file ends before the header says it does.
        if hostile.envelope == .truncated { envelope.removeLast(20) }
        let file = scratch.appendingPathComponent("hostile-\(UUID().uuidString).enc")
        try Data(envelope).write(to: file)
        return try PreparedPackage(file: file, backupId: hostile.backupId, zipSize: Int64(zip.count), chunkSize: 16 << 10, schemaVersion: 1, appVersion: "1.0.0")
    }

    /// How long a receiver may take to restore once it answered `verified`.
    static let restoreWait: Duration = .seconds(20)
    /// How long a store must stay the same to be taken as settled once the receiver came back
    /// for its next session (a receiver serves one session at a time: its restore is over).
    static let settle: Duration = .milliseconds(1500)
    /// How long it must stay the same when the receiver does not come back: a file-first
    /// receiver opens and checks a package after its `Complete`, and may restore one it should
    /// refuse seconds later (its key derivation alone takes most of a second, more under load).
    static let unattendedSettle: Duration = .seconds(8)

    /// The store's inventory; a store read while the receiver moves files is read again.
    static func contents(
        of store: URL, until deadline: ContinuousClock.Instant, stamps: inout [String: DeviceStore.Stamp]
    ) async throws -> [RestoredStore.File] {
        while true {
            do {
                return try DeviceStore.contents(of: store, stamps: &stamps)
            } catch where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// MIG-REST-001 on the store under test: once the session ended `done` (the receiver
    /// verified the package) with a good package it holds the package's files, waited for up
    /// to `restoreWait`; otherwise (a hostile package too) it is what it was before the
    /// scenario, read once settled: unchanged for `settle` with the receiver back on the
    /// listener, or for `unattendedSettle` without.
    private func checkStore(before: [RestoredStore.File], restores: Bool, stamps: inout [String: DeviceStore.Stamp], _ collector: Collector) async throws {
        guard let store = options.store else { return }
        let outcome: RestoredStore.Outcome = restores ? .verified : .refused
        let deadline = ContinuousClock.now + Self.restoreWait
        var after = try await Self.contents(of: store, until: deadline, stamps: &stamps)
        var found = RestoredStore.judge(outcome: outcome, package: packageFiles, before: before, after: after)
        var sameSince = ContinuousClock.now
        while ContinuousClock.now < deadline {
            if outcome == .verified {
                if found.isEmpty { break }
            } else {
                let quiet = ContinuousClock.now - sameSince
                if quiet >= Self.unattendedSettle { break }
                if quiet >= Self.settle, await listener?.hasWaiting() == true { break }
            }
            try await Task.sleep(for: .milliseconds(200))
            let now = try await Self.contents(of: store, until: deadline, stamps: &stamps)
            if now != after { sameSince = ContinuousClock.now }
            after = now
            found = RestoredStore.judge(outcome: outcome, package: packageFiles, before: before, after: after)
        }
        let subject = "the store under test (\(store.path))" + (outcome == .verified ? ", \(Self.restoreWait) after the package was verified" : ", the session having restored nothing")
        for var violation in found.prefix(20) {
            violation.subject = subject
            collector.add(violation)
        }
        if found.count > 20 { collector.note("and \(found.count - 20) more MIG-REST-001 findings in the store") }
    }

    /// The slack in timing MIG-PIN-003's wait from where the runner sees it.
    static let lockTravel = 1000

    private static func sender(
        on listener: WebSocketListener, _ package: PreparedPackage, _ peer: SenderPeer.Options, _ typed: PINSequence, _ pinFile: URL, _ pinTaken: PINTaken,
        _ asked: FirstCall, _ report: @escaping @Sendable (PeerEvent) -> Void, wire: WireRecorder, resumes: ResumeWatch?
    ) async throws -> SenderMachine.State {
        var hooks = SenderPeer.Hooks(
                enterPIN: { _ in
                    asked.mark()
                    // The receiver shows one PIN per session: read it once, then type from memory.
                    let shown = try await typed.shown {
                        let pin = try await PINFile.read(pinFile)
                        pinTaken.set()
                        return pin
                    }
                    return await typed.next() == "right" ? shown : PINFile.wrong(shown)
                },
                prepare: { package },
                report: report)
        hooks.frame = {
            wire.record($0, runner: .server)
            resumes?.observe($0)
        }
        return try await SenderPeer.run(on: listener, options: peer, hooks: hooks)
    }
}

/// What the runner's own peer reported during a scenario.
final class Collector: @unchecked Sendable {
    /// The frames of the runner's own peer while the case plays.
    let wire = WireRecorder()
    private let lock = NSLock()
    private var list: [Violation] = []
    private var remarks: [String] = []
    private let subject: String

    init(subject: String) { self.subject = subject }

    var violations: [Violation] { lock.withLock { list } }
    /// What the report says beside the violations, never failing a case on its own.
    var notes: [String] { lock.withLock { remarks } }

    func note(_ text: String) { lock.withLock { remarks.append(text) } }

    func report(_ event: PeerEvent) {
        guard case .violation(let v) = event else { return }
        add(v)
    }

    func add(_ violation: Violation) {
        var v = violation
        v.subject = v.subject ?? subject
        lock.withLock { list.append(v) }
    }

    private var unexplained: [(violation: Violation, note: String)] = []

    /// A violation that counts only if nothing else is reported by the end of the scenario (see
    /// `settle`): otherwise it is a consequence of what was, and `note` says so.
    func addUnlessExplained(_ violation: Violation, note: String) {
        lock.withLock { unexplained.append((violation, note)) }
    }

    /// Once every frame is judged: the waiting violations count when they stand alone, and are
    /// notes beside the violations that explain them otherwise.
    func settle() {
        let waiting = lock.withLock { defer { unexplained = [] }; return unexplained }
        if violations.isEmpty { waiting.forEach { add($0.violation) } } else { waiting.forEach { note($0.note) } }
    }
}

/// Whether a scenario read the PIN the receiver under test showed.
final class PINTaken: @unchecked Sendable {
    private let lock = NSLock()
    private var taken = true

    func set() { lock.withLock { taken = true } }

    /// Whether the scenario before read one; the next scenario starts with none read.
    func reset() -> Bool {
        lock.withLock {
            defer { taken = false }
            return taken
        }
    }
}

/// When something first happened (the first PIN asked for in a session).
final class FirstCall: @unchecked Sendable {
    private let lock = NSLock()
    private var first: ContinuousClock.Instant?

    var instant: ContinuousClock.Instant? { lock.withLock { first } }
    func mark() { lock.withLock { first = first ?? .now } }
    func reset() { lock.withLock { first = nil } }
}

/// The PINs the runner's user types, one per request.
actor PINSequence {
    private var pins: [String]
    private var known: String?
    init(_ pins: [String]) { self.pins = pins }
    func next() -> String { pins.isEmpty ? "right" : pins.removeFirst() }
    func shown(_ read: () async throws -> String) async throws -> String {
        if let known { return known }
        let pin = try await read()
        known = pin
        return pin
    }
}
