import ArgumentParser
import ConformanceKit
import Foundation
import WebSocketTransport
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
            Every phone is then paired with every desktop, and every sender migrates to every receiver, through \
            `conformance watch` (OUT/pairs/PHONE--DESKTOP.*, OUT/transfers/SENDER--RECEIVER.*). \
            Exits 0 when every cell, pair and transfer passed, 1 otherwise, 2 on a usage error.
            """)

    @OptionGroup var repo: RepositoryOption
    @Argument(help: "The matrix file (Conformance/matrix.md).") var file: String
    @Option(help: "The folder the matrix and each cell's reports go to.") var out = "conformance-matrix"
    @Option(name: .customLong("case"), help: "Only cases whose id matches this glob, in every cell (repeatable).") var caseGlobs: [String] = []
    @Option(help: "Seconds a cell may take before its run is stopped.") var cellTimeout: Double = 900
    @Option(help: "Seconds the watch judges a phone-desktop pair from the scan of the desktop's QR: the pairing and what the peers send after it (the WebRTC exchange).")
    var pairSeconds: Int = 20
    @Flag(inversion: .prefixedNo, help: "Also pair every phone with every desktop through every relay implementation (the watch forwarding to it).")
    var throughRelays = true
    @Option(help: ArgumentHelp("The ports the matrix may listen on, FROM-TO (a CI runner's share); default any free one.", valueName: "from-to"))
    var ports: String?

    /// A port to listen on: from `--ports` when given.
    func port() throws -> Int {
        guard let ports else { return try LoopbackPort.free() }
        return try LoopbackPort.free(in: try Self.range(ports))
    }

    static func range(_ text: String) throws -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = Int(parts[0]), let to = Int(parts[1]), 1024 <= from, from <= to, to <= 65535 else {
            throw ValidationError("--ports \(text) is not FROM-TO within 1024-65535")
        }
        return from...to
    }

    func run() async throws {
        if let ports { _ = try Self.range(ports) }
        let repository = try repo.locate()
        guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
        let matrix: MatrixFile
        do throws(Violation) {
            matrix = try MatrixFile.parse([UInt8](data))
        } catch {
            throw ValidationError("\(file): \(error.description)")
        }
        guard cellTimeout > 0 else { throw ValidationError("--cell-timeout must be more than 0 seconds") }
        guard (1...3600).contains(pairSeconds) else { throw ValidationError("--pair-seconds must be 1 to 3600") }
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
        let cells = try await playCells(matrix, in: cellsFolder, vectors: vectors, specBase: specBase)
        let pairs = await playPairs(matrix, in: folder)
        let result = MatrixReport(implementations: matrix.implementations.map(\.name), cells: cells, pairs: pairs)
        try writeOutput(result.json(), to: folder.appendingPathComponent("matrix.json").path)
        try writeOutput(result.html(), to: folder.appendingPathComponent("matrix.html").path)
        print(result.text(), terminator: "")
        if !result.ok { throw ExitCode(Status.violations) }
    }

    /// Each implementation in each of its roles, against the runner.
    func playCells(_ matrix: MatrixFile, in cellsFolder: URL, vectors: [String: VectorCase], specBase: String) async throws -> [MatrixReport.Cell] {
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
                let cell = MatrixCell(implementation.name, entry, port: try port(), files: files)
                FileHandle.standardError.write(Data("matrix: \(implementation.name) as \(entry.role.rawValue)\n".utf8))
                let (report, error) = await play(cell, base: base, vectors: vectors, specBase: specBase)
                cells.append(MatrixReport.Cell(implementation: implementation.name, role: entry.role, report: report, error: error, stem: "cells/" + stem))
            }
        }
        return cells
    }

    /// Every phone with every desktop (directly, then through every relay) and every sender with
    /// every receiver, each pair through the watch.
    func playPairs(_ matrix: MatrixFile, in folder: URL) async -> [MatrixReport.Pair] {
        // Every phone with every desktop, through the watch.
        var pairs: [MatrixReport.Pair] = []
        let pairsFolder = folder.appendingPathComponent("pairs")
        let phones = matrix.playing(.phone)
        let desktops = matrix.playing(.desktop)
        if !phones.isEmpty && !desktops.isEmpty {
            try? FileManager.default.createDirectory(at: pairsFolder, withIntermediateDirectories: true)
        }
        for phone in phones {
            for desktop in desktops {
                FileHandle.standardError.write(Data("matrix: \(phone.0) phone with \(desktop.0) desktop\n".utf8))
                let stem = "\(phone.0)--\(desktop.0)"
                pairs.append(await playPair(phone: phone, desktop: desktop, base: pairsFolder.appendingPathComponent(stem), stem: "pairs/" + stem))
            }
        }
        // Every phone with every desktop through every relay implementation: the watch forwards
        // to the relay and judges it too.
        let relays = matrix.playing(.relay)
        let relayedFolder = folder.appendingPathComponent("relayed")
        if throughRelays && !relays.isEmpty && !phones.isEmpty && !desktops.isEmpty {
            try? FileManager.default.createDirectory(at: relayedFolder, withIntermediateDirectories: true)
            for relay in relays {
                for phone in phones {
                    for desktop in desktops {
                        FileHandle.standardError.write(Data("matrix: \(phone.0) phone with \(desktop.0) desktop through \(relay.0) relay\n".utf8))
                        let stem = "\(relay.0)--\(phone.0)--\(desktop.0)"
                        pairs.append(
                            await playPair(
                                phone: phone, desktop: desktop, through: relay, base: relayedFolder.appendingPathComponent(stem), stem: "relayed/" + stem))
                    }
                }
            }
        }
        // Every sender to every receiver, through the watch.
        let transfersFolder = folder.appendingPathComponent("transfers")
        let senders = matrix.playing(.sender)
        let receivers = matrix.playing(.receiver)
        if !senders.isEmpty && !receivers.isEmpty {
            try? FileManager.default.createDirectory(at: transfersFolder, withIntermediateDirectories: true)
        }
        for sender in senders {
            for receiver in receivers {
                FileHandle.standardError.write(Data("matrix: \(sender.0) sender to \(receiver.0) receiver\n".utf8))
                let stem = "\(sender.0)--\(receiver.0)"
                pairs.append(
                    await playTransfer(sender: sender, receiver: receiver, base: transfersFolder.appendingPathComponent(stem), stem: "transfers/" + stem))
            }
        }
        return pairs
    }

    /// The checkout the matrix runs from, passed to every run and watch it starts.
    var repositoryRoot: String { (try? repo.locate().root.path) ?? FileManager.default.currentDirectoryPath }

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
        // `--case=GLOB`: a glob beginning with `-` stays the option's value in the child run.
        let arguments = cell.runnerArguments + ["--repo", repositoryRoot] + caseGlobs.map { "--case=\($0)" }
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

    /// A phone and a desktop paired through `conformance watch`: the kit starts the watch for
    /// `--pair-seconds`, then the desktop and the phone with `{url}` the watch's, and carries the
    /// desktop's QR text to the phone (`{qr}` of the desktop to `{handoff}` of the phone, as a
    /// camera would); the watch judges both sides, the pairing and what follows it.
    func playPair(
        phone: (String, MatrixFile.Entry), desktop: (String, MatrixFile.Entry), through relay: (String, MatrixFile.Entry)? = nil, base: URL, stem: String
    ) async -> MatrixReport.Pair {
        func path(_ suffix: String) -> String {
            let p = base.path + "." + suffix
            try? FileManager.default.removeItem(atPath: p)
            return p
        }
        // Stale files of an earlier matrix in the same folder go first (the HTML is written last).
        let (ready, json, log, owners) = (path("url"), path("json"), path("jsonl"), path("owners"))
        _ = path("html")
        var peers: [Process] = []
        defer { peers.reversed().forEach(Self.stop) }
        do {
            var upstream: [String] = []
            if let relay {
                let (process, arguments) = try await startUpstream(relay, base: base, path: path)
                peers.append(process)
                upstream = arguments
            }
            // With --ports the watch listens in the range too; else on any port (--ready-file says).
            let watchPort: Int
            do {
                watchPort = ports == nil ? 0 : try self.port()
            } catch {
                throw PairFailed("the watch has no port: \(error)")
            }
            let watchArguments =
                ["watch", "--family", "pairing", "--listen", "127.0.0.1:\(watchPort)", "--ready-file", ready, "--log", log]
                + ["--format", "json", "--output", json, "--repo", repositoryRoot, "--owners", owners] + phone.1.watch + desktop.1.watch + upstream
            let watch = try Self.started("the watch") { try Self.start([Self.executable] + watchArguments, log: base.path + ".watch.log") }
            defer { Self.stop(watch) }
            let url = try await Self.appears(ready, within: 20, while: watch, else: "the watch did not listen; see \(base.lastPathComponent).watch.log")
            let (desktopQR, handoff) = (path("desktop-qr"), path("handoff"))
            let desktopFiles = ["qr": desktopQR, "scan": path("scan"), "pin": path("desktop-pin"), "handoff": path("desktop-handoff"), "dir": path("desktop-dir")]
            let phoneFiles = ["handoff": handoff, "qr": path("phone-qr"), "scan": path("phone-scan"), "pin": path("phone-pin"), "dir": path("phone-dir")]
            peers.append(
                try Self.started("the desktop") {
                    try Self.start(["/bin/sh", "-c", "exec " + MatrixCell.command(desktop.1, url: url, files: desktopFiles)], log: base.path + ".desktop.log")
                })
            try Self.own(peers[peers.count - 1], as: "\(desktop.0) (desktop)", in: owners)
            peers.append(
                try Self.started("the phone") {
                    try Self.start(["/bin/sh", "-c", "exec " + MatrixCell.command(phone.1, url: url, files: phoneFiles)], log: base.path + ".phone.log")
                })
            try Self.own(peers[peers.count - 1], as: "\(phone.0) (phone)", in: owners)
            // The camera: the desktop's QR, once it shows one, is what the phone scans.
            _ = try await Self.appears(desktopQR, within: 30, while: nil, else: "the desktop showed no QR within 30 s; see \(base.lastPathComponent).desktop.log")
            do {
                // Carried as the desktop wrote it, byte for byte.
                try FileManager.default.contents(atPath: desktopQR)?.write(to: URL(fileURLWithPath: handoff), options: .atomic)
            } catch {
                throw PairFailed("cannot hand the QR to the phone: \(error)")
            }
            // The pair's time counts from the scan, not from the watch's start: peers slow to start
            // (a loaded machine, a JVM) get all of it. Then the watch is interrupted: it still writes
            // its report of what it saw.
            await Self.awaitExit(watch, within: Double(pairSeconds), then: SIGINT)
            var pair = await judged(.pairing, phone.0, desktop.0, watch: watch, base: base, stem: stem, completed: "paired")
            pair.relay = relay?.0
            return pair
        } catch {
            let why = (error as? PairFailed)?.why ?? "\(error)"
            return MatrixReport.Pair(kind: .pairing, first: phone.0, second: desktop.0, relay: relay?.0, ok: false, summary: "error: \(why)", stem: stem)
        }
    }

    /// Why a pair could not be played.
    struct PairFailed: Error {
        let why: String
        init(_ why: String) { self.why = why }
    }

    /// The relay implementation on a port of its own, once it listens; the watch's arguments to
    /// forward to it.
    func startUpstream(_ relay: (String, MatrixFile.Entry), base: URL, path: (String) -> String) async throws -> (Process, [String]) {
        let port = try self.port()
        let files = ["dir": path("relay-dir"), "pin": path("relay-pin"), "handoff": path("relay-handoff"), "qr": path("relay-qr"), "scan": path("relay-scan")]
        let process = try Self.started("the relay") {
            try Self.start(["/bin/sh", "-c", "exec " + MatrixCell.command(relay.1, url: "ws://127.0.0.1:\(port)", files: files)], log: base.path + ".relay.log")
        }
        let listening = Date().addingTimeInterval(20)
        while !Self.accepts(port) {
            if !process.isRunning || Date() > listening {
                Self.stop(process)
                throw PairFailed("the relay did not listen; see \(base.lastPathComponent).relay.log")
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return (process, ["--upstream", "ws://127.0.0.1:\(port)"] + relay.1.watch)
    }

    /// The process `start` starts, or why `what` did not start.
    static func started(_ what: String, _ start: () throws -> Process) throws -> Process {
        do {
            return try start()
        } catch {
            throw PairFailed("\(what) did not start: \(error)")
        }
    }

    /// The text of `file` once it is there and not empty, trimmed; `failure` after `seconds`, or
    /// as soon as `process` (when given) has exited.
    static func appears(_ file: String, within seconds: Double, while process: Process?, else failure: String) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let text = (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if !text.isEmpty { return text }
            if process?.isRunning == false || Date() > deadline { throw PairFailed(failure) }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A sender and a receiver through `conformance watch --family migration`: the kit starts the
    /// sender on `{port}`, the watch in front of it, then the receiver with `{url}` the watch's;
    /// both get the same `{pin}` file (the receiver writes the PIN it shows there, the sender
    /// reads it, as its user would). One session, at most `--cell-timeout`.
    func playTransfer(sender: (String, MatrixFile.Entry), receiver: (String, MatrixFile.Entry), base: URL, stem: String) async -> MatrixReport.Pair {
        func failed(_ why: String) -> MatrixReport.Pair {
            MatrixReport.Pair(kind: .migration, first: sender.0, second: receiver.0, ok: false, summary: "error: \(why)", stem: stem)
        }
        func path(_ suffix: String) -> String {
            let p = base.path + "." + suffix
            try? FileManager.default.removeItem(atPath: p)
            return p
        }
        let (ready, json, log, pin, owners) = (path("url"), path("json"), path("jsonl"), path("pin"), path("owners"))
        _ = path("html")
        var processes: [Process] = []
        defer { processes.reversed().forEach(Self.stop) }
        let port: Int
        do {
            port = try self.port()
            let files = ["pin": pin, "dir": path("sender-dir"), "handoff": path("sender-handoff"), "qr": path("sender-qr"), "scan": path("sender-scan")]
            processes.append(
                try Self.start(["/bin/sh", "-c", "exec " + MatrixCell.command(sender.1, url: "ws://127.0.0.1:\(port)", files: files)], log: base.path + ".sender.log"))
        } catch {
            return failed("the sender did not start: \(error)")
        }
        let listening = Date().addingTimeInterval(20)
        while !Self.accepts(port) {
            if !processes[0].isRunning || Date() > listening { return failed("the sender did not listen; see \(base.lastPathComponent).sender.log") }
            try? await Task.sleep(for: .milliseconds(50))
        }
        // With --ports the watch listens in the range too; else on any port (--ready-file says).
        let watchPort: Int
        do {
            watchPort = ports == nil ? 0 : try self.port()
        } catch {
            return failed("the watch has no port: \(error)")
        }
        let watchArguments =
            ["watch", "--family", "migration", "--listen", "127.0.0.1:\(watchPort)", "--upstream", "ws://127.0.0.1:\(port)", "--ready-file", ready, "--log", log]
            + ["--sessions", "1", "--duration", "\(Int(cellTimeout))", "--format", "json", "--output", json]
            + ["--repo", repositoryRoot, "--owners", owners] + sender.1.watch + receiver.1.watch
        let watch: Process
        do {
            watch = try Self.start([Self.executable] + watchArguments, log: base.path + ".watch.log")
        } catch {
            return failed("the watch did not start: \(error)")
        }
        defer { Self.stop(watch) }
        var url = ""
        while url.isEmpty {
            url = (try? String(contentsOfFile: ready, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if url.isEmpty {
                if !watch.isRunning || Date() > listening.addingTimeInterval(20) { return failed("the watch did not listen; see \(base.lastPathComponent).watch.log") }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        do {
            let files = ["pin": pin, "dir": path("receiver-dir"), "handoff": path("receiver-handoff"), "qr": path("receiver-qr"), "scan": path("receiver-scan")]
            processes.append(try Self.start(["/bin/sh", "-c", "exec " + MatrixCell.command(receiver.1, url: url, files: files)], log: base.path + ".receiver.log"))
            try Self.own(processes[processes.count - 1], as: "\(receiver.0) (receiver)", in: owners)
        } catch {
            return failed("the receiver did not start: \(error)")
        }
        // Past its time the watch is interrupted: it still writes its report of what it saw.
        await Self.awaitExit(watch, within: cellTimeout + 30, then: SIGINT)
        return await judged(.migration, sender.0, receiver.0, watch: watch, base: base, stem: stem, completed: "migrated")
    }

    /// A pair's result from the watch's JSON report, and its session judged again as HTML.
    func judged(_ kind: MatrixReport.Pair.Kind, _ first: String, _ second: String, watch: Process, base: URL, stem: String, completed: String) async -> MatrixReport.Pair {
        let (json, log, html) = (base.path + ".json", base.path + ".jsonl", base.path + ".html")
        guard let data = FileManager.default.contents(atPath: json),
            let report = (try? JSONParser.parse([UInt8](data), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64)))?["watch"]
        else {
            return MatrixReport.Pair(
                kind: kind, first: first, second: second, ok: false,
                summary: "error: the watch wrote no report (exit \(watch.terminationStatus)); see \(base.lastPathComponent).watch.log", stem: stem)
        }
        if let checker = try? Self.start([Self.executable, "check", "--session", log, "--format", "html", "--repo", repositoryRoot], log: base.path + ".check.log", output: html) {
            await Self.awaitExit(checker, within: 60, then: SIGTERM)
        }
        let sessions = report["sessions"]?.arrayValue ?? []
        let outcome = sessions.first?["outcome"]?.stringValue ?? "no session"
        let violations = report["violations"]?.arrayValue ?? []
        var bySide: [String] = []
        for member in report["violationsBySide"]?.objectValue?.members ?? [] {
            if let n = member.value.integerValue, n > 0 { bySide.append("\(member.key) \(n)") }
        }
        let summary = "\(outcome), \(violations.count) violation(s)" + (bySide.isEmpty ? "" : " (\(bySide.joined(separator: ", ")))")
        return MatrixReport.Pair(
            kind: kind, first: first, second: second, ok: report["ok"] == .bool(true) && outcome == completed, summary: summary, stem: stem)
    }

    /// This program, to run each cell's `conformance run`.
    static var executable: String {
        #if os(Linux)
            if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    /// Names `process` in the watch's `--owners` file: the connections its sockets make are
    /// that implementation's, whatever ids they register (issue 38.4).
    static func own(_ process: Process, as label: String, in owners: String) throws {
        // Appended in one write; the watch reads only lines that end (`SocketOwner.label(in:for:)`).
        if !FileManager.default.fileExists(atPath: owners) { _ = FileManager.default.createFile(atPath: owners, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: owners))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\(process.processIdentifier) \(label)\n".utf8))
    }

    /// Starts a program with its standard error (and output, unless `output` names a file of
    /// its own) in `log`.
    static func start(_ arguments: [String], log: String, output: String? = nil) throws -> Process {
        func handle(_ path: String) throws -> FileHandle {
            guard FileManager.default.createFile(atPath: path, contents: nil) else { throw ValidationError("cannot write \(path)") }
            return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
        let errors = try handle(log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = try output.map(handle) ?? errors
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits for `process` to end; past `seconds` sends it `signal` and allows 10 s more, then
    /// stops it: no child of the matrix is waited for without a bound.
    static func awaitExit(_ process: Process, within seconds: Double, then signal: Int32) async {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        let grace = Date().addingTimeInterval(10)
        while process.isRunning && Date() < grace { try? await Task.sleep(for: .milliseconds(50)) }
        stop(process)
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
