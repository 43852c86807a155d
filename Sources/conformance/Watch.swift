import ArgumentParser
import ConformanceKit
import ConformanceLive
import Dispatch
import Foundation
import Migration
import Pairing
import WebSocketTransport
import WireCore

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch two real implementations meet and judge every frame between them.",
        discussion: """
            Real clients connect to --listen. For pairing the kit hosts a Spec relay for them, or with --upstream \
            forwards each connection to a deployed relay byte for byte and judges the relay too; for migration the \
            new phone connects to the kit and the kit to the old phone (--upstream). Every violation names the side \
            that broke it, the connection, the frame and the rule. The watch ends after --sessions sessions, after \
            --duration seconds, or on Ctrl-C; the report is written in every case. --log keeps every frame as JSON \
            Lines (Conformance/session-log.md), which `conformance check --session FILE` judges again offline. \
            Exit status: 0 no violation, 1 violations, 2 usage errors.
            """)

    @OptionGroup var repo: RepositoryOption
    @Option(help: "pairing or migration.") var family: String
    @Option(help: "Where the clients connect, HOST:PORT (port 0 picks one; --ready-file says which).") var listen: String
    @Option(help: "Forward each connection to this server (ws:// or wss://) instead of hosting a relay: a deployed relay, an old phone.")
    var upstream: String?
    @Option(help: "Stop after this many sessions ended (paired, migrated or broken).") var sessions: Int?
    @Option(help: "Stop after this many seconds.") var duration: Double?
    @Option(help: "Write every frame to this file as JSON Lines (Conformance/session-log.md).") var log: String?
    @Option(help: "The log stops at this many MiB (1 to 1024, default 128): it ends there, and the report says when.") var logLimitMb = SessionLog.defaultLimit >> 20
    @Option(help: "Report format: text, json, junit or html.") var format: Check.Format = .text
    @Option(help: "Write the report to this file instead of standard output.") var output: String?
    @Option(help: "A label for a peer id in the report, PEERID=LABEL (repeatable), e.g. did:key:z6Mk...=android-pixel.") var name: [String] = []
    @Option(help: "Pairing: the keepalive interval the clients state, ms, or one side's, SIDE=MS (phone or desktop; repeatable; default: any the Spec allows, 5000 ... 30000).")
    var keepaliveMs: [String] = []
    @Option(help: "Pairing: the first back-off delay the clients state, ms, or one side's, SIDE=MS (repeatable; default: the Spec's least, 500).")
    var backoff: [String] = []
    @Option(help: "Pairing: keepalives in a row the clients let go unanswered before they drop the connection (1 ... 3; default the Spec's widest, 3; the reference's is 1).")
    var unansweredLimit: Int?
    @Option(help: "With --upstream: seconds the relay may take to answer or deliver (default 5).") var timeout: Double = 5
    @Option(help: "Pairing: how long the phone waits for the desktop's confirmation of a typed code, ms (1 ... 300000, default the Spec's 300000; iOS waits 60000).")
    var confirmationWait: Int64 = PairingTimeouts.validity
    @Option(help: "Migration: the sender's ack timeout it states, ms; it may send a chunk again once it is over (default the Spec's 15000).")
    var ackTimeoutMs: Int64 = 15_000
    @Option(help: "Migration: the fewest PBKDF2 iterations a sender's envelope header may state (test senders only; default the Spec's 600000).")
    var minimumIterations: UInt32?
    @Option(help: "Write the listening URL to this file once bound.") var readyFile: String?
    @Option(help: "A file of lines 'PID LABEL': a connection whose socket that process (or one it started) holds is LABEL's, whatever ids it registers (Linux; read as connections open).")
    var owners: String?
    @Option(help: "Binary frames up to this many bytes are logged whole (default 4096; longer ones by length and digest).") var logBinaryBytes = 4096
    @Option(help: "With a wss:// upstream: trust only the CA(s) in this PEM file.") var caFile: String?
    @Option(help: "With a wss:// upstream: trust only the server key whose SubjectPublicKeyInfo has this SHA-256 (base64).") var pinSha256: String?
    @Flag(help: "With a wss:// upstream: trust any certificate (the report says so).") var insecureSkipVerify = false
    @Option(help: "Serve wss:// with this certificate chain (PEM); needs --key.") var cert: String?
    @Option(help: "The private key (PEM) of --cert.") var key: String?
    @Option(help: "Migration: a file holding the envelope's password; its segments are then authenticated as they pass (nothing is stored).")
    var passwordFile: String?

    func run() async throws {
        let repository = try repo.locate()
        guard ["pairing", "migration"].contains(family) else { throw ValidationError("--family must be pairing or migration") }
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("--listen \(listen) is not HOST:PORT")
        }
        if family == "migration", upstream == nil { throw ValidationError("--family migration needs --upstream ws://SENDER (the old phone)") }
        if passwordFile != nil, family != "migration" { throw ValidationError("--password-file is for --family migration") }
        if let sessions, sessions < 1 { throw ValidationError("--sessions must be at least 1") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be more than 0 seconds") }
        let keepalives = try Self.perSide(keepaliveMs, option: "--keepalive-ms")
        if let unansweredLimit, !SignalingConnectionMachine.Policy.unansweredBounds.contains(unansweredLimit) {
            throw ValidationError("--unanswered-limit must be 1 ... 3 (Spec pairing.md PAIR-CONN-003)")
        }
        let backoffs = try Self.perSide(backoff, option: "--backoff")
        guard (1...PairingTimeouts.validity).contains(confirmationWait) else { throw ValidationError("--confirmation-wait must be 1 ... \(PairingTimeouts.validity) ms") }
        var names: [String: String] = [:]
        for pair in name {
            guard let eq = pair.lastIndex(of: "="), eq != pair.startIndex else { throw ValidationError("--name \(pair) is not PEERID=LABEL") }
            names[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        let options = try watchOptions(host: String(listen[..<colon]), port: port)
        if let upstream, family == "pairing" {
            // A relay takes any number of connections: one now says whether it can be reached at
            // all (a relay that refused every connection was a PASS). An old phone's sender
            // takes one receiver, so it is never tried ahead.
            do {
                let probe = try await WebSocketClient.connect(to: upstream, maxFrameSize: options.maxFrameSize, trust: options.trust)
                try? await probe.run { _, writer in await writer.close() }
            } catch {
                throw InputError("--upstream \(upstream) cannot be reached: \(error)")
            }
        }
        let result = try await watch(options, names: names, keepalives: keepalives, backoffs: backoffs)
        try Self.write(result, format: format, output: output, repository: repository, judgedSomething: result.unforwarded == 0 || result.forwarded > 0)
    }

    /// Where the watch listens and forwards, what it logs, and whom it trusts.
    func watchOptions(host: String, port: Int) throws -> WatchOptions {
        var options = WatchOptions(family: family, listen: (host, port))
        options.upstream = upstream
        options.sessions = sessions
        options.duration = duration
        options.log = log.map { URL(fileURLWithPath: $0) }
        guard (1...(SessionLog.maxBytes >> 20)).contains(logLimitMb) else { throw ValidationError("--log-limit-mb must be 1 to \(SessionLog.maxBytes >> 20)") }
        options.logLimit = logLimitMb << 20
        options.binaryCap = max(0, logBinaryBytes)
        options.password = try passwordFile.map(readPassword)
        options.owners = owners.map { URL(fileURLWithPath: $0) }
        options.trust = try tlsTrust(caFile: caFile, pin: pinSha256, insecure: insecureSkipVerify)
        switch (cert, key) {
        case (let cert?, let key?): options.tlsIdentity = TLSServerIdentity(certificateFile: cert, keyFile: key)
        case (nil, nil): break
        default: throw ValidationError("--cert and --key go together")
        }
        let scheme = cert == nil ? "ws" : "wss"
        let (readyFile, host, upstream) = (readyFile, options.listen.host, upstream)
        options.ready = { port in
            let url = "\(scheme)://\(host):\(port)"
            FileHandle.standardError.write(Data("conformance watch: listening on \(url)\(upstream.map { ", forwarding to \($0)" } ?? ", hosting a Spec relay")\n".utf8))
            if let readyFile { try? Data(url.utf8).write(to: URL(fileURLWithPath: readyFile), options: .atomic) }
        }
        if isTerminal(.standardError) { options.echo = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) } }
        return options
    }

    /// Watches with the family's judge until the watch ends; its result.
    func watch(
        _ options: WatchOptions, names: [String: String], keepalives: (EpochMillis?, [String: EpochMillis]), backoffs: (EpochMillis?, [String: EpochMillis])
    ) async throws -> WatchResult {
        var options = options
        do {
            if family == "migration" {
                // Chunks up to 16 MiB pass.
                options.maxFrameSize = BackupChunk.headerLength + BackupChunk.maxLength
                var migration = MigrationWatch.Options()
                migration.ackTimeout = ackTimeoutMs
                if let minimumIterations {
                    guard minimumIterations >= 1, minimumIterations <= EnvelopePolicy.standard.iterations.upperBound else {
                        throw ValidationError("--minimum-iterations must be 1 to \(EnvelopePolicy.standard.iterations.upperBound)")
                    }
                    migration.minimumIterations = minimumIterations
                }
                let header = SessionLog.Header(family: family, startedAt: SystemClock().now(), names: names, binaryCap: options.binaryCap, judge: migration.json)
                return try await Watcher.run(options, judge: MigrationWatch(options: migration), header: header, stop: Self.interrupts())
            } else {
                var pairing = PairingWatch.Options()
                (pairing.keepaliveInterval, pairing.keepaliveBySide) = keepalives
                (pairing.firstBackoff, pairing.backoffBySide) = backoffs
                pairing.unansweredLimit = unansweredLimit
                pairing.judgeRelay = upstream != nil
                pairing.frameTimeout = EpochMillis(timeout * 1000)
                pairing.confirmationWait = confirmationWait
                pairing.names = names
                let header = SessionLog.Header(family: family, startedAt: SystemClock().now(), names: names, binaryCap: options.binaryCap, judge: pairing.json)
                return try await Watcher.run(options, judge: PairingWatch(options: pairing), header: header, stop: Self.interrupts())
            }
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// `MS` for every client, `SIDE=MS` for one side (a time-scaled phone beside a real
    /// desktop); the last given wins, as for any option.
    static func perSide(_ values: [String], option: String) throws -> (EpochMillis?, [String: EpochMillis]) {
        var all: EpochMillis?
        var sides: [String: EpochMillis] = [:]
        for value in values {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            guard let ms = parts.last.flatMap({ EpochMillis($0) }), ms > 0, parts.count == 1 || ["phone", "desktop"].contains(parts[0]) else {
                throw ValidationError("\(option) \(value) is not MS or SIDE=MS (phone or desktop)")
            }
            if parts.count == 1 { all = ms } else { sides[parts[0]] = ms }
        }
        return (all, sides)
    }

    /// Ctrl-C ends the watch and writes the report (a second one kills the process as usual).
    static func interrupts() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            continuation.yield()
            signal(SIGINT, SIG_DFL)
            source.cancel()
        }
        source.resume()
        return stream
    }

    /// The report, in `format`, to `output` or standard output; exit 1 on any violation, 2 when
    /// the upstream refused every connection (nothing was judged).
    static func write(_ result: WatchResult, format: Check.Format, output: String?, repository: Repository, judgedSomething: Bool = true) throws {
        switch format {
        case .text: try writeOutput(WatchReport.text(result, color: output == nil && isTerminal(.standardOutput)), to: output)
        case .json: try writeOutput(WatchReport.json(result), to: output)
        case .junit: try writeOutput(WatchReport.junit(result), to: output)
        case .html: try writeOutput(WatchReport.html(result, specBase: repository.root.appendingPathComponent("Spec").absoluteString + "/"), to: output)
        }
        if output != nil && format != .text {
            FileHandle.standardError.write(Data(WatchReport.text(result, color: isTerminal(.standardError)).utf8))
        }
        if !result.ok { throw ExitCode(Status.violations) }
        if !judgedSomething { throw InputError("the upstream refused every connection (\(result.unforwarded)): nothing was judged") }
    }
}
