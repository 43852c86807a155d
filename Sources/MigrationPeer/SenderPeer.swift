import Foundation
import Migration
import MigrationPackage
import NIOCore
import WebSocketTransport
import WireCore

/// The old phone on the network (seed 000 §3.1): listens, and drives a `SenderMachine` with what
/// arrives, the user's PIN, the prepared package and the clock. One receiver at a time; after a
/// disconnect it waits for the same receiver to come back and resume.
public enum SenderPeer {
    public struct Options: Sendable {
        /// The machine's limits, the reconnect wait among them (`reconnectTimeout`).
        public var configuration = SenderMachine.Configuration()
        /// Faults injected into the chunk frames sent.
        public var faults = ChunkFaults()
        public init() {}
    }

    public struct Hooks: Sendable {
        /// Asks the user for the PIN the receiver shows (`attemptsLeft` after a wrong one).
        public var enterPIN: @Sendable (_ attemptsLeft: Int) async throws -> String
        /// Builds the package once the receiver is authenticated.
        public var prepare: @Sendable () async throws -> PreparedPackage
        public var report: @Sendable (PeerEvent) -> Void
        /// Every frame on the current connection, both ways, in order (for a wire log).
        public var frame: @Sendable (PeerFrame) -> Void = { _ in }
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
        case connection(ConnectionEvent)
        case pin(String)
        case ready(PreparedPackage)
        case failed(String)
        /// A store file changed since the package was planned (MIG-XFER-008).
        case storeChanged(path: String)
    }

    /// Runs one migration to its end. Returns the final state (`done`, `failed`, `locked`).
    public static func run(on listener: WebSocketListener, options: Options = Options(), hooks: Hooks) async throws -> SenderMachine.State {
        var random = GeneratorBytes(SystemRandomNumberGenerator())
        let machine = SenderMachine(configuration: options.configuration, random: &random)
        return try await EdgeHost.run(machine, Performer(options: options, hooks: hooks)) { edge in
            edge.spawn {
                await listener.accept { connection in
                    await connection.pump { edge.post(.connection($0)) }
                }
            }
        }
    }

    /// The sender's side of the edge: one receiver's connection, the package's chunks, the faults.
    struct Performer: EdgePerformer {
        let options: Options
        let hooks: Hooks
        // A receiver that stops reading would hold the loop in a send, where no tick reaches
        // the machine: a send waiting longer than an ack may is the receiver gone (MIG-XFER-005).
        var link: TransferLink
        var reader: ChunkReader?
        var sentAfterAck = 0
        // Chunks whose last frame went out corrupted on purpose: an `ok` for one is the
        // receiver accepting bytes its digest refuses (MIG-CHUNK-004).
        var corruptedLast: Set<Int> = []
        // A drop the faults ask for waits for the ack of the chunk it follows: the receiver
        // then holds an acknowledged chunk, which its ResumeTransfer must list (MIG-XFER-003).
        var dropOnceAcked: Int?
        var announcedDigest: String?
        // Set once a chunk could not be produced: no chunk goes out after it.
        var changedFile: String?
        var line: FaultyLine<ByteBuffer>
        /// The step under way is the receiver's frame: what it accepted is judged.
        var judging = false

        init(options: Options, hooks: Hooks) {
            self.options = options
            self.hooks = hooks
            link = TransferLink(oneAtATime: true, stallLimit: .milliseconds(options.configuration.ackTimeout), log: hooks.frame)
            line = FaultyLine(options.faults) { frame in
                var frame = frame
                if let last = frame.writerIndex > 0 ? frame.writerIndex - 1 : nil {
                    frame.setInteger(frame.getInteger(at: last, as: UInt8.self)! ^ 0xFF, at: last)
                }
                return frame
            }
        }

        mutating func events(for input: Input, at now: EpochMillis, _ machine: SenderMachine, _ edge: Edge<Input>) async throws -> [SenderMachine.Event] {
            judging = false
            switch input {
            case .connection(let event):
                return await connection(event, at: now)
            case .pin(let pin):
                return [.userEnteredPIN(pin, at: now)]
            case .ready(let package):
                do {
                    reader = try ChunkReader(package)
                } catch {
                    throw TransferFailure("cannot read the package: \(error)")
                }
                hooks.report(.log("package ready: \(package.meta.fileSize) bytes in \(package.meta.chunkCount) chunks"))
                var meta = package.meta
                if options.faults.wrongDigest {
                    meta.envelopeSHA256 = SenderPeer.misstated(meta.envelopeSHA256)
                    announcedDigest = meta.envelopeSHA256
                    hooks.report(.log("announcing envelopeSHA256 \(meta.envelopeSHA256), not the package's \(package.meta.envelopeSHA256) (fault injection)"))
                }
                return [.backupReady(meta, at: now)]
            case .failed(let why):
                hooks.report(.log(why))
                return [.userCancel(at: now)]
            case .storeChanged(let path):
                hooks.report(.log("\(path) changed since the package was planned: cancelling (store-changed)"))
                return [.storeChanged(at: now)]
            }
        }

        private mutating func connection(_ event: ConnectionEvent, at now: EpochMillis) async -> [SenderMachine.Event] {
            switch await link.arrival(event) {
            case nil:
                return []
            case .opened?:
                hooks.report(.log("receiver connected"))
                return [.connected(at: now)]
            case .control(.success(let document))?:
                judging = true
                return [.message(document, at: now)]
            case .control(.failure(let violation))?:
                judging = true
                return [.malformed(violation, at: now)]
            case .binary(let bytes)?:
                judging = true
                return [.malformed(ControlFrame.binaryToSender(length: bytes.count), at: now)]
            case .refused(let violation)?:
                return [.malformed(violation, at: now)]
            case .closed(let error)?:
                hooks.report(.log("receiver disconnected" + (error.map { ": \($0)" } ?? "")))
                return [.disconnected(at: now)]
            }
        }

        mutating func stepped(_ machine: SenderMachine, _ edge: Edge<Input>) async throws {
            guard judging else { return }
            SenderPeer.judgeAcceptance(of: &corruptedLast, announcedDigest, machine, hooks.report)
            if let index = dropOnceAcked, machine.state.transfer?.acked.contains(index) == true, link.current != nil {
                dropOnceAcked = nil
                hooks.report(.log("dropping the connection after \(line.count) chunks, chunk \(index) acknowledged (fault injection)"))
                link.abort()
            }
        }

        mutating func perform(_ action: TransferAction, _ machine: SenderMachine, _ edge: Edge<Input>) async throws -> Performed<SenderMachine.Event> {
            switch action {
            case .send(let message):
                await link.send(message)
            case .sendChunk(let index):
                try await sendChunk(index, machine, edge)
            case .askPIN(let left):
                let hooks = hooks
                edge.spawn {
                    do { edge.post(.pin(try await hooks.enterPIN(left))) } catch { edge.post(.failed("no PIN: \(error)")) }
                }
            case .prepareBackup:
                hooks.report(.log("building the package"))
                // Cut to the receiver's chunk size here, off the loop: it reads the file again.
                let limit = machine.receiverMaxChunkSize ?? .max
                let hooks = hooks
                edge.spawn {
                    do {
                        edge.post(.ready(try await hooks.prepare().chunked(atMost: limit)))
                    } catch PackageError.storeChanged(let path) {
                        edge.post(.storeChanged(path: path))
                    } catch {
                        edge.post(.failed("cannot build the package: \(error)"))
                    }
                }
            case .close(let reason):
                hooks.report(.log("closing: \(reason)"))
                await link.close()
            case .reject(let violation):
                hooks.report(.violation(violation))
            case .showPIN, .confirmWipe, .checkPassword, .openFile, .writeChunk, .persistJournal, .verifyFile, .restore:
                break  // the receiver's actions
            }
            return .done
        }

        private mutating func sendChunk(_ index: Int, _ machine: SenderMachine, _ edge: Edge<Input>) async throws {
            guard let reader, let writer = link.current?.writer, changedFile == nil else { return }
            let frame: ByteBuffer
            do {
                frame = try reader.frame(index)
            } catch PackageError.storeChanged(let path) {
                // Never a byte that contradicts the manifest (MIG-XFER-008).
                changedFile = path
                edge.post(.storeChanged(path: path))
                return
            }
            if machine.state.transfer?.acked.contains(index) == true { sentAfterAck += 1 }
            if options.faults.corruptChunks.contains(line.count + 1) { corruptedLast.insert(index) } else { corruptedLast.remove(index) }
            let (frames, disconnect) = line.pass(frame)
            for frame in frames { hooks.frame(.sentChunk(frame)) }
            try? await writer.send(binaries: frames, stallLimit: link.stallLimit)
            if disconnect { dropOnceAcked = index }
            if index % 16 == 0 || index == reader.package.meta.chunkCount - 1 {
                let meta = reader.package.meta
                let acked = Int64(machine.state.transfer?.acked.count ?? 0)
                hooks.report(.progress(TransferProgress(bytes: min(meta.fileSize, acked * Int64(meta.chunkSize)), total: meta.fileSize)))
            }
        }

        mutating func settled(_ machine: SenderMachine, _ edge: Edge<Input>) async throws -> Settled<SenderMachine.State, SenderMachine.Event> {
            switch machine.phase {
            case .done, .failed, .locked:
                if case .failed(.cancelled(.timeout), _) = machine.state, link.current == nil {
                    hooks.report(.log("the receiver did not come back within \(options.configuration.reconnectTimeout) ms"))
                }
                if let meta = reader?.package.meta {
                    if machine.phase == .done { hooks.report(.progress(TransferProgress(bytes: meta.fileSize, total: meta.fileSize))) }
                    hooks.report(.log("\(line.count) chunk frames sent for \(meta.chunkCount) chunks, \(sentAfterAck) of them already acknowledged"))
                }
                return .end(machine.state)
            default:
                return .goOn
            }
        }
    }

    /// What the receiver accepted that the runner made unacceptable on purpose: a corrupted chunk
    /// acknowledged `ok` (MIG-CHUNK-004), a package verified against a digest it does not have
    /// (MIG-XFER-004).
    private static func judgeAcceptance(of corrupted: inout Set<Int>, _ announcedDigest: String?, _ machine: SenderMachine, _ report: (PeerEvent) -> Void) {
        for index in corrupted.sorted() where machine.state.transfer?.acked.contains(index) == true {
            corrupted.remove(index)
            report(
                .violation(
                    Violation(
                        rule: MigrationRule.chunkDigest, path: .root / "payload" / "status",
                        expected: "\"retransmit\": chunk \(index)'s frame was sent with its last byte flipped", found: "\"ok\" for chunk \(index)")))
        }
        if let announcedDigest, machine.phase == .done {
            report(
                .violation(
                    Violation(
                        rule: MigrationRule.finalDigest, path: .root / "payload" / "result",
                        expected: "\"digest-mismatch\": the envelopeSHA256 announced, \(announcedDigest), is not the package's", found: "\"verified\"")))
        }
    }

    /// `digest` with its first hex digit changed.
    static func misstated(_ digest: String) -> String {
        let first = digest.unicodeScalars.first == "0" ? "1" : "0"
        return first + String(digest.unicodeScalars.dropFirst())
    }
}
