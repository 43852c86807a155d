import ArgumentParser
import ConformanceKit
import ConformanceLive
import Foundation
import Migration
import Pairing
import Reference
import WebSocketTransport

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay every vector against an implementation and judge each answer.",
        discussion: """
            With --role, the implementation is a live peer on the network instead: a relay or a migration \
            sender that listens (--peer ws://HOST:PORT), or a migration receiver, a pairing phone or a pairing \
            desktop that connects to the runner (--listen HOST:PORT; for phone and desktop the runner hosts the \
            relay). The runner plays the relay vectors or the scenarios in Conformance/scenarios/ as the \
            counterpart. \
            Exit status: 0 when every case met its expectation, 1 otherwise, 2 on usage errors.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, junit, html }

    @OptionGroup var repo: RepositoryOption
    @Option(help: "Only this family (\(Families.all.map(\.name).joined(separator: ", "))).") var family: String?
    @Option(name: .customLong("case"), help: "Only cases whose id matches this glob, e.g. 'pairing/flow-b/*' (repeatable: any of them).")
    var caseGlobs: [String] = []
    @Option(help: "Leave out cases whose id matches this glob (repeatable).") var exclude: [String] = []
    @Option(name: .customLong("repeat"), help: "Run the selected cases this many times; a case whose outcome varied is reported FLAKY and fails the run.")
    var repeatCount = 1
    @Option(help: "Play the vector cases in N workers (1 to 64), each with its own testee process (exec:) or in-process; the report is what one worker writes. Not with --role: live cases share one peer.")
    var jobs = 1
    @Option(help: "Run shard I of N (1-based) of the selected cases, e.g. 2/4: every case falls in one shard, by its id, the same on every machine. Merge the shards' --format json reports with `conformance report merge`.")
    var shard: String?
    @Option(help: "Report format: text, json, junit or html (one self-contained file; use --output).") var format: Format = .text
    @Option(help: "With --format html: where the rule links point, e.g. a URL of the Spec folder (default: this checkout's Spec/).")
    var specBase: String?
    @Option(help: "Write the report to this file instead of standard output.") var output: String?
    @Option(help: "Cases the implementation is known to fail: `CASE-ID [RULE,...]  # reason` per line.")
    var expectedFailures: String?
    @Option(help: "Write this run's failures as an expected-failure list to this file.") var writeExpectedFailures: String?
    @Option(help: "The implementation: 'local' (the built-in reference), exec:'COMMAND' (a testee over stdin/stdout), or ws://HOST:PORT with --role.")
    var peer: String = "local"
    @Option(help: "Test a live peer on the network: sender, receiver, relay, phone or desktop.") var role: LiveRole?
    @Option(help: "With --role receiver, phone or desktop: where the runner listens, HOST:PORT.") var listen: String?
    @Option(help: "With --role phone: write the QR text or the code for the phone under test here, once per scenario.") var handoffOut: String?
    @Option(help: "With --role desktop: read the QR text the desktop under test writes here, once per scenario; with --role phone: the phone's own QR (Flow A).")
    var qrFile: String?
    @Option(help: "With --role desktop: write the runner's phone QR here for the desktop under test to scan (Flow A).") var scanOut: String?
    @Option(help: "With --role phone or desktop: the relay URL the peer under test reaches (default ws://LISTEN; needed with 0.0.0.0).")
    var relayUrl: String?
    @Option(help: "With --role phone or desktop: the back-off the peer states, ms, e.g. 3000 or 500,1000,2000,5000 (the default, the seed's).")
    var backoff: String?
    @Option(help: "With --role phone or desktop: the keepalive interval the peer states, ms (default 30000).") var keepaliveMs: Int64 = 30_000
    @Option(help: "With --role phone or desktop: keepalives in a row the peer lets go unanswered before it drops the connection (1 ... 3, default 1; Android's is 3).")
    var unansweredLimit = 1
    @Option(help: "With --role phone or desktop: the peer runs its timers this much faster, 0 < F <= 1 (test builds only).")
    var timeScale: Double = 1
    @Option(help: "With --role sender: write the PIN here (the sender under test reads it).") var pinOut: String?
    @Option(help: "With --role receiver: read the PIN the receiver under test writes here.") var pinFile: String?
    @Option(help: ArgumentHelp(
        "With --role sender: the maxChunkSize the runner states in its Handshake (bytes, 1024 to 1048576; default 1048576). A small one gives a small store the chunks every scenario's fault needs.",
        valueName: "bytes")) var maxChunkSize: Int?
    @Option(help: ArgumentHelp(
        "With --role receiver: the store of the receiver under test, checked after each scenario (MIG-REST-001: the package's files by content once verified, else as it was). Without it the restore is not checked.",
        valueName: "dir")) var store: String?
    @Option(help: ArgumentHelp("With --role receiver: the wait after a locked session the receiver states, ms (test builds only; the Spec's 30000).", visibility: .hidden))
    var pinLockoutMs: Int = 30_000
    @Option(help: ArgumentHelp("With --role desktop: how long the desktop under test keeps a code valid, ms (test builds only; the seed's 300000).", visibility: .hidden))
    var desktopValidityMs: Int64 = 300_000
    @Option(help: "With --role sender or receiver: a file whose first line is the migration password (default \"conformance\").")
    var passwordFile: String?
    @Option(help: "With --role sender: the fewest PBKDF2 iterations the sender's envelope header may state (test senders only; default the Spec's 600000).")
    var minimumIterations: UInt32?
    @Option(help: "Seconds to wait for a testee's answer (default 10); with --role relay for each expected frame, with --role phone or desktop for the peer's registrations and each quiet spell (default 3).")
    var timeout: Double?
    @Flag(help: "Also list expected failures and not-implemented cases in the text report.") var verbose = false
    @Flag(help: "Also play the cases that take minutes: with --role relay those of the relay's clock (alias lifetime, guess window), with --role desktop the ack after the code expired (late-ack).")
    var includeSlow = false
    @Option(help: "With --role relay: the relay's alias lifetime and guess window in ms, when it was started with shorter ones for testing (default 300000).")
    var relayWindowMs: Int64 = 300_000
    @Option(help: "With a wss:// peer: trust only the CA(s) in this PEM file (default: the system's trust store).") var caFile: String?
    @Option(help: "With a wss:// peer: trust only the server key whose SubjectPublicKeyInfo has this SHA-256 (base64).") var pinSha256: String?
    @Flag(help: "With a wss:// peer: trust any certificate (the report says so).") var insecureSkipVerify = false
    @Option(help: "With --role receiver: serve wss:// with this certificate chain (PEM); needs --key.") var cert: String?
    @Option(help: "With --role receiver: the private key (PEM) of --cert.") var key: String?

    /// Each repetition's report is kept until the last: memory grows with the count.
    static let maxRepeat = 100

    func run() async throws {
        let repository = try repo.locate()
        if let family, Families.named(family) == nil {
            throw ValidationError("unknown family \(family); known: \(Families.all.map(\.name).joined(separator: ", "))")
        }
        let cases = try repository.cases()
        let expected = try loadExpectedFailures()
        var filter = CaseFilter(family: family, globs: caseGlobs, excludes: exclude)
        if let shard {
            guard let parsed = CaseFilter.parseShard(shard) else {
                throw ValidationError("--shard \(shard): expected I/N with 1 <= I <= N <= \(CaseFilter.maxShards), e.g. 2/4")
            }
            filter.shard = parsed
        }
        let levels: RuleLevels
        do {
            levels = RuleLevels(try Catalog.load(repository.catalogFile))
        } catch {
            throw ValidationError("cannot load the rule catalog: \(error)")
        }
        guard (1...Self.maxRepeat).contains(repeatCount) else { throw ValidationError("--repeat must be 1 to \(Self.maxRepeat)") }
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1 to 64") }
        if role != nil && jobs > 1 {
            throw ValidationError("--jobs plays vector cases in parallel; live cases (--role) share one peer and run one at a time")
        }
        let runs = if let role { try await runLive(role, repository, cases, filter, expected, levels) } else { try runVectors(cases, filter, expected, levels) }
        guard var report = repeatCount == 1 ? runs.first : RepeatedRuns.combine(runs) else { throw ValidationError("no run") }
        report.replay = Self.replayCommand(CommandLine.arguments)
        if let shard = filter.shard {
            report.notes.insert(ShardMerge.note(index: shard.index, count: shard.count), at: 0)
        }
        switch format {
        case .text: try writeOutput(TextReport.render(report, color: output == nil && isTerminal(.standardOutput), verbose: verbose), to: output)
        case .json: try writeOutput(JSONReport.render(report), to: output)
        case .junit: try writeOutput(JUnitReport.render(report), to: output)
        case .html:
            let base = specBase ?? repository.root.appendingPathComponent("Spec").absoluteString + "/"
            try writeOutput(HTMLReport.render(report, specBase: base.hasSuffix("/") ? base : base + "/"), to: output)
        }
        if output != nil && format != .text {
            FileHandle.standardError.write(Data(TextReport.render(report, color: isTerminal(.standardError)).utf8))
        }
        if let path = writeExpectedFailures {
            try writeOutput(ExpectedFailures.render(report.results), to: path)
        }
        if !report.ok { throw ExitCode(Status.violations) }
        // Every case declined or not played: the run judged nothing, so it passes nothing.
        if !report.results.isEmpty, report.results.allSatisfy({ $0.verdict == .skipped }) {
            let words = TextReport.extraCounts(report.results).map { "\($0.1) \($0.0)" }.joined(separator: ", ")
            throw InputError("no case was judged (\(words)): a run that judges nothing is not a pass")
        }
    }

    /// The live cases of `role`, `--repeat` times.
    func runLive(
        _ role: LiveRole, _ repository: Repository, _ cases: [VectorCase], _ filter: CaseFilter, _ expected: ExpectedFailures, _ levels: RuleLevels
    ) async throws -> [RunReport] {
        var runs: [RunReport] = []
        do {
            var options = try liveOptions(role)
            options.levels = levels
            for _ in 0..<repeatCount {
                runs.append(try await LiveRunner.run(options, repository: repository, cases: cases, filter: filter, expectedFailures: expected))
            }
        } catch let error as ValidationError {
            throw error
        } catch let failure as TLSFailure {
            // The peer could not prove who it is: one outcome, named, no case run.
            FileHandle.standardError.write(Data("conformance run: \(peer.terminalSafe) refused by TLS: \(failure.terminalSafe)\n".utf8))
            print("FAIL  \(failure.kind.rawValue): \(failure.detail.terminalSafe)")
            throw ExitCode(Status.violations)
        } catch {
            throw ValidationError("\(error)")
        }
        return runs
    }

    /// The vector cases, across `--jobs` peers, `--repeat` times.
    func runVectors(_ cases: [VectorCase], _ filter: CaseFilter, _ expected: ExpectedFailures, _ levels: RuleLevels) throws -> [RunReport] {
        var runs: [RunReport] = []
        let implementations = try (0..<jobs).map { _ in try makePeer() }
        defer { implementations.forEach { $0.close() } }
        // A run of no case would pass having judged nothing: the selection and the shard must
        // each hold a case.
        var unsharded = filter
        unsharded.shard = nil
        let selected = cases.filter(unsharded.matches).count
        if selected == 0 { throw ValidationError("no case matches the selection") }
        if let shard = filter.shard, !cases.contains(where: filter.matches) {
            throw ValidationError(
                "--shard \(shard.index)/\(shard.count) holds none of the \(selected) case(s) selected (a case falls in a shard by its id); split into fewer shards")
        }
        for _ in 0..<repeatCount {
            runs.append(Runner.run(cases, across: implementations, expectedFailures: expected, filter: filter, levels: levels))
        }
        return runs
    }

    func loadExpectedFailures() throws -> ExpectedFailures {
        guard let path = expectedFailures else { return ExpectedFailures() }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("cannot read \(path)")
        }
        do {
            return try ExpectedFailures.parse(text)
        } catch {
            throw ValidationError("\(path): \(error)")
        }
    }

    /// This command as typed, without what selects cases or shapes the report: the replay of a
    /// failing case adds `--case ID` to it.
    static func replayCommand(_ arguments: [String]) -> String {
        let dropped: Set<String> = ["--case", "--exclude", "--family", "--shard", "--repeat", "--jobs", "--output", "--format", "--write-expected-failures", "--spec-base"]
        var kept: [String] = []
        var skipNext = false
        for argument in arguments {
            if skipNext {
                skipNext = false
                continue
            }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if dropped.contains(name) {
                skipNext = !argument.contains("=")
                continue
            }
            kept.append(argument)
        }
        return kept.map(ShellWord.quoted).joined(separator: " ")
    }

    func liveOptions(_ role: LiveRole) throws -> LiveOptions {
        var options = LiveOptions(role: role) { line in FileHandle.standardError.write(Data("live: \(line.terminalSafe)\n".utf8)) }
        switch role {
        case .sender, .relay:
            guard peer.hasPrefix("ws://") || peer.hasPrefix("wss://") else {
                throw ValidationError("--role \(role.rawValue) needs --peer ws://HOST:PORT or wss://HOST:PORT")
            }
            options.peerURL = peer
        case .receiver, .phone, .desktop:
            guard let listen else { throw ValidationError("--role \(role.rawValue) needs --listen HOST:PORT") }
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
                throw ValidationError("--listen \(listen) is not HOST:PORT")
            }
            options.listen = (String(listen[..<colon]), port)
        }
        if role == .sender {
            guard let pinOut else { throw ValidationError("--role sender needs --pin-out FILE (the sender under test reads its PIN there)") }
            options.pinOut = URL(fileURLWithPath: pinOut)
            if let maxChunkSize {
                guard (1024...(1 << 20)).contains(maxChunkSize) else { throw ValidationError("--max-chunk-size is 1024 to 1048576 bytes, not \(maxChunkSize)") }
                options.maxChunkSize = maxChunkSize
            }
        } else if maxChunkSize != nil {
            throw ValidationError("--max-chunk-size is what the runner states as a receiver: it goes with --role sender")
        }
        if role == .receiver {
            guard let pinFile else { throw ValidationError("--role receiver needs --pin-file FILE (the receiver under test writes its PIN there)") }
            options.pinFile = URL(fileURLWithPath: pinFile)
            options.store = store.map { URL(fileURLWithPath: $0) }
        } else if store != nil {
            throw ValidationError("--store is the store of a receiver under test: it goes with --role receiver")
        }
        if role == .phone {
            guard let handoffOut else { throw ValidationError("--role phone needs --handoff-out FILE (the phone under test reads the QR text or code there)") }
            options.handoffOut = URL(fileURLWithPath: handoffOut)
        }
        if role == .desktop {
            guard let qrFile else { throw ValidationError("--role desktop needs --qr-file FILE (the desktop under test writes its QR text there)") }
            options.qrFile = URL(fileURLWithPath: qrFile)
            options.scanOut = scanOut.map { URL(fileURLWithPath: $0) }
        }
        if role == .phone { options.qrFile = qrFile.map { URL(fileURLWithPath: $0) } }
        if role == .phone || role == .desktop { try statePairingTiming(&options) }
        guard (1...30_000).contains(pinLockoutMs) else { throw ValidationError("--pin-lockout-ms must be 1 ... 30000 (the Spec's wait; shorter for test builds)") }
        options.pinLockoutMs = pinLockoutMs
        guard (1...300_000).contains(desktopValidityMs) else { throw ValidationError("--desktop-validity-ms must be 1 ... 300000 (the seed's 5 minutes; shorter for test builds)") }
        options.desktopValidityMs = desktopValidityMs
        if let timeout {
            guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds") }
            options.frameTimeout = .milliseconds(Int64(timeout * 1000))
        }
        guard relayWindowMs >= 100 else { throw ValidationError("--relay-window-ms must be at least 100") }
        options.relayWindow = relayWindowMs
        options.includeSlow = includeSlow
        options.trust = try tlsTrust(caFile: caFile, pin: pinSha256, insecure: insecureSkipVerify)
        switch (cert, key) {
        case (let cert?, let key?): options.tlsIdentity = TLSServerIdentity(certificateFile: cert, keyFile: key)
        case (nil, nil): break
        default: throw ValidationError("--cert and --key go together")
        }
        if let minimumIterations {
            guard minimumIterations >= 1, minimumIterations <= EnvelopePolicy.standard.iterations.upperBound else {
                throw ValidationError("--minimum-iterations must be 1 to \(EnvelopePolicy.standard.iterations.upperBound)")
            }
            options.minimumIterations = minimumIterations
        }
        if let passwordFile {
            guard let data = FileManager.default.contents(atPath: passwordFile) else { throw ValidationError("cannot read \(passwordFile)") }
            options.password = PasswordFile.password(from: [UInt8](data))
        } else if role == .receiver {
            options.password = LiveRunner.defaultPassword
        }
        return options
    }

    /// The timing a phone or desktop under test states, itself within what the Spec allows.
    func statePairingTiming(_ options: inout LiveOptions) throws {
        if let backoff {
            let delays = backoff.split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard !delays.isEmpty, delays.allSatisfy({ $0 != nil }) else { throw ValidationError("--backoff must be delays in ms separated by commas") }
            options.backoff = delays.compactMap { $0 }
        }
        options.keepaliveMs = keepaliveMs
        options.unansweredLimit = unansweredLimit
        // The stated timing must itself be what the Spec allows (PAIR-CONN-002, -003).
        var stated = SignalingConnectionMachine.Policy(backoff: options.backoff, keepaliveInterval: keepaliveMs)
        stated.unansweredLimit = unansweredLimit
        if let problem = stated.problem {
            throw ValidationError("--backoff/--keepalive-ms/--unanswered-limit: \(problem) (Spec pairing.md PAIR-CONN-002, PAIR-CONN-003)")
        }
        guard timeScale > 0, timeScale <= 1 else { throw ValidationError("--time-scale must be more than 0 and at most 1") }
        options.timeScale = timeScale
        options.relayURL = relayUrl
    }

    func makePeer() throws -> any Peer {
        if peer == "local" { return LocalPeer() }
        guard peer.hasPrefix("exec:") else {
            if peer.hasPrefix("ws://") { throw ValidationError("--peer ws://... tests a live peer: add --role sender or --role relay") }
            throw ValidationError("--peer must be 'local' or exec:'COMMAND', not \(peer)")
        }
        let command = String(peer.dropFirst("exec:".count))
        guard !command.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--peer exec: needs a command") }
        guard (timeout ?? 10) > 0 else { throw ValidationError("--timeout must be more than 0 seconds") }
        // Started lazily: a testee that dies in `hello` fails each case as testee-crashed.
        return ExecPeer(command: command, timeout: timeout ?? 10)
    }
}

extension LiveRole: ExpressibleByArgument {}
