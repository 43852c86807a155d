import ArgumentParser
import Foundation
import MigrationPeer
import PairingPeer
import WebSocketTransport

struct Relay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be the pairing signaling relay: route register/message between peers until stopped (Spec pairing.md §5).")

    @Option(help: "Where to listen, HOST:PORT.") var listen: String
    @Option(help: "Write ws://HOST:PORT to this file once listening.") var readyFile: String?
    @Flag(help: "Log every connection and every refusal to stderr.") var verbose = false

    func run() async throws {
        let (host, port) = try HostPort.parse(listen)
        let listener = try await WebSocketListener.bind(host: host, port: port, maxFrameSize: RelayServer.maxFrameSize)
        let url = "ws://\(host.contains(":") ? "[\(host)]" : host):\(listener.port)"
        FileHandle.standardError.write(Data("relay: listening on \(url)\n".utf8))
        if let readyFile { try Data(url.utf8).write(to: URL(fileURLWithPath: readyFile), options: .atomic) }
        let verbose = self.verbose
        let clock = SystemClock()
        let server = RelayServer(clock: { clock.now() }, log: { line in if verbose { FileHandle.standardError.write(Data("relay: \(line)\n".utf8)) } })
        try await server.serve(listener)
    }
}
