import ConformanceKit
import ConformanceLive
import Foundation
import Migration
import MigrationPeer
import NIOCore
import WebSocketTransport

/// Loopback migration throughput: a real `SenderPeer` and `ReceiverPeer` over WebSocket, the
/// package read from and written to disk, chunk digests checked, acknowledgements awaited.
enum TransferBench {
    /// Creates a package-sized file once: the transfer does not look inside it.
    static func package(bytes: Int64, chunkSize: Int, in folder: URL) throws -> PreparedPackage {
        let file = folder.appendingPathComponent("transfer-package.enc")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var generator = SystemRandomNumberGenerator()
        for i in block.indices { block[i] = UInt8.random(in: 0...255, using: &generator) }
        var written: Int64 = 0
        while written < bytes {
            let n = Int(min(Int64(block.count), bytes - written))
            block[0] = UInt8(truncatingIfNeeded: written >> 20)
            try handle.write(contentsOf: block[0..<n])
            written += Int64(n)
        }
        try handle.close()
        return try PreparedPackage(
            file: file, backupId: "3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f", zipSize: bytes - 1000, chunkSize: chunkSize, schemaVersion: 1,
            appVersion: "1.0.0")
    }

    /// How fast this machine writes a new file of `bytes` (1 MiB writes, no sync): what caps a
    /// receiver that writes to that disk.
    /// `sync` includes an fsync of the file in the time, as pack does for its package.
    static func freshWriteRate(bytes: Int64, in folder: URL, sync: Bool = false) throws -> Double {
        let file = folder.appendingPathComponent("fresh-write")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let block = [UInt8](repeating: 0x5A, count: 1 << 20)
        let start = ContinuousClock.now
        var written: Int64 = 0
        while written < bytes {
            try handle.write(contentsOf: block)
            written += Int64(block.count)
        }
        if sync { try handle.synchronize() }
        let d = start.duration(to: .now)
        return Double(bytes) / (Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }

    /// Bytes per second from the announcement to the last chunk on the receiver's disk. With
    /// `watched`, the receiver connects through `conformance watch` (a migration judge on every
    /// frame, the envelope's digest put together as it passes, no log), which forwards to the sender.
    static func run(_ package: PreparedPackage, window: Int, oneWayDelay: TimeAmount?, folder: URL, watched: Bool = false) async throws -> Double {
        let listener = try await WebSocketListener.bind(host: "127.0.0.1", port: 0, maxFrameSize: 1 << 16, simulatedLatency: oneWayDelay)
        var port = listener.port
        var watching: Task<WatchResult, any Error>?
        if watched {
            var options = WatchOptions(family: "migration", listen: ("127.0.0.1", 0))
            options.upstream = "ws://127.0.0.1:\(port)"
            options.sessions = 1
            options.maxFrameSize = BackupChunk.headerLength + BackupChunk.maxLength
            let (ready, bound) = AsyncStream.makeStream(of: Int.self)
            options.ready = { bound.yield($0) }
            let header = SessionLog.Header(family: "migration", startedAt: 0)
            let never = AsyncStream<Void>.makeStream().stream
            let watchOptions = options
            watching = Task { try await Watcher.run(watchOptions, judge: MigrationWatch(), header: header, stop: never) }
            var iterator = ready.makeAsyncIterator()
            port = await iterator.next() ?? port
        }
        let incoming = IncomingPackage(folder: folder.appendingPathComponent("incoming-\(window)-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: incoming.folder) }
        let pins = AsyncStream.makeStream(of: String.self)
        let clock = Stopwatch()

        var sender = SenderPeer.Options()
        sender.configuration.chunkSize = package.meta.chunkSize
        sender.configuration.maxWindow = window
        var receiver = ReceiverPeer.Options(url: "ws://127.0.0.1:\(port)", incoming: incoming)
        receiver.configuration.maxWindow = window
        receiver.configuration.maxChunkSize = package.meta.chunkSize
        receiver.simulatedLatency = oneWayDelay

        let (senderOptions, receiverOptions) = (sender, receiver)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = try await SenderPeer.run(
                    on: listener, options: senderOptions,
                    hooks: .init(
                        enterPIN: { _ in
                            var iterator = pins.stream.makeAsyncIterator()
                            return await iterator.next() ?? ""
                        },
                        prepare: {
                            clock.start()
                            return package
                        },
                        report: { _ in }))
            }
            group.addTask {
                _ = try await ReceiverPeer.run(
                    options: receiverOptions,
                    hooks: .init(
                        showPIN: { pins.continuation.yield($0) }, confirmWipe: { _ in true }, restore: { _, _ in },
                        report: { event in
                            if case .progress(let p) = event, p.bytes == p.total { clock.stop() }
                        }))
            }
            try await group.waitForAll()
        }
        await listener.close()
        if let watching {
            let result = try await watching.value
            guard result.ok, result.sessions.first?.outcome == "migrated" else { throw Bench.BenchError.judged("the watched transfer was judged: \(result.findings.first.map { "\($0.violation)" } ?? result.sessions.first?.outcome ?? "no session")") }
        }
        return Double(package.meta.fileSize) / clock.seconds
    }
}

/// A start and a stop time, set from the peers' callbacks.
final class Stopwatch: @unchecked Sendable {
    private let lock = NSLock()
    private var started: ContinuousClock.Instant?
    private var stopped: ContinuousClock.Instant?

    func start() { lock.withLock { started = .now } }
    func stop() { lock.withLock { if stopped == nil { stopped = .now } } }
    var seconds: Double {
        lock.withLock {
            guard let started, let stopped else { return .nan }
            let d = started.duration(to: stopped)
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
    }
}
