import Foundation
import Migration
import NIOCore
import WebSocketTransport
import WireCore

/// The old phone on the network (seed 000 §3.1): listens, and drives a `SenderMachine` with what
/// arrives, the user's PIN, the prepared package and the clock. One receiver at a time; after a
/// disconnect it waits for the same receiver to come back and resume.
/// Faults a sender injects on purpose (tests, and the conformance runner playing a sender against
/// a receiver under test). Chunk frames are counted from 1 over the whole run.
public struct SenderFaults: Sendable {
    /// Flip the last data byte of these frames, leaving the digest: the receiver must ask again.
    public var corruptChunks: Set<Int> = []
    /// Send these frames twice.
    public var duplicateChunks: Set<Int> = []
    /// Send these frames after the next one.
    public var holdChunks: Set<Int> = []
    /// Never send these frames (lost on the way).
    public var dropChunks: Set<Int> = []
    /// Drop the connection after sending these frames.
    public var disconnectAfterChunks: Set<Int> = []
    public init() {}
}

public enum SenderPeer {
    public struct Options: Sendable {
        public var configuration = SenderMachine.Configuration()
        /// Give up when no receiver has come back for this long after a disconnect.
        public var reconnectTimeout: Duration = .seconds(120)
        public var faults = SenderFaults()
        public init() {}
    }

    public struct Hooks: Sendable {
        /// Asks the user for the PIN the receiver shows (`attemptsLeft` after a wrong one).
        public var enterPIN: @Sendable (_ attemptsLeft: Int) async throws -> String
        /// Builds the package once the receiver is authenticated.
        public var prepare: @Sendable () async throws -> PreparedPackage
        public var report: @Sendable (PeerEvent) -> Void
        public init(
            enterPIN: @escaping @Sendable (Int) async throws -> String, prepare: @escaping @Sendable () async throws -> PreparedPackage,
            report: @escaping @Sendable (PeerEvent) -> Void
        ) {
            self.enterPIN = enterPIN
            self.prepare = prepare
            self.report = report
        }
    }

    enum Input: Sendable {
        case connected(WebSocketWriter, UUID)
        case received(WebSocketMessage, UUID)
        case disconnected(UUID, String?)
        case pin(String)
        case ready(PreparedPackage)
        case failed(String)
        case tick
    }

    /// Runs one migration to its end. Returns the final state (`done`, `failed`, `locked`).
    public static func run(on listener: WebSocketListener, options: Options = Options(), hooks: Hooks) async throws -> SenderMachine.State {
        var random = GeneratorBytes(SystemRandomNumberGenerator())
        var machine = SenderMachine(configuration: options.configuration, random: &random)
        let clock = SystemClock()
        let (inputs, mailbox) = AsyncStream.makeStream(of: Input.self)

        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await listener.accept { connection in
                    try? await connection.run { inbound, writer in
                        let id = UUID()
                        mailbox.yield(.connected(writer, id))
                        do {
                            for try await message in inbound { mailbox.yield(.received(message, id)) }
                            mailbox.yield(.disconnected(id, nil))
                        } catch {
                            mailbox.yield(.disconnected(id, "\(error)"))
                        }
                    }
                }
            }
            group.addTask { await tick(mailbox) }
            defer { group.cancelAll() }

            var current: (writer: WebSocketWriter, id: UUID)?
            var reader: ChunkReader?
            var disconnectedAt: ContinuousClock.Instant?
            var framesSent = 0
            var sentAfterAck = 0
            var held: ByteBuffer?
            for await input in inputs {
                let now = clock.now()
                var actions: [TransferAction] = []
                switch input {
                case .connected(let writer, let id):
                    if current != nil {
                        // A second receiver while one is connected: not this session's.
                        await writer.close(code: .policyViolation)
                        continue
                    }
                    current = (writer, id)
                    disconnectedAt = nil
                    hooks.report(.log("receiver connected"))
                    actions = machine.handle(.connected(at: now))
                case .received(let message, let id):
                    guard current?.id == id else { continue }
                    switch message {
                    case .text(let text):
                        switch ControlFrame.parse(text) {
                        case .success(let document): actions = machine.handle(.message(document, at: now))
                        case .failure(let violation): actions = machine.handle(.malformed(violation, at: now))
                        }
                    case .binary(let bytes):
                        actions = machine.handle(.malformed(ControlFrame.binaryToSender(length: bytes.count), at: now))
                    }
                case .disconnected(let id, let error):
                    guard current?.id == id else { continue }
                    current = nil
                    disconnectedAt = .now
                    hooks.report(.log("receiver disconnected" + (error.map { ": \($0)" } ?? "")))
                    actions = machine.handle(.disconnected(at: now))
                case .pin(let pin):
                    actions = machine.handle(.userEnteredPIN(pin, at: now))
                case .ready(let package):
                    do {
                        reader = try ChunkReader(package)
                    } catch {
                        throw TransferFailure("cannot read the package: \(error)")
                    }
                    hooks.report(.log("package ready: \(package.meta.fileSize) bytes in \(package.meta.chunkCount) chunks"))
                    actions = machine.handle(.backupReady(package.meta, at: now))
                case .failed(let why):
                    hooks.report(.log(why))
                    actions = machine.handle(.userCancel(at: now))
                case .tick:
                    if let since = disconnectedAt, machine.state == .waitingReconnect, since.duration(to: .now) > options.reconnectTimeout {
                        throw TransferFailure("the receiver did not come back within \(options.reconnectTimeout)")
                    }
                    actions = machine.handle(.tick(at: now))
                }
                for action in actions {
                    switch action {
                    case .send(let message):
                        try? await current?.writer.send(text: ControlFrame.encode(message))
                    case .sendChunk(let index):
                        guard let reader, let writer = current?.writer else { continue }
                        framesSent += 1
                        if machine.acked.contains(index) { sentAfterAck += 1 }
                        var frame = try reader.frame(index)
                        let faults = options.faults, k = framesSent
                        if faults.corruptChunks.contains(k), frame.readableBytes > 0 {
                            let last = frame.writerIndex - 1
                            frame.setInteger(frame.getInteger(at: last, as: UInt8.self)! ^ 0xFF, at: last)
                        }
                        if faults.dropChunks.contains(k) {
                            // Lost on the way: the machine believes it sent the chunk.
                        } else if faults.holdChunks.contains(k) {
                            held = frame
                        } else {
                            try? await writer.send(binary: frame)
                            if faults.duplicateChunks.contains(k) { try? await writer.send(binary: frame) }
                            if let earlier = held {
                                try? await writer.send(binary: earlier)
                                held = nil
                            }
                        }
                        if faults.disconnectAfterChunks.contains(k) {
                            hooks.report(.log("dropping the connection after \(k) chunks (fault injection)"))
                            writer.abort()
                        }
                        if index % 16 == 0 || index == reader.package.meta.chunkCount - 1 {
                            let meta = reader.package.meta
                            hooks.report(.progress(TransferProgress(bytes: min(meta.fileSize, Int64(machine.acked.count) * Int64(meta.chunkSize)), total: meta.fileSize)))
                        }
                    case .askPIN(let left):
                        group.addTask {
                            do { mailbox.yield(.pin(try await hooks.enterPIN(left))) } catch { mailbox.yield(.failed("no PIN: \(error)")) }
                        }
                    case .prepareBackup:
                        hooks.report(.log("building the package"))
                        group.addTask {
                            do { mailbox.yield(.ready(try await hooks.prepare())) } catch { mailbox.yield(.failed("cannot build the package: \(error)")) }
                        }
                    case .close(let reason):
                        hooks.report(.log("closing: \(reason)"))
                        await current?.writer.close()
                    case .reject(let violation):
                        hooks.report(.violation(violation))
                    case .showPIN, .confirmWipe, .openFile, .writeChunk, .persistJournal, .verifyFile, .restore, .setTimer:
                        continue  // the receiver's actions
                    }
                }
                switch machine.state {
                case .done, .failed, .locked:
                    if let meta = reader?.package.meta {
                        if machine.state == .done { hooks.report(.progress(TransferProgress(bytes: meta.fileSize, total: meta.fileSize))) }
                        hooks.report(.log("\(framesSent) chunk frames sent for \(meta.chunkCount) chunks, \(sentAfterAck) of them already acknowledged"))
                    }
                    return machine.state
                default:
                    continue
                }
            }
            return machine.state
        }
    }

    static func tick(_ mailbox: AsyncStream<Input>.Continuation) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(200))
            mailbox.yield(.tick)
        }
    }
}
