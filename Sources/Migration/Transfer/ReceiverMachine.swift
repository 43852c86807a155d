import Foundation
import WireCore

/// The new phone (seed 000 §2.1, §7.3): connects, shows a PIN, checks BackupMeta, receives
/// chunks with acknowledgements, verifies the whole file, then restores. Sans-I/O: events in,
/// actions out, time passed in.
public struct ReceiverMachine: Sendable {
    public enum State: Sendable, Hashable {
        case idle
        case awaitingHandshake
        case awaitingPIN(attemptsLeft: Int)
        case awaitingMeta
        case confirming
        /// Consent given; the password is being checked against the envelope header (MIG-META-002).
        case checkingPassword
        case transferring
        case paused
        case verifying
        case done
        case disconnected
        /// Reconnected: waiting for the same sender's Handshake before presenting the token.
        case resuming
        case failed(String)
        case locked
    }

    public enum Event: Sendable, Hashable {
        case connected(at: EpochMillis)
        case message(JSONValue, at: EpochMillis)
        case chunk([UInt8], at: EpochMillis)
        /// A text frame that is not JSON (the edge parses; the machine decides what it means).
        case malformed(Violation, at: EpochMillis)
        case userConfirmed(Bool, at: EpochMillis)
        case userPause(at: EpochMillis)
        case userResume(at: EpochMillis)
        case userCancel(at: EpochMillis)
        case fileVerified(Bool, at: EpochMillis)
        /// The answer to `checkPassword`.
        case passwordChecked(PasswordCheck, at: EpochMillis)
        case disconnected(at: EpochMillis)
        case tick(at: EpochMillis)
    }

    public struct Configuration: Sendable, Hashable {
        public var appVersion = "1.0.0"
        public var supportedSchemaVersion: Int64 = 1
        public var deviceName = "New iPhone"
        public var maxWindow = 16
        public var maxChunkSize = 1 << 20
        /// Bytes free for the package, its zip and the unpacked store.
        public var freeSpace: Int64 = .max
        /// No chunk for this long while transferring: the connection is presumed dead (MIG-XFER-005).
        public var stallTimeout: EpochMillis = 30_000
        /// Retransmit requests for one chunk before the transfer is cancelled (MIG-XFER-002):
        /// with the first copy, the sender's 5 sends.
        public var maxRetransmitsPerChunk = 4
        public init() {}
    }

    /// What checking the password against an envelope header found (MIG-META-002).
    public enum PasswordCheck: Sendable, Hashable {
        case opens
        case wrongPassword
        /// The header is not an envelope header this receiver can open: the sender's fault.
        case invalidHeader(Violation)
        /// The edge has no password to check with (a conformance runner without one): the
        /// transfer goes on, and the restore will check.
        case notChecked
    }

    public static let pinAttempts = 5

    public private(set) var state: State = .idle
    public let configuration: Configuration
    public let pin: String
    public let resumeToken: String
    public let sessionId: String
    public private(set) var meta: ControlMessage.BackupMeta?
    public private(set) var have = ChunkSet()
    private var lastActivity: EpochMillis = 0
    private var window = 1
    /// Retransmit requests per chunk (MIG-XFER-002).
    private var retransmits: [Int: Int] = [:]
    /// Whether the sender entered the right PIN in this session (MIG-PIN-003 counts sessions
    /// that ended locked, and forgets them once a PIN was accepted).
    public private(set) var pinAccepted = false

    /// `random` gives the PIN (MIG-PIN-001), the resume token and the session id.
    public init<R: RandomByteSource>(configuration: Configuration = Configuration(), random: inout R) {
        self.configuration = configuration
        let pin = SixDigitCode.draw(from: &random)
        let token = random.next(16)
        let session = random.next(16)
        // A source that runs out must not turn into a guessable PIN: the machine refuses to start.
        randomRanOut = pin == nil || token == nil || session == nil
        self.pin = pin ?? ""
        resumeToken = (token ?? []).hexEncoded
        sessionId = session.map(Self.uuid) ?? ""
    }

    private let randomRanOut: Bool

    /// A receiver restarted with its journal: it reconnects and resumes (MIG-XFER-003).
    public init<R: RandomByteSource>(configuration: Configuration = Configuration(), resuming journal: TransferJournal, random: inout R) {
        self.init(configuration: configuration, random: &random)
        self.meta = journal.meta
        self.have = ChunkSet(journal.have)
        self.resumeTokenOverride = journal.resumeToken
        self.senderSessionId = journal.senderSessionId
        state = .disconnected
    }

    private var resumeTokenOverride: String?
    /// The sender this session authenticated; only it gets the resume token (MIG-XFER-003).
    public private(set) var senderSessionId: String?
    /// The chunks the last ResumeTransfer listed.
    private var declaredHeld = ChunkSet()
    private var token: String { resumeTokenOverride ?? resumeToken }

    public var journal: TransferJournal? {
        meta.map { TransferJournal(meta: $0, resumeToken: token, senderSessionId: senderSessionId ?? "", have: have.ranges) }
    }

    public mutating func handle(_ event: Event) -> [TransferAction] {
        switch event {
        case .connected(let at):
            lastActivity = at
            let hello = TransferAction.send(.handshake(handshake))
            if case .disconnected = state, meta != nil {
                state = .resuming
                return [hello]
            }
            guard case .idle = state else { return [] }
            if randomRanOut {
                state = .failed("no-random")
                return [
                    .close(reason: "no random bytes for the PIN"),
                    .reject(violation(MigrationRule.pinDraw, "random bytes for the PIN, the resume token and the session id", "a source that ran out")),
                ]
            }
            state = .awaitingHandshake
            return [hello]
        case .message(let document, let at):
            guard isOpen else { return [] }
            lastActivity = at
            let message: ControlMessage
            do throws(Violation) {
                message = try ControlMessage.decode(document)
            } catch {
                return fail(.protocolError, error)
            }
            return received(message, at: at)
        case .malformed(let violation, let at):
            guard isOpen else { return [] }
            lastActivity = at
            return fail(.protocolError, violation)
        case .chunk(let bytes, let at):
            guard isOpen else { return [] }
            lastActivity = at
            return chunk(bytes)
        case .userConfirmed(let yes, _):
            guard case .confirming = state, let meta else { return [] }
            guard yes else {
                state = .failed("user-declined")
                return [.send(.cancelTransfer(backupId: meta.backupId, reason: .userDeclined)), .close(reason: "the user declined")]
            }
            // MIG-META-002: with the envelope's header, the password is checked before any chunk.
            if let header = meta.envelopeHeader {
                state = .checkingPassword
                return [.checkPassword(header: header)]
            }
            state = .transferring
            return [.openFile(meta), .send(.startTransfer(backupId: meta.backupId, window: window))]
        case .passwordChecked(let check, _):
            guard case .checkingPassword = state, let meta else { return [] }
            switch check {
            case .opens, .notChecked:
                state = .transferring
                return [.openFile(meta), .send(.startTransfer(backupId: meta.backupId, window: window))]
            case .wrongPassword:
                // Not the sender's fault: no violation, the same outcome on both sides.
                state = .failed(ControlMessage.CancelReason.wrongPassword.rawValue)
                return [.send(.cancelTransfer(backupId: meta.backupId, reason: .wrongPassword)), .close(reason: "the password does not open this backup")]
            case .invalidHeader(let why):
                return fail(.protocolError, why)
            }
        case .userPause:
            guard case .transferring = state, let meta else { return [] }
            state = .paused
            return [.send(.pauseTransfer(backupId: meta.backupId))]
        case .userResume:
            guard case .paused = state, let meta else { return [] }
            state = .transferring
            return [.send(.resumeTransfer(.init(backupId: meta.backupId)))]
        case .userCancel:
            if case .done = state { return [] }
            state = .failed("user-cancelled")
            return [.send(.cancelTransfer(backupId: meta?.backupId, reason: .userCancelled)), .close(reason: "cancelled")]
        case .fileVerified(let ok, _):
            guard case .verifying = state, let meta else { return [] }
            guard ok else {
                state = .failed("digest-mismatch")
                return [
                    .send(.complete(.digestMismatch(backupId: meta.backupId))),
                    .reject(Violation(rule: MigrationRule.finalDigest, path: .root, expected: meta.envelopeSHA256, found: "another digest")),
                ]
            }
            state = .done
            return [.send(.complete(.verified(backupId: meta.backupId))), .restore(meta)]
        case .disconnected:
            switch state {
            case .transferring, .paused, .verifying, .resuming:
                state = .disconnected
            case .done, .failed, .locked, .disconnected:
                break
            default:
                // Before the transfer nothing is worth keeping: a new connection starts over with a new PIN.
                state = .failed("disconnected")
            }
            return []
        case .tick(let at):
            if case .transferring = state, at - lastActivity > configuration.stallTimeout {
                state = .disconnected
                return [.close(reason: "no data for \(configuration.stallTimeout) ms"),
                        .reject(Violation(rule: MigrationRule.timeouts, path: .root, expected: "data within \(configuration.stallTimeout) ms", found: "\(at - lastActivity) ms of silence"))]
            }
            return []
        }
    }

    /// Frames that arrive after this side closed, or after the session ended, are not read.
    var isOpen: Bool {
        switch state {
        case .disconnected, .done, .failed, .locked, .idle: return false
        default: return true
        }
    }

    var handshake: ControlMessage.Handshake {
        .init(role: .receiver, sessionId: sessionId, appVersion: configuration.appVersion, schemaVersion: configuration.supportedSchemaVersion,
              deviceName: configuration.deviceName, maxWindow: configuration.maxWindow, maxChunkSize: configuration.maxChunkSize)
    }

    private mutating func received(_ message: ControlMessage, at: EpochMillis) -> [TransferAction] {
        switch (state, message) {
        case (.awaitingHandshake, .handshake(let h)):
            guard h.role == .sender else { return fail(.protocolError, violation(MigrationRule.handshake, "a sender's Handshake", "role receiver")) }
            window = min(configuration.maxWindow, h.maxWindow)
            senderSessionId = h.sessionId
            state = .awaitingPIN(attemptsLeft: Self.pinAttempts)
            return [.showPIN(pin)]
        case (.resuming, .handshake(let h)):
            // MIG-XFER-003: the token goes only to the sender that was authenticated with the PIN.
            guard h.role == .sender, h.sessionId == senderSessionId, let meta else {
                return fail(.protocolError, violation(MigrationRule.resume, "the session's sender \(senderSessionId ?? "?")", "\(h.role.rawValue) \(h.sessionId)"))
            }
            state = .transferring
            declaredHeld = have
            return [.send(.resumeTransfer(.init(backupId: meta.backupId, resumeToken: token, window: window, have: have.ranges)))]
        case (.awaitingPIN(let left), .authPIN(.request(let entered))):
            // MIG-PIN-002: five wrong PINs lock the session.
            if entered == pin {
                state = .awaitingMeta
                pinAccepted = true
                return [.send(.authPIN(.accepted(resumeToken: token)))]
            }
            if left <= 1 {
                state = .locked
                return [
                    .send(.authPIN(.locked)), .close(reason: "too many wrong PINs"),
                    .reject(violation(MigrationRule.pinAttempts, "at most \(Self.pinAttempts) attempts", "\(Self.pinAttempts) wrong PINs")),
                ]
            }
            state = .awaitingPIN(attemptsLeft: left - 1)
            return [.send(.authPIN(.rejected(attemptsLeft: left - 1)))]
        case (.awaitingMeta, .startBackup):
            return []
        case (.awaitingMeta, .backupMeta(let m)):
            meta = m
            // MIG-META-001: schema compatibility, then space, then the user's consent.
            if m.schemaVersion > configuration.supportedSchemaVersion {
                return fail(.schemaIncompatible, violation(MigrationRule.metaChecks, "schemaVersion ≤ \(configuration.supportedSchemaVersion)", "\(m.schemaVersion)"))
            }
            let needed = m.fileSize + 2 * m.zipSize
            if needed > configuration.freeSpace {
                return fail(.insufficientSpace, violation(MigrationRule.metaChecks, "\(needed) bytes free", "\(configuration.freeSpace)"))
            }
            if m.chunkSize > configuration.maxChunkSize {
                return fail(.protocolError, violation(MigrationRule.metaChecks, "chunks of at most \(configuration.maxChunkSize) bytes", "\(m.chunkSize)"))
            }
            state = .confirming
            return [.confirmWipe(m)]
        case (.transferring, .pauseTransfer):
            state = .paused
            return []
        case (.paused, .resumeTransfer):
            state = .transferring
            return []
        case (_, .cancelTransfer(_, let reason)):
            state = .failed(reason.rawValue)
            return [.close(reason: "the sender cancelled: \(reason.rawValue)")]
        case (.verifying, .complete(.sent(let id, let count, let digest))), (.transferring, .complete(.sent(let id, let count, let digest))):
            guard let meta, have.count == meta.chunkCount else {
                return fail(.protocolError, violation(MigrationRule.order, "Complete after every chunk", "Complete with \(have.count) of \(meta?.chunkCount ?? 0) chunks"))
            }
            // MIG-XFER-004: Complete repeats what BackupMeta announced; anything else is not this backup.
            for (key, announced, found) in [
                ("backupId", meta.backupId, id), ("chunkCount", "\(meta.chunkCount)", "\(count)"), ("envelopeSHA256", meta.envelopeSHA256, digest),
            ] where announced != found {
                return fail(
                    .protocolError,
                    Violation(rule: MigrationRule.finalDigest, path: .root / "payload" / key, expected: "\(announced) as in BackupMeta", found: found))
            }
            state = .verifying
            return [.verifyFile(expectedSHA256: meta.envelopeSHA256)]
        default:
            return fail(.protocolError, violation(MigrationRule.order, "a message the session expects now", "\(message.json["type"]?.stringValue ?? "?") in \(state)"))
        }
    }

    private mutating func chunk(_ bytes: [UInt8]) -> [TransferAction] {
        guard case .transferring = state, let meta else {
            return fail(.protocolError, violation(MigrationRule.order, "chunks only while transferring", "a chunk in \(state)"))
        }
        let chunk: BackupChunk
        do throws(Violation) {
            chunk = try BackupChunk.decode(bytes)
            try chunk.checkPlace(against: meta)
        } catch {
            return fail(.protocolError, error)
        }
        if have.contains(chunk.index) {
            let ack = TransferAction.send(.chunkAck(backupId: meta.backupId, index: chunk.index, status: .ok))
            // MIG-XFER-003: what ResumeTransfer declared held must not cross the wire again.
            guard declaredHeld.contains(chunk.index) else { return [ack] }
            return [ack, .reject(Violation(rule: MigrationRule.resume, path: .root / "index", byteOffset: 24, expected: "only chunks the ResumeTransfer did not list", found: "chunk \(chunk.index) again"))]
        }
        // MIG-XFER-002: a chunk whose digest is wrong is asked again, a bounded number of times;
        // nothing is written.
        guard chunk.digestMatches else {
            guard retransmits[chunk.index, default: 0] < configuration.maxRetransmitsPerChunk else {
                return fail(
                    .tooManyRetransmits,
                    Violation(
                        rule: MigrationRule.retransmit, path: .root / "chunkSHA256", byteOffset: 40,
                        expected: "chunk \(chunk.index) intact within \(configuration.maxRetransmitsPerChunk + 1) copies",
                        found: "\(configuration.maxRetransmitsPerChunk + 1) damaged copies"))
            }
            retransmits[chunk.index, default: 0] += 1
            return [
                .send(.chunkAck(backupId: meta.backupId, index: chunk.index, status: .retransmit)),
                .reject(Violation(rule: MigrationRule.chunkDigest, path: .root / "chunkSHA256", byteOffset: 40, expected: "the SHA-256 of the data", found: "another digest for chunk \(chunk.index)")),
            ]
        }
        // MIG-XFER-001: every chunk below this one that is still missing was never acknowledged, so the
        // sender had at least that many outstanding besides this one. The data is good: it is kept.
        let outstanding = chunk.index - have.count(below: chunk.index) + 1
        have.insert(chunk.index)
        let journal = TransferJournal(meta: meta, resumeToken: token, senderSessionId: senderSessionId ?? "", have: have.ranges)
        // Written, then journaled, then acknowledged: an acknowledged chunk is on disk.
        var actions: [TransferAction] = [
            .writeChunk(index: chunk.index, offset: chunk.offset, data: chunk.data), .persistJournal(journal),
            .send(.chunkAck(backupId: meta.backupId, index: chunk.index, status: .ok)),
        ]
        if outstanding > window {
            actions.append(.reject(violation(MigrationRule.window, "at most \(window) chunks unacknowledged", "chunk \(chunk.index) with \(outstanding) outstanding")))
        }
        return actions
    }

    private mutating func fail(_ reason: ControlMessage.CancelReason, _ why: Violation) -> [TransferAction] {
        state = .failed(reason.rawValue)
        return [.send(.cancelTransfer(backupId: meta?.backupId, reason: reason)), .close(reason: why.description), .reject(why)]
    }

    private func violation(_ rule: RuleID, _ expected: String, _ found: String) -> Violation {
        Violation(rule: rule, path: .root, expected: expected, found: found)
    }

    static func uuid(_ bytes: [UInt8]) -> String {
        var b = bytes
        b[6] = b[6] & 0x0F | 0x40
        b[8] = b[8] & 0x3F | 0x80
        return BackupChunk.uuidString(b)
    }
}
