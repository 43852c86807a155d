import ConformanceKit
import Foundation
import WireCore

/// The checkout under test: its vectors, catalog and built executables.
package enum Fixture {
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    package static let repository = Repository(root: root)
    /// Load problems fail `RuleCoverageTests.vectorsAndCatalogLoad`; other tests then see no cases.
    package static let loadedCases = Result { try VectorLoader.load(root: repository.vectors) }
    package static let loadedCatalog = Result { try Catalog.load(repository.catalogFile) }
    package static var cases: [VectorCase] { (try? loadedCases.get()) ?? [] }
    package static var catalog: Catalog { (try? loadedCatalog.get()) ?? Catalog(rules: []) }

    /// A product built beside the test bundle (`swift test` builds every product).
    package static func executable(_ name: String) -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
            root.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent(name).path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }

    /// `command` run under Tests/Fixtures/peak.py, which writes its peak resident memory in KiB to
    /// `peak`: the child's own rusage would carry the test process's memory (peak.py says why).
    package static func measuringPeak(_ command: [String], into peak: URL) -> [String] {
        ["python3", root.appendingPathComponent("Tests/Fixtures/peak.py").path, peak.path, "--"] + command
    }

    /// The peak written by a `measuringPeak` command that has exited.
    package static func peakKiB(_ peak: URL) throws -> Int {
        let text = try String(contentsOf: peak, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let kib = Int(text) else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: peak.path]) }
        return kib
    }

    /// Kills the process after `limit` seconds unless the returned item is cancelled first.
    package static func watchdog(_ process: Process, limit: Double) -> DispatchWorkItem {
        let pid = process.processIdentifier
        let item = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: item)
        return item
    }

    /// Waits for a process without blocking a thread of the concurrency pool, killing it after
    /// `limit` seconds so a hung peer fails its test instead of stalling the run.
    /// Replaces the process's `terminationHandler`.
    package static func exit(of process: Process, limit: Double = 300) async {
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
    package static func appears(_ file: URL, limit: Double = 15) async throws {
        guard await eventually(within: limit, { FileManager.default.fileExists(atPath: file.path) }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: file.path])
        }
    }

    /// Runs a product with arguments and optional standard input; returns status and output.
    /// Waits without blocking a thread of the concurrency pool (two on this machine: a test that
    /// blocked one stalled every other test's in-process servers). A process still running after
    /// `limit` seconds is killed (status 9 by signal).
    package static func run(
        _ name: String, _ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String]? = nil, limit: Double = 300
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await execute(URL(fileURLWithPath: executable(name)), arguments, stdin: stdin, environment: environment, limit: limit)
    }

    /// `run` for any program (python3, git, a shell, a browser), in `directory` (the checkout
    /// unless told) with `environment` (this process's unless told).
    package static func execute(
        _ program: URL, _ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String]? = nil, directory: URL? = nil, limit: Double = 300
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (outFile, errFile) = (folder.appendingPathComponent("out"), folder.appendingPathComponent("err"))
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? root
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        if let stdin {
            let inFile = folder.appendingPathComponent("in")
            try Data(stdin).write(to: inFile)
            process.standardInput = try FileHandle(forReadingFrom: inFile)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
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
