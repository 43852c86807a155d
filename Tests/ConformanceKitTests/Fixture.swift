import ConformanceKit
import Foundation
import WireCore

/// The checkout under test: its vectors, catalog and built executables.
enum Fixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let repository = Repository(root: root)
    /// Load problems fail `RuleCoverageTests.vectorsAndCatalogLoad`; other tests then see no cases.
    static let loadedCases = Result { try VectorLoader.load(root: repository.vectors) }
    static let loadedCatalog = Result { try Catalog.load(repository.catalogFile) }
    static var cases: [VectorCase] { (try? loadedCases.get()) ?? [] }
    static var catalog: Catalog { (try? loadedCatalog.get()) ?? Catalog(rules: []) }

    /// A product built beside the test bundle (`swift test` builds every product).
    static func executable(_ name: String) -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
            root.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent(name).path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }

    /// Waits for a process, killing it after `limit` seconds so a hung peer fails its test
    /// instead of stalling the whole run.
    static func wait(_ process: Process, limit: Double = 300) {
        let watchdog = watchdog(process, limit: limit)
        process.waitUntilExit()
        watchdog.cancel()
    }

    /// Kills the process after `limit` seconds unless the returned item is cancelled first.
    static func watchdog(_ process: Process, limit: Double) -> DispatchWorkItem {
        let pid = process.processIdentifier
        let item = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: item)
        return item
    }

    /// Runs a product with arguments and optional standard input; returns status and output.
    /// A process still running after `limit` seconds is killed (status 9 by signal).
    static func run(_ name: String, _ arguments: [String], stdin: [UInt8]? = nil, limit: Double = 300) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable(name))
        process.arguments = arguments
        process.currentDirectoryURL = root
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
        try input.fileHandleForWriting.close()
        let watchdog = watchdog(process, limit: limit)
        defer { watchdog.cancel() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// Waits for a process without blocking a thread of the concurrency pool, killing it after
    /// `limit` seconds so a hung peer fails its test instead of stalling the run.
    /// Replaces the process's `terminationHandler`.
    static func exit(of process: Process, limit: Double = 300) async {
        let watchdog = watchdog(process, limit: limit)
        defer { watchdog.cancel() }
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        // Gone before the handler was set: nobody will call it.
        if !process.isRunning { exited.continuation.finish() }
        for await _ in exited.stream {}
        process.waitUntilExit()
    }

    /// Waits until `file` exists, at most `limit` seconds (then throws), without blocking a thread of the pool.
    static func appears(_ file: URL, limit: Double = 15) async throws {
        guard await eventually(within: limit, { FileManager.default.fileExists(atPath: file.path) }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: file.path])
        }
    }

    /// `run` for async tests: waits without blocking a thread of the concurrency pool, which an
    /// in-process server the product talks to (a proxy, a listener) needs to keep serving.
    static func runAsync(_ name: String, _ arguments: [String], limit: Double = 300) async throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (outFile, errFile) = (folder.appendingPathComponent("out"), folder.appendingPathComponent("err"))
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable(name))
        process.arguments = arguments
        process.currentDirectoryURL = root
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()
        let watchdog = watchdog(process, limit: limit)
        defer { watchdog.cancel() }
        for await _ in exited.stream {}
        process.waitUntilExit()
        let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        return (process.terminationStatus, read(outFile), read(errFile))
    }
}
