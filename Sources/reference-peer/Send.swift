import ArgumentParser
import Foundation
import Migration
import MigrationPackage
import MigrationPeer
import WebSocketTransport
import WireCore

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be the old phone: listen, take the PIN the receiver shows, and send it a store.",
        discussion: """
            Listens on HOST:PORT (port 0 picks one; --ready-file tells which). The receiver shows a PIN; \
            type it here, or pass --pin-file to read it from a file once it appears (the file is removed \
            once read, so the next PIN can be written there). The store is packed when the PIN is \
            accepted. Exit 0 when the receiver verified the package (every session's, with --sessions), \
            1 otherwise.
            """)

    @Argument(help: "The store to send.") var store: String
    @Option(help: "Where to listen, HOST:PORT.") var listen: String
    @OptionGroup var password: PasswordOptions
    @Option(help: "Read the PIN from this file once it appears (default: ask).") var pinFile: String?
    @Option(help: "Write ws://HOST:PORT (wss:// with --cert) to this file once listening.") var readyFile: String?
    @OptionGroup var tls: TLSServerOptions
    @Option(help: "Chunk size in bytes (4096 ... 16777216).") var chunkSize: ByteSize = ByteSize(argument: "1M")!
    @Option(help: "Most chunks unacknowledged at once (1 ... 64; 1 is send-then-wait).") var window = 16
    @Option(help: "PBKDF2 iterations (at least 600000 unless --test-only).") var iterations: UInt32 = EnvelopePolicy.defaultIterations
    @Flag(help: "Allow fewer than 600000 iterations (for tests only).") var testOnly = false
    @Flag(help: ArgumentHelp(
        "Write no package: seal each chunk from the store when it is sent (one pass over the store first). A file that changes during the transfer cancels it (store-changed)."))
    var streaming = false
    @Option(help: "Seconds to wait for a disconnected receiver to come back.") var reconnectTimeout = 120
    @Option(help: "Serve this many migrations one after another on the same address (0: until stopped); for conformance runs.")
    var sessions = 1
    @Option(help: ArgumentHelp("Close a connection that sends no Handshake within this many ms (tests only; the Spec's 10000).", visibility: .hidden))
    var handshakeTimeoutMs: Int64 = 10_000
    @Option(help: ArgumentHelp(
        "Misbehave on purpose: FAULT=FRAMES, e.g. corruptChunks=3 or dropChunks=2,5 (\(ChunkFaults.names.joined(separator: ", ")); frames counted from 1; repeatable), or wrongDigest.",
        visibility: .hidden))
    var fault: [String] = []
    @Option(help: ArgumentHelp("Send a chunk again when its ack is this many ms late (tests only; the Spec's 15000).", visibility: .hidden))
    var ackTimeoutMs: Int64 = 15_000

    func run() async throws {
        MemoryPolicy.returnLargeBlocks()
        guard testOnly || iterations >= EnvelopePolicy.standard.iterations.lowerBound else {
            throw ValidationError("fewer than 600000 iterations needs --test-only")
        }
        guard ControlMessage.chunkSizes.contains(Int(chunkSize.bytes)) else { throw ValidationError("--chunk-size must be 4096 ... 16777216") }
        guard (1...ControlMessage.maxWindow).contains(window) else { throw ValidationError("--window must be 1 ... 64") }
        let (host, port) = try HostPort.parse(listen)
        let secret = try password.password(confirm: pinFile == nil && password.passwordFile == nil)
        let console = Console("send")
        let identity = try tls.identity()
        let listener = try await WebSocketListener.bind(host: host, port: port, maxFrameSize: 1 << 16, tls: identity)
        let url = "\(identity == nil ? "ws" : "wss")://\(host.contains(":") ? "[\(host)]" : host):\(listener.port)"
        console.say("send: listening on \(url)")
        if let readyFile { try Data(url.utf8).write(to: URL(fileURLWithPath: readyFile), options: .atomic) }

        var options = SenderPeer.Options()
        options.configuration.chunkSize = Int(chunkSize.bytes)
        options.configuration.maxWindow = window
        options.configuration.reconnectTimeout = Int64(reconnectTimeout) * 1000
        options.configuration.handshakeTimeout = handshakeTimeoutMs
        options.configuration.ackTimeout = ackTimeoutMs
        for item in fault {
            if options.faults.set(item) { continue }
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            let frames = Set((parts.count == 2 ? parts[1] : "").split(separator: ",").compactMap { Int($0) })
            guard parts.count == 2, !frames.isEmpty, options.faults.set(parts[0], frames) else {
                throw ValidationError("--fault \(item): expected NAME=FRAMES with NAME one of \(ChunkFaults.names.joined(separator: ", ")), or \(ChunkFaults.flagNames.joined(separator: ", "))")
            }
        }
        let store = DeviceStore(URL(fileURLWithPath: self.store))
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reference-peer-send-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let packOptions = { var o = Packer.Options(); o.iterations = iterations; return o }()
        let chunk = Int(chunkSize.bytes)
        let pinFile = self.pinFile
        let streaming = self.streaming

        let hooks = SenderPeer.Hooks(
            enterPIN: { left in
                if let pinFile { return try await PINFile.read(URL(fileURLWithPath: pinFile)) }
                let prompt = left < PINLockout.attemptsPerSession ? "Wrong PIN; \(left) attempts left. PIN: " : "PIN shown on the new phone: "
                guard let line = await Console.readLine(prompt: prompt) else { throw TransferFailure("no PIN entered") }
                return line.trimmingCharacters(in: .whitespaces)
            },
            prepare: {
                var random = GeneratorBytes(SystemRandomNumberGenerator())
                if streaming {
                    let package = try StreamedPackage.prepare(store, password: secret, options: packOptions, now: SystemClock().now() / 1000, random: &random)
                    return PreparedPackage(streamed: package, chunkSize: chunk, schemaVersion: packOptions.schemaVersion, appVersion: packOptions.appVersion)
                }
                let file = scratch.appendingPathComponent("package.enc")
                let result = try Packer.pack(store, to: file, password: secret, options: packOptions, now: SystemClock().now() / 1000, random: &random)
                return try PreparedPackage(
                    file: file, backupId: result.backupId, zipSize: result.zipSize, chunkSize: chunk,
                    schemaVersion: packOptions.schemaVersion, appVersion: packOptions.appVersion)
            },
            report: console.report)
        var failed = 0
        var session = 1
        while true {
            let state = try await SenderPeer.run(on: listener, options: options, hooks: hooks)
            if state.phase == .done {
                console.say("send: done, the receiver verified the package")
            } else if case .failed(.cancelled(.wrongPassword), _) = state {
                console.say("send: the receiver's password does not open the package (wrong-password); no chunk was sent")
                failed += 1
            } else {
                let reason = if case .failed(let why, _) = state { " (\(why.wireName))" } else { "" }
                console.say("send: ended \(state.phase.rawValue)\(reason)")
                failed += 1
            }
            guard sessions == 0 || session < sessions else { break }
            session += 1
        }
        if failed > 0 { throw ExitCode(1) }
    }
}

/// `HOST:PORT`, with `[v6]:PORT` for IPv6.
enum HostPort {
    static func parse(_ text: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("\(text) is not HOST:PORT")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("\(text) has no host") }
        return (host, port)
    }
}
