import ConformanceKit
import ConformanceLive
import Foundation
import Testing
import WebSocketTransport
import WireCore

/// The matrix binds a watched connection to the program whose process holds its socket (issue
/// 38.4): found through /proc from the connection's two ports, up the process's parents.
@Suite("A connection's owning process")
struct SocketOwnerTests {
    #if os(Linux)
    /// A child's connection is the child's, and its parent's (this test process), and nobody's
    /// once the ports name no open socket.
    @Test(.timeLimit(.minutes(1))) func aChildsConnectionIsFoundFromItsPorts() async throws {
        let listener = try await WebSocketListener.bind(host: "127.0.0.1", port: 0, maxFrameSize: 1 << 16)
        defer { Task { await listener.close() } }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        child.arguments = [
            "python3", "-c",
            // 100 connections before the one asked for: the socket table runs to many blocks
            // (Foundation's reader stopped after the first, and missed most sockets).
            "import socket, sys, time; others = [socket.create_connection(('127.0.0.1', \(listener.port))) for _ in range(100)]; "
                + "s = socket.create_connection(('127.0.0.1', \(listener.port))); print(s.getsockname()[1], flush=True); time.sleep(30)",
        ]
        let out = Pipe()
        child.standardOutput = out
        try child.run()
        defer { child.terminate() }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let clientPort = try #require(Int(line), "the child printed \(line)")
        let chain = SocketOwner.processes(clientPort: clientPort, serverPort: listener.port)
        #expect(chain.first == child.processIdentifier, "\(chain)")
        #expect(chain.contains(getpid()), "\(chain)")
        #expect(SocketOwner.label(in: "1 init\n\(getpid()) the kit's test\n", for: chain) == "the kit's test")
        #expect(SocketOwner.label(in: "\(child.processIdentifier) a phone\n\(getpid()) the kit's test\n", for: chain) == "a phone")
        // A line still being written is not read: its label may be cut short.
        #expect(SocketOwner.label(in: "\(child.processIdentifier) a pho", for: chain) == nil)
        #expect(SocketOwner.processes(clientPort: clientPort, serverPort: listener.port == 1 ? 2 : 1).isEmpty)
    }
    #endif

    /// The owner is a session log's event: a replay labels the connection as the live watch did.
    @Test func theOwnerIsKeptInTheSessionLog() throws {
        let event = WireEvent(at: 1_795_632_883_563, connection: 3, .owner("outsider-phone (phone)"))
        let line = SessionLog.line(event)
        #expect(line == #"{"t":1795632883563,"conn":3,"owner":"outsider-phone (phone)"}"#)
        #expect(try SessionLog.event(from: JSONParser.parse(Array(line.utf8))) == event)
    }
}
