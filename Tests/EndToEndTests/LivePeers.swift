import Foundation
import TestFixture
import Testing
import WebSocketTransport

/// What the live suites share: a scratch folder per test, reference peers and outsiders started
/// in it, their logs. Each live suite is serialized within itself (its peers are timed) and runs
/// beside the others: they share no port and no file.
protocol LivePeers {
    var scratch: URL { get }
}

extension LivePeers {
    /// A new scratch folder with the password files the peers are given.
    static func makeScratch() throws -> URL {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try Data("correct horse battery staple\n".utf8).write(to: scratch.appendingPathComponent("password"))
        try Data("conformance\n".utf8).write(to: scratch.appendingPathComponent("conformance-password"))
        return scratch
    }

    func file(_ name: String) -> URL { scratch.appendingPathComponent(name) }

    /// Starts a reference peer in the background; with `readyFile`, waits until it listens;
    /// with `output`, its stdout goes to that file.
    func start(_ arguments: [String], log: String, readyFile: URL? = nil, output: String? = nil) async throws -> Process {
        _ = FileManager.default.createFile(atPath: file(log).path, contents: nil)
        if let output { _ = FileManager.default.createFile(atPath: file(output).path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixture.executable("reference-peer"))
        process.arguments = arguments
        process.standardError = try FileHandle(forWritingTo: file(log))
        process.standardOutput = try output.map { try FileHandle(forWritingTo: file($0)) } ?? FileHandle.nullDevice
        try process.run()
        if let readyFile { _ = await Fixture.eventually(within: 20) { FileManager.default.fileExists(atPath: readyFile.path) } }
        return process
    }

    func log(_ name: String) -> String { (try? String(contentsOf: file(name), encoding: .utf8)) ?? "" }

    /// Starts a Python peer of Tests/Fixtures, its log in `log`.
    /// `withResults`: its standard output (a line per session) goes to the log too.
    func outsider(_ script: String, _ arguments: [String], log: String = "outsider.log", withResults: Bool = false) throws -> Process {
        _ = FileManager.default.createFile(atPath: file(log).path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixture.root.appendingPathComponent("Tests/Fixtures/" + script).path] + arguments
        let handle = try FileHandle(forWritingTo: file(log))
        // One handle, one file offset: the two streams interleave, neither overwrites the other.
        process.standardOutput = withResults ? handle : FileHandle.nullDevice
        process.standardError = handle
        try process.run()
        return process
    }

    /// The stand-in for the deployed ChainlessChain relay (Tests/Fixtures/third-party-relay) on a
    /// free port, and that port, read from the line it prints when it listens (at most 30 s).
    func thirdPartyRelay() async throws -> (Process, Int) {
        let ready = file("third-party-relay.out")
        _ = FileManager.default.createFile(atPath: ready.path, contents: nil)
        let node = Process()
        node.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        node.arguments = ["node", Fixture.root.appendingPathComponent("Tests/Fixtures/third-party-relay/relay.js").path, "--host", "127.0.0.1", "--port", "0"]
        node.standardOutput = try FileHandle(forWritingTo: ready)
        node.standardError = FileHandle.nullDevice
        try node.run()
        let port = await Fixture.first(within: 30, every: .milliseconds(25)) { () -> Int? in
            let line = (try? String(contentsOf: ready, encoding: .utf8)) ?? ""
            guard line.hasSuffix("\n") else { return nil }
            return line.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        guard let port else {
            node.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: ready.path, NSLocalizedDescriptionKey: "the third-party relay printed no port"])
        }
        return (node, port)
    }

    /// `reference-peer send --sessions 0` on a free port, chunks of 4 KiB unless told otherwise;
    /// its URL is in the file `url`.
    func startSender(chunkSize: String? = "4K") async throws -> Process {
        try await start(
            [
                "send", try senderStore(), "--listen", "127.0.0.1:0", "--ready-file", file("url").path, "--password-file", file("password").path,
                "--pin-file", file("pin").path, "--iterations", "1000", "--test-only", "--sessions", "0",
            ] + (chunkSize.map { ["--chunk-size", $0] } ?? []), log: "send.log", readyFile: file("url"))
    }

    func senderStore() async throws -> String {
        let made = try await Fixture.run("reference-peer", ["sample-store", file("old").path, "--media-size", "1M", "--seed", "5"])
        #expect(made.status == 0, "\(made.stderr)")
        return file("old").path
    }

    static func connect(_ url: String) async throws -> WebSocketConnection {
        if let c = await Fixture.first(within: 4, { try? await WebSocketClient.connect(to: url, maxFrameSize: 1 << 20) }) { return c }
        return try await WebSocketClient.connect(to: url, maxFrameSize: 1 << 20)
    }
}
