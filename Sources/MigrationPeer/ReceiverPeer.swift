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
        case connected(WebSocketWriter, UUID)
        case connectFailed(String)
        /// The sender's certificate is not trusted, or it answered the upgrade with a 4xx:
        /// retrying changes nothing.
        case refused(any Error)
        case received(WebSocketMessage, UUID)
        case disconnected(UUID, String?)
        /// The connection refused a frame (MIG-WS-001) and closed; `disconnected` follows.
        case frameRefused(UUID, WebSocketFrameRefused)
        case confirmed(Bool)
        case passwordChecked(ReceiverMachine.PasswordCheck)
        case tick
    }

    /// Runs one migration to its end (final state `done`, `failed` or `locked`).
    public static func run(options: Options, hooks: Hooks) async throws -> Ending {
        var random = GeneratorBytes(SystemRandomNumberGenerator())
        let incoming = options.incoming
        var machine: ReceiverMachine
        var configuration = options.configuration
        configuration.unpacksAsItArrives = options.streaming != nil
        var resumedFile: FileHandle?
        var stream: IncomingStream?
        if let journal = try incoming.journal() {
            if let target = options.streaming {
                stream = try IncomingStream(journal.meta, folder: incoming.folder, target: target, maxAhead: options.configuration.maxWindow)
            } else {
                resumedFile = try incoming.open(journal.meta)
            }
            hooks.report(.log("resuming backup \(journal.meta.backupId): \(journal.have.reduce(0) { $0 + $1.count }) of \(journal.meta.chunkCount) chunks held"))
            machine = ReceiverMachine(configuration: configuration, resuming: journal, random: &random)
        } else {
            machine = ReceiverMachine(configuration: configuration, random: &random)
        }
        let clock = SystemClock()
        let (inputs, mailbox) = AsyncStream.makeStream(of: Input.self)
        let maxFrame = BackupChunk.headerLength + options.configuration.maxChunkSize

        @Sendable func connect(after delay: Duration) async {
            if delay > .zero { try? await Task.sleep(for: delay) }
            let connection: WebSocketConnection
            do {
                connection = try await WebSocketClient.connect(
                    to: options.url, maxFrameSize: maxFrame, simulatedLatency: options.simulatedLatency, trust: options.trust)
            } catch let failure as TLSFailure {
                mailbox.yield(.refused(failure))
                return
            } catch let refusal as WebSocketUpgradeRefused where refusal.isPermanent {
                mailbox.yield(.refused(refusal))
                return
            } catch {
                mailbox.yield(.connectFailed("\(error)"))
                return
            }
            try? await connection.run { inbound, writer in
                let id = UUID()
                mailbox.yield(.connected(writer, id))
                do {
                    for try await message in inbound { mailbox.yield(.received(message, id)) }
                    mailbox.yield(.disconnected(id, nil))
                } catch let refused as WebSocketFrameRefused {
                    mailbox.yield(.frameRefused(id, refused))
                    mailbox.yield(.disconnected(id, "\(refused)"))
                } catch {
                    mailbox.yield(.disconnected(id, "\(error)"))
                }
            }
        }

        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await connect(after: .zero) }
            let alarm = DeadlineAlarm()
            defer {
                alarm.cancel()
                group.cancelAll()
            }

            var current: (writer: WebSocketWriter, id: UUID)?
            // A sender that stops reading would hold the loop in a send, where no tick reaches the
            // machine: a send waiting longer than the stall limit is the sender gone (MIG-XFER-005).
            let stallLimit = TimeAmount.milliseconds(configuration.stallTimeout)
            var file = resumedFile
            var failedConnects = 0
            // The first failure of a run of them: often the cause, where the last is only its echo.
            var firstFailure: String?
            var line = FaultyLine<[UInt8]>(options.faults) { frame in
                var frame = frame
                if let last = frame.indices.last { frame[last] ^= 0xFF }
                return frame
            }
            defer { try? file?.close() }
            for await input in inputs {
                let now = clock.now()
                var pending: [ReceiverMachine.Event] = []
                var lostConnection = false
                switch input {
                case .connected(let writer, let id):
                    current = (writer, id)
                    hooks.frame(.connected)
                    hooks.report(.log("connected to \(options.url)"))
                    pending.append(.connected(at: now))
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
                    group.addTask { await connect(after: options.reconnectDelay) }
                case .received(let message, let id):
                    guard current?.id == id else { continue }
                    hooks.frame(.received(message))
                    switch message {
                    case .text(let text):
                        switch ControlFrame.parse(text) {
                        case .success(let document): pending.append(.message(document, at: now))
                        case .failure(let violation): pending.append(.malformed(violation, at: now))
                        }
                    case .binary(let bytes):
                        if line.count == options.stopAfterChunks {
                            throw TransferFailure("stopped after \(line.count) chunks (fault injection)")
                        }
                        let (frames, disconnect) = line.pass(bytes)
                        pending += frames.map { .chunk($0, at: now) }
                        if disconnect {
                            hooks.report(.log("dropping the connection after \(line.count) chunks (fault injection)"))
                            current?.writer.abort()
                        }
                    }
                case .frameRefused(let id, let refused):
                    guard current?.id == id else { continue }
                    pending.append(.malformed(ControlFrame.refused(refused.description), at: now))
                case .disconnected(let id, let error):
                    guard current?.id == id else { continue }
                    current = nil
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
                    hooks.frame(.disconnected)
                    lostConnection = true
                    hooks.report(.log("disconnected" + (error.map { ": \($0)" } ?? "")))
                    pending.append(.disconnected(at: now))
                case .confirmed(let yes):
                    pending.append(.userConfirmed(yes, at: now))
                case .passwordChecked(let check):
                    pending.append(.passwordChecked(check, at: now))
                case .tick:
                    pending.append(.tick(at: now))
                }
                while !pending.isEmpty {
                    actions: for action in machine.handle(pending.removeFirst()) {
                        switch action {
                        case .send(let message):
                            let text = ControlFrame.encode(message)
                        hooks.frame(.sent(.text(text)))
                        try? await current?.writer.send(text: text, stallLimit: stallLimit)
                        case .showPIN(let pin):
                            hooks.showPIN(pin)
                        case .confirmWipe(let meta):
                            group.addTask { mailbox.yield(.confirmed(await hooks.confirmWipe(meta))) }
                        case .checkPassword(let header):
                            hooks.report(.log("checking the password against the backup's header"))
                            group.addTask { mailbox.yield(.passwordChecked(await hooks.checkPassword(header))) }
                        case .openFile(let meta):
                            if let target = options.streaming {
                                stream = try IncomingStream(meta, folder: incoming.folder, target: target, maxAhead: options.configuration.maxWindow)
                            } else {
                                file = try incoming.open(meta)
                            }
                        case .writeChunk(let index, _, let data) where stream != nil:
                            do {
                                try stream!.write(index, data)
                            } catch let error as PackageError {
                                // MIG-XFER-009: the sender's package breaks a rule; this chunk is not acknowledged.
                                let violation = error.violation ?? Violation(rule: MigrationRule.streamedPackage, path: .root, expected: "a package this receiver unpacks", found: "\(error)")
                                hooks.report(.log("the package is refused: \(error)"))
                                pending.append(.packageRefused(violation, at: clock.now()))
                                break actions
                            }
                        case .writeChunk(let index, let offset, let data):
                            guard let file else { throw TransferFailure("chunk \(index) before the file was opened") }
                            try file.seek(toOffset: UInt64(offset))
                            try file.write(contentsOf: data)
                        case .persistJournal(let journal):
                            try incoming.save(journal)
                            let held = Int64(journal.have.reduce(0) { $0 + $1.count })
                            if held % 16 == 0 || held == journal.meta.chunkCount {
                                hooks.report(.progress(TransferProgress(bytes: min(journal.meta.fileSize, held * Int64(journal.meta.chunkSize)), total: journal.meta.fileSize)))
                            }
                        case .verifyFile where stream != nil:
                            pending.append(.fileVerified(stream!.verified, at: clock.now()))
                        case .restore(let meta) where stream != nil:
                            hooks.report(.log("package verified; restoring"))
                            do {
                                hooks.restoredStream(try stream!.restore.finish())
                            } catch {
                                hooks.report(.log("restore refused: \(error)"))
                                if let violation = (error as? PackageError)?.violation { hooks.report(.violation(violation)) }
                                throw error
                            }
                            stream = nil
                            incoming.finish(meta)
                        case .verifyFile(let meta):
                            try file?.synchronize()
                            let digest = try FileSystem.sha256(of: incoming.temporaryFile(meta))
                            pending.append(.fileVerified(digest == meta.envelopeSHA256, at: clock.now()))
                        case .restore(let meta):
                            try? file?.close()
                            file = nil
                            try FileSystem.replace(incoming.finalFile(meta), with: incoming.temporaryFile(meta))
                            hooks.report(.log("package verified; restoring"))
                            try await hooks.restore(incoming.finalFile(meta), meta)
                            incoming.finish(meta)
                        case .close(let reason):
                            hooks.report(.log("closing: \(reason)"))
                            await current?.writer.close()
                        case .reject(let violation):
                            hooks.report(.violation(violation))
                        case .sendChunk, .askPIN, .prepareBackup:
                            continue
                        }
                    }
                }
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
                    return Ending(state: machine.state, pinAccepted: machine.pinAccepted, chunkFrames: line.count)
                case .disconnected where lostConnection:
                    group.addTask { await connect(after: options.reconnectDelay) }
                default:
                    break
                }
                alarm.set(machine.nextDeadline, now: clock.now()) { mailbox.yield(.tick) }
            }
            return Ending(state: machine.state, pinAccepted: machine.pinAccepted, chunkFrames: line.count)
        }
    }
}
