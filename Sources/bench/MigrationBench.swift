import Foundation
import Migration
import MigrationPackage
import MigrationPeer
import NIOCore
import WebSocketTransport
import WireCore

/// A whole migration, store to store, file-first against streaming (Spec migration.md §5.5): the
/// sender and the receiver each in a process of its own (their peak RSS read from it), over
/// loopback WebSocket with 20 ms round trips, window 16 (`--window N`), 1 MiB chunks; PBKDF2 with 1000 test
/// iterations. The time runs from the sender's start to the receiver's exit, so it holds the
/// pack (or the streaming pass), the transfer and the restore. Extra disk: the largest size,
/// sampled every 50 ms, of what each side keeps beside the stores (the sender's package folder;
/// the receiver's transfer folder, its staging and the incoming store that staging becomes).
enum MigrationBench {
    struct Run {
        var seconds: Double
        var senderPeakKiB: Int
        var receiverPeakKiB: Int
        var senderExtra: Int64
        var receiverExtra: Int64
    }

    static let password = "bench"

    static func rows(quick: Bool, window: Int, work: URL) throws {
        let size: Int64 = quick ? 256 << 20 : 2 << 30
        let store = work.appendingPathComponent("migration-store")
        var options = SampleStore.Options()
        options.mediaBytes = size
        options.mediaCount = 400
        try SampleStore.generate(at: store, seed: 2, options: options)
        defer { try? FileManager.default.removeItem(at: store) }
        let storeBytes = folderSize(store)
        var runs: [String: [Run]] = ["file-first": [], "streaming": []]
        // The two modes take turns, so neither always runs on a page cache the other warmed.
        for round in 0..<3 {
            for mode in ["file-first", "streaming"] {
                runs[mode]!.append(try migrate(store, mode: mode, window: window, work: work.appendingPathComponent("migration-\(mode)-\(round)")))
            }
        }
        let mib = storeBytes >> 20
        var medians: [String: Double] = [:]
        for mode in ["file-first", "streaming"] {
            let list = runs[mode]!
            let sample = Sample(list.map { Double(storeBytes) / $0.seconds })
            medians[mode] = sample?.median
            let extraSender = list.map(\.senderExtra).max() ?? -1
            let extraReceiver = list.map(\.receiverExtra).max() ?? -1
            print(Bench.row("migrate \(mib) MiB, \(mode)", sample, nil))
            print(String(
                format: "    peak RSS sender %d MiB, receiver %d MiB; extra disk sender %.1f MiB, receiver %.1f MiB (store %d MiB)",
                (list.map(\.senderPeakKiB).max() ?? -1) / 1024, (list.map(\.receiverPeakKiB).max() ?? -1) / 1024,
                Double(extraSender) / 1_048_576, Double(extraReceiver) / 1_048_576, mib))
        }
        print(String(format: "  streaming / file-first, window \(window), 20 ms RTT: %.2fx", (medians["streaming"] ?? .nan) / (medians["file-first"] ?? .nan)))
        print("(migrate: store to store, window \(window), 1 MiB chunks, 20 ms RTT, from the sender's start to the receiver's exit,")
        print(" each peer in its own process;")
        print(" extra disk: the most each side held beside the stores, sampled every 50 ms; the window's chunks: \(window) MiB)")
    }

    static func migrate(_ store: URL, mode: String, window: Int, work: URL) throws -> Run {
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let (scratch, target, ready, pin) = (
            work.appendingPathComponent("sender"), work.appendingPathComponent("target"), work.appendingPathComponent("url"), work.appendingPathComponent("pin")
        )
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let beside = ["transfer", "staging", "incoming"].map { work.appendingPathComponent("target." + $0) }
        sync()
        let start = Date()
        let sender = try child(["send", store.path, scratch.path, ready.path, pin.path, "\(window)", mode])
        while !FileManager.default.fileExists(atPath: ready.path), sender.process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        let url = try String(contentsOf: ready, encoding: .utf8)
        let receiver = try child(["receive", url, target.path, pin.path, "\(window)", mode])
        var senderExtra: Int64 = 0
        var receiverExtra: Int64 = 0
        while receiver.process.isRunning || sender.process.isRunning {
            // One side that failed leaves the other waiting for ever.
            for (one, other) in [(receiver, sender), (sender, receiver)] where !one.process.isRunning && one.process.terminationStatus != 0 {
                other.process.terminate()
            }
            senderExtra = max(senderExtra, folderSize(scratch))
            receiverExtra = max(receiverExtra, beside.reduce(0) { $0 + folderSize($1) })
            Thread.sleep(forTimeInterval: 0.05)
        }
        let seconds = Date().timeIntervalSince(start)
        let (senderPeak, receiverPeak) = (try sender.finish(), try receiver.finish())
        return Run(seconds: seconds, senderPeakKiB: senderPeak, receiverPeakKiB: receiverPeak, senderExtra: senderExtra, receiverExtra: receiverExtra)
    }

    /// A bench child process and its standard output, read on a thread of its own.
    final class Child: @unchecked Sendable {
        let process = Process()
        private let pipe = Pipe()
        private var output = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["child"] + arguments
            process.standardOutput = pipe
            try process.run()
            Thread {
                self.output = self.pipe.fileHandleForReading.readDataToEndOfFile()
                self.done.signal()
            }.start()
        }

        /// Its peak RSS in KiB, once it exited 0.
        func finish() throws -> Int {
            done.wait()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw Bench.BenchError.child(process.terminationStatus) }
            let text = String(decoding: output, as: UTF8.self)
            return text.split(separator: "\n").first { $0.hasPrefix("peak-kib ") }.flatMap { Int($0.dropFirst(9)) } ?? -1
        }
    }

    static func child(_ arguments: [String]) throws -> Child { try Child(arguments) }

    /// Bytes of the regular files below `url` (0 when it does not exist).
    static func folderSize(_ url: URL) -> Int64 {
        guard let walk = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else { return 0 }
        var total: Int64 = 0
        for case let file as URL in walk {
            guard let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]), values.isRegularFile == true else { continue }
            total += Int64(values.fileSize ?? 0)
        }
        return total
    }

    /// `child send STORE SCRATCH READY PIN WINDOW MODE` and `child receive URL TARGET PIN WINDOW MODE`.
    static func play(_ arguments: [String]) async throws {
        // As `reference-peer send` and `receive` do.
        MemoryPolicy.returnLargeBlocks()
        let streaming = arguments.last == "streaming"
        let window = Int(arguments[arguments.count - 2]) ?? 16
        let pack = { var o = Packer.Options(); o.iterations = 1000; return o }()
        switch arguments[0] {
        case "send":
            let store = DeviceStore(URL(fileURLWithPath: arguments[1]))
            let scratch = URL(fileURLWithPath: arguments[2])
            let listener = try await WebSocketListener.bind(host: "127.0.0.1", port: 0, maxFrameSize: 1 << 16, simulatedLatency: .milliseconds(10))
            try Data("ws://127.0.0.1:\(listener.port)".utf8).write(to: URL(fileURLWithPath: arguments[3]), options: .atomic)
            var options = SenderPeer.Options()
            options.configuration.chunkSize = 1 << 20
            options.configuration.maxWindow = window
            let pinFile = URL(fileURLWithPath: arguments[4])
            let state = try await SenderPeer.run(
                on: listener, options: options,
                hooks: .init(
                    enterPIN: { _ in try await PINFile.read(pinFile) },
                    prepare: {
                        var random = GeneratorBytes(SystemRandomNumberGenerator())
                        if streaming {
                            let package = try StreamedPackage.prepare(store, password: password, options: pack, now: 1_747_300_000, random: &random)
                            return PreparedPackage(streamed: package, chunkSize: 1 << 20, schemaVersion: 1, appVersion: "1.0.0")
                        }
                        let file = scratch.appendingPathComponent("package.enc")
                        let result = try Packer.pack(store, to: file, password: password, options: pack, now: 1_747_300_000, random: &random)
                        return try PreparedPackage(file: file, backupId: result.backupId, zipSize: result.zipSize, chunkSize: 1 << 20, schemaVersion: 1, appVersion: "1.0.0")
                    },
                    report: { _ in }))
            await listener.close()
            guard state.phase == .done else { throw Bench.BenchError.judged("the sender ended \(state.phase.rawValue)") }
        case "receive":
            let store = DeviceStore(URL(fileURLWithPath: arguments[2]))
            let pinFile = URL(fileURLWithPath: arguments[3])
            var options = ReceiverPeer.Options(url: arguments[1], incoming: IncomingPackage(folder: store.transfer))
            options.configuration.maxWindow = window
            options.configuration.maxChunkSize = 1 << 20
            options.simulatedLatency = .milliseconds(10)
            var restore = Restorer.Options()
            restore.policy = EnvelopePolicy(iterations: 1000...10_000_000)
            if streaming { options.streaming = ReceiverPeer.Streaming(store: store, password: password, restore: restore) }
            let restoreOptions = restore
            let ending = try await ReceiverPeer.run(
                options: options,
                hooks: .init(
                    showPIN: { pin in try? Data(pin.utf8).write(to: pinFile, options: .atomic) }, confirmWipe: { _ in true },
                    restore: { file, meta in
                        var options = restoreOptions
                        options.expectedBackupId = meta.backupId
                        _ = try Restorer.restore(file, password: password, into: store, options: options)
                    },
                    report: { _ in }))
            guard ending.state.phase == .done else { throw Bench.BenchError.judged("the receiver ended \(ending.state.phase.rawValue)") }
        default:
            throw Bench.BenchError.usage
        }
    }
}
