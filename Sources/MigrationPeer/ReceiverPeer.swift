import Foundation
import Migration
import MigrationPackage
import NIOCore
import WebSocketTransport
import WireCore

/// The new phone on the network (seed 000 §3.1): connects to the sender, and drives a
/// `ReceiverMachine` with what arrives, the user's consent and the clock. After a disconnect it
/// connects again and resumes; started again after a crash, it resumes from its journal.
public enum ReceiverPeer {
    public struct Options: Sendable {
        public var url: String
        /// Whom a `wss://` sender must prove to be.
        public var trust: TLSClientTrust = .system
        public var configuration = ReceiverMachine.Configuration()
        public var incoming: IncomingPackage
        /// Pause between connection attempts, and how many failed attempts in a row end the run.
        public var reconnectDelay: Duration = .milliseconds(250)
        public var maxFailedConnects = 40
        /// Faults injected into the chunk frames received, before the machine sees them.
        public var faults = ChunkFaults()
        /// Stop dead after this many chunks, as a crash would; started again, the receiver
        /// resumes from its journal (fault injection).
        public var stopAfterChunks: Int?
        /// Delay everything the receiver receives by this much (benchmarks: half a simulated round trip).
        public var simulatedLatency: TimeAmount?
        /// Unpack the package as its chunks arrive, into this store, instead of writing it to a
        /// file (Spec migration.md §5.5); `hooks.restore` is then not called.
        public var streaming: Streaming?
        public init(url: String, incoming: IncomingPackage) {
            self.url = url
            self.incoming = incoming
        }
    }

    /// Where a streaming receiver restores, and with what.
    public struct Streaming: Sendable {
        public var store: DeviceStore
        public var password: String
        public var restore: Restorer.Options
        public init(store: DeviceStore, password: String, restore: Restorer.Options = Restorer.Options()) {
            self.store = store
            self.password = password
            self.restore = restore
        }
    }

    public struct Hooks: Sendable {
        public var showPIN: @Sendable (String) -> Void
        /// Asks the user to confirm that local data will be replaced.
        public var confirmWipe: @Sendable (ControlMessage.BackupMeta) async -> Bool
        /// Restores the verified package into the store.
        public var restore: @Sendable (URL, ControlMessage.BackupMeta) async throws -> Void
        public var report: @Sendable (PeerEvent) -> Void
        /// Every frame on the current connection, both ways, in order (for a wire log).
        public var frame: @Sendable (PeerFrame) -> Void = { _ in }
        /// A streaming receiver's restore is done (`Options.streaming`).
        public var restoredStream: @Sendable (Restorer.Result) -> Void = { _ in }
        /// Checks the password against the envelope header BackupMeta carries (MIG-META-002),
        /// before any chunk is asked for.
        public var checkPassword: @Sendable ([UInt8]) async -> ReceiverMachine.PasswordCheck
        public init(
            showPIN: @escaping @Sendable (String) -> Void, confirmWipe: @escaping @Sendable (ControlMessage.BackupMeta) async -> Bool,
            restore: @escaping @Sendable (URL, ControlMessage.BackupMeta) async throws -> Void, report: @escaping @Sendable (PeerEvent) -> Void,
            checkPassword: @escaping @Sendable ([UInt8]) async -> ReceiverMachine.PasswordCheck = { _ in .notChecked }
        ) {
            self.showPIN = showPIN
            self.confirmWipe = confirmWipe
            self.restore = restore
            self.report = report
            self.checkPassword = checkPassword
        }
    }

    /// How a session ended: the machine's final state, and whether the PIN was accepted (for
    /// MIG-PIN-003's count of locked sessions).
    public struct Ending: Sendable, Hashable {
        public var state: ReceiverMachine.State
        public var pinAccepted: Bool
        /// Chunk frames that came (every one, resends included): whether a fault at frame K
        /// could happen at all.
        public var chunkFrames = 0

        public var lockoutOutcome: PINLockout.SessionOutcome {
            if state.phase == .locked { return .locked }
            return pinAccepted ? .pinAccepted : .other
        }
    }

    enum Input: Sendable {
        case connection(ConnectionEvent)
        case connectFailed(String)
        /// The sender's certificate is not trusted, or it answered the upgrade with a 4xx:
        /// retrying changes nothing.
        case refused(any Error)
        case confirmed(Bool)
        case passwordChecked(ReceiverMachine.PasswordCheck)
    }

    /// Runs one migration to its end (final state `done`, `failed` or `locked`).
    public static func run(options: Options, hooks: Hooks) async throws -> Ending {
        var random = GeneratorBytes(SystemRandomNumberGenerator())
        var configuration = options.configuration
        configuration.unpacksAsItArrives = options.streaming != nil
        var performer = Performer(options: options, hooks: hooks, stallLimit: .milliseconds(configuration.stallTimeout))
        let machine: ReceiverMachine
        if let journal = try options.incoming.journal() {
            try performer.open(journal.meta)
            hooks.report(.log("resuming backup \(journal.meta.backupId): \(journal.have.reduce(0) { $0 + $1.count }) of \(journal.meta.chunkCount) chunks held"))
            machine = ReceiverMachine(configuration: configuration, resuming: journal, random: &random)
        } else {
            machine = ReceiverMachine(configuration: configuration, random: &random)
        }
        let connect = performer.connector
        return try await EdgeHost.run(machine, performer) { edge in
            edge.spawn { await connect(edge, .zero) }
        }
    }

    /// The receiver's side of the edge: its connection to the sender (again after a drop), the
    /// incoming file or stream, the faults.
    struct Performer: EdgePerformer {
        let options: Options
        let hooks: Hooks
        // A sender that stops reading would hold the loop in a send, where no tick reaches the
        // machine: a send waiting longer than the stall limit is the sender gone (MIG-XFER-005).
        var link: TransferLink
        var file: FileHandle?
        var stream: IncomingStream?
        var failedConnects = 0
        // The first failure of a run of them: often the cause, where the last is only its echo.
        var firstFailure: String?
        /// The input under way is the loss of the connection: a reconnection follows it.
        var lostConnection = false
        var line: FaultyLine<[UInt8]>

        init(options: Options, hooks: Hooks, stallLimit: TimeAmount) {
            self.options = options
            self.hooks = hooks
            link = TransferLink(oneAtATime: false, stallLimit: stallLimit, log: hooks.frame)
            line = FaultyLine(options.faults) { frame in
                var frame = frame
                if let last = frame.indices.last { frame[last] ^= 0xFF }
                return frame
            }
        }

        /// Where the chunks of `meta` go: the stream a streaming receiver unpacks, or the file.
        mutating func open(_ meta: ControlMessage.BackupMeta) throws {
            if let target = options.streaming {
                stream = try IncomingStream(meta, folder: options.incoming.folder, target: target, maxAhead: options.configuration.maxWindow)
            } else {
                file = try options.incoming.open(meta)
            }
        }

        /// One attempt to reach the sender after `delay`, its connection pumped into the loop.
        var connector: @Sendable (Edge<Input>, Duration) async -> Void {
            let options = options
            let maxFrame = BackupChunk.headerLength + options.configuration.maxChunkSize
            return { edge, delay in
                if delay > .zero { try? await Task.sleep(for: delay) }
                let connection: WebSocketConnection
                do {
                    connection = try await WebSocketClient.connect(
                        to: options.url, maxFrameSize: maxFrame, simulatedLatency: options.simulatedLatency, trust: options.trust)
                } catch let failure as TLSFailure {
                    edge.post(.refused(failure))
                    return
                } catch let refusal as WebSocketUpgradeRefused where refusal.isPermanent {
                    edge.post(.refused(refusal))
                    return
                } catch {
                    edge.post(.connectFailed("\(error)"))
                    return
                }
                await connection.pump { edge.post(.connection($0)) }
            }
        }

        mutating func events(for input: Input, at now: EpochMillis, _ machine: ReceiverMachine, _ edge: Edge<Input>) async throws -> [ReceiverMachine.Event] {
            lostConnection = false
            switch input {
            case .connection(let event):
                return try await connection(event, at: now, machine)
            case .refused(let failure):
                throw failure
            case .connectFailed(let why):
                failedConnects += 1
                if firstFailure == nil {
                    firstFailure = why
                    hooks.report(.log("cannot connect (trying again): \(why)"))
                }
                guard failedConnects < options.maxFailedConnects else {
                    let first = firstFailure.map { $0 == why ? "" : "; the first attempt: \($0)" } ?? ""
                    throw TransferFailure("cannot reach the sender after \(failedConnects) attempts: \(why)\(first)")
                }
                let connect = connector
                let delay = options.reconnectDelay
                edge.spawn { await connect(edge, delay) }
                return []
            case .confirmed(let yes):
                return [.userConfirmed(yes, at: now)]
            case .passwordChecked(let check):
                return [.passwordChecked(check, at: now)]
            }
        }

        private mutating func connection(_ event: ConnectionEvent, at now: EpochMillis, _ machine: ReceiverMachine) async throws -> [ReceiverMachine.Event] {
            switch await link.arrival(event) {
            case nil:
                return []
            case .opened?:
                hooks.report(.log("connected to \(options.url)"))
                return [.connected(at: now)]
            case .control(.success(let document))?:
                return [.message(document, at: now)]
            case .control(.failure(let violation))?, .refused(let violation)?:
                return [.malformed(violation, at: now)]
            case .binary(let bytes)?:
                if line.count == options.stopAfterChunks {
                    throw TransferFailure("stopped after \(line.count) chunks (fault injection)")
                }
                let (frames, disconnect) = line.pass(bytes)
                if disconnect {
                    hooks.report(.log("dropping the connection after \(line.count) chunks (fault injection)"))
                    link.abort()
                }
                return frames.map { .chunk($0, at: now) }
            case .closed(let error)?:
                if machine.phase == .resuming {
                    // A sender that takes the connection and drops it before greeting is no
                    // better than one that refuses it: counted, or the loop would never end.
                    failedConnects += 1
                    let why = "the sender closed the connection before its Handshake"
                    if firstFailure == nil { firstFailure = why }
                    guard failedConnects < options.maxFailedConnects else {
                        throw TransferFailure("cannot resume after \(failedConnects) attempts: \(why)")
                    }
                }
                lostConnection = true
                hooks.report(.log("disconnected" + (error.map { ": \($0)" } ?? "")))
                return [.disconnected(at: now)]
            }
        }

        mutating func perform(_ action: TransferAction, _ machine: ReceiverMachine, _ edge: Edge<Input>) async throws -> Performed<ReceiverMachine.Event> {
            let incoming = options.incoming
            switch action {
            case .send(let message):
                await link.send(message)
            case .showPIN(let pin):
                hooks.showPIN(pin)
            case .confirmWipe(let meta):
                let hooks = hooks
                edge.spawn { edge.post(.confirmed(await hooks.confirmWipe(meta))) }
            case .checkPassword(let header):
                hooks.report(.log("checking the password against the backup's header"))
                let hooks = hooks
                edge.spawn { edge.post(.passwordChecked(await hooks.checkPassword(header))) }
            case .openFile(let meta):
                try open(meta)
            case .writeChunk(let index, let offset, let data):
                return try write(index, offset, data, edge)
            case .persistJournal(let journal):
                try incoming.save(journal)
                let held = Int64(journal.have.reduce(0) { $0 + $1.count })
                if held % 16 == 0 || held == journal.meta.chunkCount {
                    hooks.report(.progress(TransferProgress(bytes: min(journal.meta.fileSize, held * Int64(journal.meta.chunkSize)), total: journal.meta.fileSize)))
                }
            case .verifyFile(let meta):
                if let stream { return Performed(followUp: [.fileVerified(stream.verified, at: edge.now())]) }
                try file?.synchronize()
                let digest = try FileSystem.sha256(of: incoming.temporaryFile(meta))
                return Performed(followUp: [.fileVerified(digest == meta.envelopeSHA256, at: edge.now())])
            case .restore(let meta):
                try await restore(meta)
            case .close(let reason):
                hooks.report(.log("closing: \(reason)"))
                await link.close()
            case .reject(let violation):
                hooks.report(.violation(violation))
            case .sendChunk, .askPIN, .prepareBackup:
                break  // the sender's actions
            }
            return .done
        }

        private mutating func write(_ index: Int, _ offset: Int64, _ data: ArraySlice<UInt8>, _ edge: Edge<Input>) throws -> Performed<ReceiverMachine.Event> {
            guard stream != nil else {
                guard let file else { throw TransferFailure("chunk \(index) before the file was opened") }
                try file.seek(toOffset: UInt64(offset))
                try file.write(contentsOf: data)
                return .done
            }
            do {
                try stream!.write(index, data)
                return .done
            } catch let error as PackageError {
                // MIG-XFER-009: the sender's package breaks a rule; this chunk is not acknowledged.
                let violation = error.violation ?? Violation(rule: MigrationRule.streamedPackage, path: .root, expected: "a package this receiver unpacks", found: "\(error)")
                hooks.report(.log("the package is refused: \(error)"))
                return Performed(followUp: [.packageRefused(violation, at: edge.now())], skipsRest: true)
            }
        }

        private mutating func restore(_ meta: ControlMessage.BackupMeta) async throws {
            let incoming = options.incoming
            hooks.report(.log("package verified; restoring"))
            if stream != nil {
                do {
                    hooks.restoredStream(try stream!.restore.finish())
                } catch {
                    hooks.report(.log("restore refused: \(error)"))
                    if let violation = (error as? PackageError)?.violation { hooks.report(.violation(violation)) }
                    throw error
                }
                stream = nil
            } else {
                try? file?.close()
                file = nil
                try FileSystem.replace(incoming.finalFile(meta), with: incoming.temporaryFile(meta))
                try await hooks.restore(incoming.finalFile(meta), meta)
            }
            incoming.finish(meta)
        }

        mutating func settled(_ machine: ReceiverMachine, _ edge: Edge<Input>) async throws -> Settled<Ending, ReceiverMachine.Event> {
            switch machine.phase {
            case .awaitingPIN, .awaitingMeta, .confirming, .checkingPassword, .transferring, .paused, .verifying:
                // The sender greeted: whatever failed before is behind us.
                failedConnects = 0
                firstFailure = nil
            case .idle, .awaitingHandshake, .resuming, .disconnected, .done, .failed, .locked:
                break
            }
            switch machine.phase {
            case .done, .failed, .locked:
                try? file?.close()
                return .end(Ending(state: machine.state, pinAccepted: machine.pinAccepted, chunkFrames: line.count))
            case .disconnected where lostConnection:
                let connect = connector
                let delay = options.reconnectDelay
                edge.spawn { await connect(edge, delay) }
            default:
                break
            }
            return .goOn
        }
    }
}
