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

    /// Starts a Python peer of Tests/Fixtures, its log in outsider.log.
    func outsider(_ script: String, _ arguments: [String]) throws -> Process {
        _ = FileManager.default.createFile(atPath: file("outsider.log").path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixture.root.appendingPathComponent("Tests/Fixtures/" + script).path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: file("outsider.log"))
        try process.run()
        return process
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
