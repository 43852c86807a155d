import ArgumentParser
import Foundation
import Pairing
import PairingPeer
import WebSocketTransport
import WireCore

struct Relay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be the pairing signaling relay: route register/message between peers until stopped (Spec pairing.md §5).")

    @Option(help: "Where to listen, HOST:PORT.") var listen: String
    @Option(help: "Write ws://HOST:PORT (wss:// with --cert) to this file once listening.") var readyFile: String?
    @Flag(help: "Log every connection and every refusal to stderr.") var verbose = false
    @OptionGroup var tls: TLSServerOptions
    @Option(
        help: """
            Alias lifetime and guess window in milliseconds (default 300000, the Spec's). Shorter windows are for \
            testing only: `conformance run --role relay --relay-window-ms N` then plays the time-based cases quickly.
            """)
    var windowMs: Int64 = 300_000
    @Option(help: ArgumentHelp("Misbehave on purpose: copy-from (deliveries carry the client's from).", visibility: .hidden))
    var fault: [String] = []

    func run() async throws {
        guard windowMs >= 100 else { throw ValidationError("--window-ms must be at least 100") }
        let (host, port) = try HostPort.parse(listen)
        let identity = try tls.identity()
        let listener = try await WebSocketListener.bind(host: host, port: port, maxFrameSize: RelayServer.maxFrameSize, tls: identity)
        let url = "\(identity == nil ? "ws" : "wss")://\(host.contains(":") ? "[\(host)]" : host):\(listener.port)"
        FileHandle.standardError.write(Data("relay: listening on \(url)\n".utf8))
        if let readyFile { try Data(url.utf8).write(to: URL(fileURLWithPath: readyFile), options: .atomic) }
        let verbose = self.verbose
        let clock = SystemClock()
        var policy = SignalingRelay.Policy()
        policy.aliasLifetime = windowMs
        policy.guessWindow = windowMs
        if windowMs != 300_000 { FileHandle.standardError.write(Data("relay: alias lifetime and guess window \(windowMs) ms (testing only)\n".utf8)) }
        guard fault.allSatisfy({ $0 == "copy-from" }) else { throw ValidationError("--fault: copy-from is the relay's one fault") }
        let server = RelayServer(
            policy: policy, clock: { clock.now() }, log: { line in if verbose { FileHandle.standardError.write(Data("relay: \(line.terminalSafe)\n".utf8)) } },
            copiesClientFrom: fault.contains("copy-from"))
        try await server.serve(listener)
    }
}
