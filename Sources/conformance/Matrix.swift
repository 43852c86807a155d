import ArgumentParser
import ConformanceKit
import Foundation
import WireCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `conformance matrix FILE`: every implementation in every role it plays, each cell one
/// `conformance run` with the implementation's peer started by the kit, and the matrix of
/// their results (Conformance/matrix.md).
struct Matrix: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run every implementation of a matrix file in every role it plays and write the matrix (text, JSON, HTML).",
        discussion: """
            Each cell is one `conformance run` in the role, with the implementation's peer started from the file's command \
            and stopped after. Writes OUT/matrix.json, OUT/matrix.html and, per cell, OUT/cells/NAME--ROLE.{json,html,log}. \
            Exits 0 when every cell passed, 1 otherwise, 2 on a usage error. Pairs of implementations (through `watch`) \
            are not played.
            """)

    @OptionGroup var repo: RepositoryOption
    @Argument(help: "The matrix file (Conformance/matrix.md).") var file: String
    @Option(help: "The folder the matrix and each cell's reports go to.") var out = "conformance-matrix"
    @Option(name: .customLong("case"), help: "Only cases whose id matches this glob, in every cell (repeatable).") var caseGlobs: [String] = []
    @Option(help: "Seconds a cell may take before its run is stopped.") var cellTimeout: Double = 900

    func run() async throws {
        let repository = try repo.locate()
        guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
        let matrix: MatrixFile
        do throws(Violation) {
            matrix = try MatrixFile.parse([UInt8](data))
        } catch {
            throw ValidationError("\(file): \(error.description)")
        }
        guard cellTimeout > 0 else { throw ValidationError("--cell-timeout must be more than 0 seconds") }
        let cases = try repository.cases()
        let vectors = Dictionary(cases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let folder = URL(fileURLWithPath: out)
        let cellsFolder = folder.appendingPathComponent("cells")
        do {
            try FileManager.default.createDirectory(at: cellsFolder, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("cannot create \(cellsFolder.path): \(error)")
        }
        let specBase = repository.root.appendingPathComponent("Spec").absoluteString + "/"
        var cells: [MatrixReport.Cell] = []
        for implementation in matrix.implementations {
            for entry in implementation.entries {
                let stem = "\(implementation.name)--\(entry.role.rawValue)"
                let base = cellsFolder.appendingPathComponent(stem)
                var files: [String: String] = [:]
                for key in ["handoff", "qr", "scan", "pin", "dir"] {
                    let path = base.path + "." + key
                    try? FileManager.default.removeItem(atPath: path)
                    files[key] = path
                }
                let cell = MatrixCell(implementation.name, entry, port: try Self.freePort(), files: files)
                FileHandle.standardError.write(Data("matrix: \(implementation.name) as \(entry.role.rawValue)\n".utf8))
                let (report, error) = await play(cell, base: base, vectors: vectors, specBase: specBase)
                cells.append(MatrixReport.Cell(implementation: implementation.name, role: entry.role, report: report, error: error, stem: "cells/" + stem))
            }
        }
        let result = MatrixReport(implementations: matrix.implementations.map(\.name), cells: cells)
        try writeOutput(result.json(), to: folder.appendingPathComponent("matrix.json").path)
        try writeOutput(result.html(), to: folder.appendingPathComponent("matrix.html").path)
        print(result.text(), terminator: "")
        if !result.ok { throw ExitCode(Status.violations) }
    }

    /// Starts the peer, runs the runner, stops the peer; the run's report, or why there is none.
    func play(_ cell: MatrixCell, base: URL, vectors: [String: VectorCase], specBase: String) async -> (RunReport?, String?) {
        let json = base.path + ".json"
        try? FileManager.default.removeItem(atPath: json)
        var peer: Process?
        if let command = cell.peerCommand {
            do {
                peer = try Self.start(["/bin/sh", "-c", "exec " + command], log: base.path + ".log")
            } catch {
                return (nil, "the peer did not start: \(error)")
            }
        }
        defer { if let peer { Self.stop(peer) } }
        if cell.peerListens, let port = cell.runnerArguments.first(where: { $0.hasPrefix("ws://127.0.0.1:") }).flatMap({ Int($0.split(separator: ":").last ?? "") }) {
            let deadline = Date().addingTimeInterval(20)
            while !Self.accepts(port) {
                if let peer, !peer.isRunning { return (nil, "the peer exited (\(peer.terminationStatus)) before it listened; see \(base.lastPathComponent).log") }
                if Date() > deadline { return (nil, "the peer did not listen on port \(port) within 20 s; see \(base.lastPathComponent).log") }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        let arguments = cell.runnerArguments + ["--repo", repo.path ?? FileManager.default.currentDirectoryPath] + caseGlobs.flatMap { ["--case", $0] }
            + ["--format", "json", "--output", json]
        let status: Int32
        do {
            let runner = try Self.start([Self.executable] + arguments, log: base.path + ".runner.log")
            let deadline = Date().addingTimeInterval(cellTimeout)
            while runner.isRunning {
                if Date() > deadline {
                    Self.stop(runner)
                    return (nil, "the run did not end within \(Int(cellTimeout)) s")
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
            status = runner.terminationStatus
        } catch {
            return (nil, "the runner did not start: \(error)")
        }
        guard status == 0 || status == 1, let data = FileManager.default.contents(atPath: json) else {
            let said = (try? String(contentsOfFile: base.path + ".runner.log", encoding: .utf8))?.split(separator: "\n").last.map(String.init) ?? ""
            return (nil, "the run exited \(status): \(said)")
        }
        do {
            let report = try ReportReader.read([UInt8](data), name: json, vectors: vectors)
            try writeOutput(HTMLReport.render(report, specBase: specBase), to: base.path + ".html")
            return (report, nil)
        } catch {
            return (nil, "\(error)")
        }
    }

    /// This program, to run each cell's `conformance run`.
    static var executable: String {
        #if os(Linux)
            if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    static func start(_ arguments: [String], log: String) throws -> Process {
        guard FileManager.default.createFile(atPath: log, contents: nil) else { throw ValidationError("cannot write \(log)") }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// SIGTERM, then SIGKILL after 2 s.
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// A port no one listens on now, from the kernel.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ValidationError("cannot open a socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ValidationError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:port.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
