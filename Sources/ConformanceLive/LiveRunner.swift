import ConformanceKit
import Foundation
import WebSocketTransport
import Migration
import Pairing
import PairingPeer
import MigrationPackage
import MigrationPeer
import WireCore

/// How to reach the peer under test, and what the scenarios share.
public struct LiveOptions: Sendable {
    public var role: LiveRole
    /// A peer that listens (sender, relay): `ws://HOST:PORT` or `wss://HOST:PORT`.
    public var peerURL: String?
    /// Whom a `wss://` peer must prove to be.
    public var trust: TLSClientTrust = .system
    /// Role receiver: serve `wss://` with this certificate and key.
    public var tlsIdentity: TLSServerIdentity?
    /// Where the runner listens for a peer that connects (receiver).
    public var listen: (String, Int)?
    /// Role sender: the file the runner writes the PIN to (the sender under test reads it there).
    public var pinOut: URL?
    /// Role sender: the maxChunkSize the runner's receiver states (nil: the machine's 1 MiB).
    public var maxChunkSize: Int?
    /// Role receiver: the file the receiver under test writes its PIN to.
    public var pinFile: URL?
    /// Role receiver: the store of the receiver under test, held to MIG-REST-001 after each
    /// scenario (nil: the restore is not checked, and the report says so).
    public var store: URL?
    /// The migration password: role receiver packs with it; role sender restores with it.
    public var password: String?
    /// Role sender: the fewest PBKDF2 iterations the sender's envelope header may state
    /// (MIG-ENV-003: the Spec's 600,000; lower only for test senders).
    public var minimumIterations: UInt32 = EnvelopePolicy.standard.iterations.lowerBound
    /// Progress lines for the person running the kit.
    public var announce: @Sendable (String) -> Void
    /// Role relay: how long to wait for each frame a step expects.
    public var frameTimeout: Duration = .seconds(3)
    /// Role relay: the relay's alias lifetime and guess window in milliseconds (the Spec's
    /// 300,000 unless the relay was started with shorter ones for testing).
    public var relayWindow: Int64 = 300_000
    /// Role relay: also play the cases that take minutes of the relay's clock.
    public var includeSlow = false
    /// Which rules are SHOULD-level (a case missing only those is non-strict).
    public var levels = RuleLevels()
    /// Roles phone and desktop: the back-off and keepalive the peer under test states, and its time scale.
    public var backoff: [Int64] = SignalingConnectionMachine.Policy.seed.backoff
    public var keepaliveMs: Int64 = SignalingConnectionMachine.Policy.seed.keepaliveInterval
    /// Keepalives in a row the peer lets go unanswered before it drops the connection (PAIR-CONN-003).
    public var unansweredLimit = SignalingConnectionMachine.Policy.seed.unansweredLimit
    public var timeScale = 1.0
    /// Role receiver: the wait after a locked session the receiver under test states (MIG-PIN-003;
    /// the Spec's 30,000 ms, shorter in test builds only).
    public var pinLockoutMs = Int(PINLockout.standardFirstWait)
    /// Role desktop: how long the desktop under test keeps a code valid (the seed's 300,000 ms,
    /// shorter in test builds only): when its late-ack scenario sends the ack.
    public var desktopValidityMs = PairingTimeouts.validity
    /// Role phone: where the runner writes the QR text or code for the phone under test.
    public var handoffOut: URL?
    /// Role desktop: where the desktop under test writes its QR text; role phone: where the phone
    /// under test writes its own QR text (Flow A).
    public var qrFile: URL?
    /// Role desktop: where the runner writes its phone's QR text for the desktop under test to scan (Flow A).
    public var scanOut: URL?
    /// Roles phone and desktop: the relay's URL as the peer under test reaches it (default ws://LISTEN).
    public var relayURL: String?

    var timing: PairingTiming {
        var policy = SignalingConnectionMachine.Policy(backoff: backoff, keepaliveInterval: keepaliveMs)
        policy.unansweredLimit = unansweredLimit
        return PairingTiming(policy: policy, scale: timeScale)
    }

    public init(role: LiveRole, announce: @escaping @Sendable (String) -> Void) {
        self.role = role
        self.announce = announce
    }

    /// The package the runner sends a receiver under test: a generated store, packed once per
    /// run; with every file of the package (for MIG-REST-001).
    func package(_ scratch: URL) throws -> (PreparedPackage, [RestoredStore.File]) {
        let file = scratch.appendingPathComponent("live-package.enc")
        let store = scratch.appendingPathComponent("live-store")
        var sample = SampleStore.Options()
        sample.mediaBytes = 1 << 20
        try SampleStore.generate(at: store, seed: 42, options: sample)
        var random = GeneratorBytes(SystemRandomNumberGenerator())
        let result = try Packer.pack(
            DeviceStore(store), to: file, password: password ?? LiveRunner.defaultPassword, now: SystemClock().now() / 1000, random: &random)
        let files = try Restorer.files(envelope: file, password: password ?? LiveRunner.defaultPassword, scratch: scratch.appendingPathComponent("live-package-files"))
        let prepared = try PreparedPackage(file: file, backupId: result.backupId, zipSize: result.zipSize, chunkSize: 16 << 10, schemaVersion: 1, appVersion: "1.0.0")
        return (prepared, files.map { RestoredStore.File(path: $0.key, sha256: $0.value.sha256) }.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) })
    }
}

/// `conformance run --role ...`: the vectors and scenarios that can be played over the network,
/// against a live peer, reported like any other run.
public enum LiveRunner {
    public static let defaultPassword = "conformance"

    public static func run(
        _ options: LiveOptions, repository: Repository, cases: [VectorCase], filter: CaseFilter, expectedFailures: ExpectedFailures
    ) async throws -> RunReport {
        let start = Date()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var log = CaseLog(expectedFailures: expectedFailures)
        // A wss:// peer proves who it is before any case: a certificate problem is one outcome
        // (TLSFailure, with its name), not a violation in every case.
        if let url = options.peerURL, url.hasPrefix("wss://") {
            let probe = try await WebSocketClient.connect(to: url, maxFrameSize: 1 << 16, trust: options.trust)
            try? await probe.run { _, writer in await writer.close() }
            log.notes.append("TLS: verified \(options.trust)")
        }
        if let identity = options.tlsIdentity { log.notes.append("TLS: serving wss:// with \(identity.certificateFile)") }
        switch options.role {
        case .relay: try await playRelay(options, cases.filter { RelayReplay.isRelayCase($0) && filter.matches($0) }, &log)
        case .phone, .desktop: try await playPairing(options, repository, filter, &log)
        case .sender, .receiver: try await playMigration(options, repository, filter, scratch: scratch, &log)
        }
        guard !log.results.isEmpty else { throw LiveError("no live case matches the selection") }
        let scheme = options.tlsIdentity == nil ? "ws" : "wss"
        let peer = options.peerURL ?? options.listen.map { "\(scheme)://\($0.0):\($0.1) (listening)" } ?? "?"
        return RunReport(
            peer: "\(peer), \(options.role.rawValue) under test", results: log.results, seconds: Date().timeIntervalSince(start),
            unknownExpectedFailures: expectedFailures.stale(among: cases), notes: log.notes)
    }

    /// The run's results and notes so far.
    struct CaseLog {
        let expectedFailures: ExpectedFailures
        var results: [CaseResult] = []
        var notes: [String] = []

        mutating func record(_ vector: VectorCase, _ outcome: LiveOutcome, since began: Date) {
            results.append(
                .judged(
                    vector, status: outcome.status, violations: outcome.violations, entry: expectedFailures.entry(for: vector.id), notes: outcome.notes,
                    seconds: Date().timeIntervalSince(began), wire: outcome.wire))
        }
    }

    /// The relay under test, case by case, each through fresh clients.
    private static func playRelay(_ options: LiveOptions, _ selected: [VectorCase], _ log: inout CaseLog) async throws {
        guard let url = options.peerURL else { throw LiveError("--role relay needs --peer ws://HOST:PORT") }
        var replay = RelayReplay(
            url: url, frameTimeout: options.frameTimeout, liveWindow: options.relayWindow, includeSlow: options.includeSlow, levels: options.levels)
        replay.trust = options.trust
        let relayCases = RelayReplay.ordered(selected)
        log.notes.append(
            replay.sourceBase == nil
                ? "clients: one source address for all (the relay is not on a 127.x.y.z address)"
                : "clients: one loopback source address each, fresh per case")
        log.notes.append(
            "relay window: \(options.relayWindow) ms\(options.relayWindow == 300_000 ? " (the Spec's)" : " (the relay was started with shorter windows)"); "
                + (options.includeSlow ? "time-based cases played in real time" : "time-based cases that take over a minute skipped (--include-slow plays them)"))
        for (i, vector) in relayCases.enumerated() {
            let began = Date()
            switch replay.plan(vector) {
            case .skip(let reason):
                options.announce("\(vector.id): skipped, \(reason)")
                log.record(vector, LiveOutcome(status: .skipped(reason), violations: []), since: began)
            case .play(let schedule):
                options.announce("\(vector.id)" + (schedule.map { " (\($0.duration / 1000) s of the relay's clock)" } ?? ""))
                log.record(vector, await replay.run(vector, index: i, schedule: schedule), since: began)
            }
        }
    }

    /// The phone or desktop under test, through a relay the runner hosts and watches.
    private static func playPairing(_ options: LiveOptions, _ repository: Repository, _ filter: CaseFilter, _ log: inout CaseLog) async throws {
        let file = repository.root.appendingPathComponent("Conformance/scenarios/pairing.json")
        let scenarios = try PairingScenario.load(file).filter { $0.role == options.role && filter.matches($0.vector) }
        guard !scenarios.isEmpty else { return }
        guard let (host, port) = options.listen else { throw LiveError("--role \(options.role.rawValue) needs --listen HOST:PORT") }
        let observer = RelayObserver()
        let listener = try await WebSocketListener.bind(
            host: host, port: port, maxFrameSize: RelayServer.maxFrameSize, tls: options.tlsIdentity, admit: { observer.admit($0) })
        let scheme = options.tlsIdentity == nil ? "ws" : "wss"
        let url = options.relayURL ?? "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(listener.port)"
        let relay = RelayServer(clock: { SystemClock().now() }, log: { _ in }, tap: { observer.tap($0) })
        let serving = Task { try? await relay.serve(listener) }
        defer { serving.cancel() }
        options.announce("relay for the \(options.role.rawValue) under test: \(url)")
        log.notes.append("relay hosted by the runner at \(url); timing checked: back-off \(options.backoff.map(String.init).joined(separator: "/")) ms, keepalive \(options.keepaliveMs) ms, \(options.unansweredLimit) unanswered" + (options.timeScale == 1 ? "" : ", time scale \(options.timeScale) (testing only)"))
        let player = PairingScenarioPlayer(options: options, relay: relay, observer: observer, relayURL: url)
        var since = ContinuousClock.now
        for scenario in scenarios {
            options.announce("\(scenario.id)")
            let began = Date()
            let start = options.role == .phone ? ContinuousClock.now : since
            observer.wire.begin()
            var outcome = await player.play(scenario, since: start)
            outcome.wire = observer.wire.take()
            log.record(scenario.vector, outcome, since: began)
            since = ContinuousClock.now
        }
        await listener.close()
    }

    /// The sender or receiver under test, against the runner's own side of the transfer.
    private static func playMigration(
        _ options: LiveOptions, _ repository: Repository, _ filter: CaseFilter, scratch: URL, _ log: inout CaseLog
    ) async throws {
        let file = repository.root.appendingPathComponent("Conformance/scenarios/migration.json")
        let scenarios = try MigrationScenario.load(file).filter { $0.role == options.role && filter.matches($0.vector) }
        // A receiver under test connects once per scenario to one listener for the whole run,
        // so a receiver that reconnects early is queued for the next scenario, never lost.
        var listener: WebSocketListener?
        var package: PreparedPackage?
        var packageFiles: [RestoredStore.File] = []
        var hostilePackages: [String: PreparedPackage] = [:]
        if options.role == .receiver, !scenarios.isEmpty {
            guard let (host, port) = options.listen else { throw LiveError("--role receiver needs --listen HOST:PORT") }
            if let pinFile = options.pinFile { try? FileManager.default.removeItem(at: pinFile) }
            // Every package is sealed before the listener opens: a receiver that connects is
            // greeted at once (MIG-XFER-007 gives it 10 s), however long the sealing takes.
            (package, packageFiles) = try options.package(scratch)
            for scenario in scenarios {
                guard let hostile = scenario.hostile else { continue }
                hostilePackages[scenario.id] = try MigrationScenarioPlayer.hostilePackage(
                    hostile, root: repository.root, password: options.password ?? LiveRunner.defaultPassword, scratch: scratch)
            }
            listener = try await WebSocketListener.bind(host: host, port: port, maxFrameSize: 1 << 16, tls: options.tlsIdentity)
            log.notes.append(
                options.store.map { "restore checked: the store \($0.path) after each scenario (MIG-REST-001, by content)" }
                    ?? "restore not checked: a receiver that answers verified and restores nothing passes (give --store DIR, the store of the receiver under test)")
        }
        let player = MigrationScenarioPlayer(
            options: options, scratch: scratch, listener: listener, package: package, hostilePackages: hostilePackages, packageFiles: packageFiles, root: repository.root)
        for scenario in scenarios {
            options.announce("\(scenario.id)")
            let began = Date()
            log.record(scenario.vector, await player.play(scenario), since: began)
        }
        await listener?.close()
    }
}
