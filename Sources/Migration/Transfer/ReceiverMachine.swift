import Foundation
import WireCore

/// The new phone (seed 000 §2.1, §7.3): connects, shows a PIN, checks BackupMeta, receives
/// chunks with acknowledgements, verifies the whole file, then restores. Sans-I/O: events in,
/// actions out, time passed in.
public struct ReceiverMachine: TimedMachine {
    /// The state's name, as the vectors spell it (Spec/migration.md 5.3).
    public enum Phase: String, Sendable, CaseIterable {
        case idle, awaitingHandshake, awaitingPIN, awaitingMeta, confirming, checkingPassword, transferring, paused, verifying, done
        case disconnected, resuming, failed, locked
    }

    /// An announced backup being received: its file's chunks and what the session knows of them.
    public struct Reception: Sendable, Hashable {
        public let meta: ControlMessage.BackupMeta
        /// Chunks written and journaled.
        public fileprivate(set) var have = ChunkSet()
        /// A receiver that unpacks as chunks arrive: good chunks ahead of a missing one, handed to
        /// the edge to keep aside and not yet acknowledged (§5.5), so the sender's window bounds them.
        public fileprivate(set) var held: Set<Int> = []
        /// Retransmit requests per chunk (MIG-XFER-002).
        fileprivate var retransmits: [Int: Int] = [:]
        /// The chunks the last ResumeTransfer listed (MIG-XFER-003).
        fileprivate var declaredHeld = ChunkSet()
        /// When the sender last sent anything (MIG-XFER-005's stall).
        fileprivate var lastActivity: EpochMillis
    }

    public enum State: Sendable, Hashable {
        case idle
        /// Greeted; waiting for the sender's Handshake since the connection opened (MIG-XFER-007).
        case awaitingHandshake(since: EpochMillis)
        case awaitingPIN(attemptsLeft: Int)
        case awaitingMeta
        case confirming(Reception)
        /// Consent given; the password is being checked against the envelope header (MIG-META-002).
        case checkingPassword(Reception)
        case transferring(Reception)
        case paused(Reception)
        case verifying(Reception)
        case done(Reception)
        case disconnected(Reception)
        /// Reconnected: waiting for the same sender's Handshake before presenting the token
        /// (since the reception's `lastActivity`, the connection's opening).
        case resuming(Reception)
        case failed(SessionFailure, Reception?)
        case locked

        public var phase: Phase {
            switch self {
            case .idle: return .idle
            case .awaitingHandshake: return .awaitingHandshake
            case .awaitingPIN: return .awaitingPIN
            case .awaitingMeta: return .awaitingMeta
            case .confirming: return .confirming
            case .checkingPassword: return .checkingPassword
            case .transferring: return .transferring
            case .paused: return .paused
            case .verifying: return .verifying
            case .done: return .done
            case .disconnected: return .disconnected
            case .resuming: return .resuming
            case .failed: return .failed
            case .locked: return .locked
            }
        }

        /// The announced backup, from BackupMeta on (kept in `done` and `failed`).
        public var reception: Reception? {
            switch self {
            case .confirming(let r), .checkingPassword(let r), .transferring(let r), .paused(let r), .verifying(let r), .done(let r),
                .disconnected(let r), .resuming(let r):
                return r
            case .failed(_, let r): return r
            case .idle, .awaitingHandshake, .awaitingPIN, .awaitingMeta, .locked: return nil
            }
        }

        /// The same state with its reception replaced.
        func with(_ r: Reception) -> State {
            switch self {
            case .confirming: return .confirming(r)
            case .checkingPassword: return .checkingPassword(r)
            case .transferring: return .transferring(r)
            case .paused: return .paused(r)
            case .verifying: return .verifying(r)
            case .done: return .done(r)
            case .disconnected: return .disconnected(r)
            case .resuming: return .resuming(r)
            case .failed(let reason, _): return .failed(reason, r)
            case .idle, .awaitingHandshake, .awaitingPIN, .awaitingMeta, .locked: return self
            }
        }

        /// Frames that arrive after this side closed, or after the session ended, are not read.
        var isOpen: Bool {
            switch self {
            case .disconnected, .done, .failed, .locked, .idle: return false
            default: return true
            }
        }
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
        /// An edge that unpacks the package as its chunks arrive found it broken: the sender's
        /// package breaks the rule named (MIG-XFER-009).
        case packageRefused(Violation, at: EpochMillis)
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
        /// The edge unpacks the package as its chunks arrive (§5.5): no package file, so the room
        /// needed is the unpacked store and a window of chunks kept aside (MIG-META-001).
        public var unpacksAsItArrives = false
        /// No chunk for this long while transferring: the connection is presumed dead (MIG-XFER-005).
        public var stallTimeout: EpochMillis = 30_000
        /// No Handshake from the sender for this long after connecting: the session ends (MIG-XFER-007).
        public var handshakeTimeout: EpochMillis = 10_000
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

    public private(set) var state: State = .idle
    public let configuration: Configuration
    /// The PIN this receiver shows; empty when the random source ran out (it will not start).
    public let pin: String
    public let resumeToken: String
    public let sessionId: String
    /// The window both Handshakes allow: a session parameter.
    private var window = 1
    /// The sender this session authenticated; only it gets the resume token (MIG-XFER-003).
    public private(set) var senderSessionId: String?
    /// Whether the sender entered the right PIN in this session (MIG-PIN-003 counts sessions
    /// that ended locked, and forgets them once a PIN was accepted).
    public private(set) var pinAccepted = false

    /// `random` gives the PIN (MIG-PIN-001), the resume token and the session id.
    public init<R: RandomByteSource>(configuration: Configuration = Configuration(), random: inout R) {
        self.init(configuration, drawing: &random, journal: nil)
    }

    /// A receiver restarted with its journal: it reconnects and resumes (MIG-XFER-003) with the
    /// journal's token, for the sender the journal names.
    public init<R: RandomByteSource>(configuration: Configuration = Configuration(), resuming journal: TransferJournal, random: inout R) {
        self.init(configuration, drawing: &random, journal: journal)
    }

    private init<R: RandomByteSource>(_ configuration: Configuration, drawing random: inout R, journal: TransferJournal?) {
        self.configuration = configuration
        let pin = SixDigitCode.draw(from: &random)
        let token = random.next(16)
        let session = random.next(16)
        // A source that runs out must not turn into a guessable PIN: the values stay empty and
        // the machine refuses to start.
        let drawn = pin != nil && token != nil && session != nil
        self.pin = drawn ? pin ?? "" : ""
        resumeToken = journal?.resumeToken ?? (drawn ? (token ?? []).hexEncoded : "")
        sessionId = drawn ? session.map { uuidV4Text(random: $0) } ?? "" : ""
        if let journal {
            senderSessionId = journal.senderSessionId
            state = .disconnected(Reception(meta: journal.meta, have: ChunkSet(journal.have), lastActivity: 0))
        }
    }

    public var phase: Phase { state.phase }

    /// The earliest time at which `tick` has something to do ("more than", so one millisecond
    /// past each limit): the stall limit while transferring (MIG-XFER-005), the wait for the
    /// sender's Handshake on a connection (MIG-XFER-007).
    public var nextDeadline: EpochMillis? {
        switch state {
        case .transferring(let r): return r.lastActivity + configuration.stallTimeout + 1
        case .awaitingHandshake(let since): return since + configuration.handshakeTimeout + 1
        case .resuming(let r): return r.lastActivity + configuration.handshakeTimeout + 1
        case .idle, .awaitingPIN, .awaitingMeta, .confirming, .checkingPassword, .paused, .verifying, .done, .disconnected, .failed, .locked: return nil
        }
    }

    public var journal: TransferJournal? {
        state.reception.map { TransferJournal(meta: $0.meta, resumeToken: resumeToken, senderSessionId: senderSessionId ?? "", have: $0.have.ranges) }
    }

    public static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    public mutating func step(_ event: Event) -> Step<TransferAction> {
        switch event {
        case .connected(let at):
            return connected(at: at)
        case .message(let document, let at):
            guard state.isOpen else { return .ignored("no connection is open") }
            touch(at)
            let message: ControlMessage
            do throws(Violation) {
                message = try ControlMessage.decode(document)
            } catch {
                return fail(.protocolError, error)
            }
            return received(message, at: at)
        case .malformed(let violation, let at):
            guard state.isOpen else { return .ignored("no connection is open") }
            touch(at)
            return fail(.protocolError, violation)
        case .chunk(let bytes, let at):
            guard state.isOpen else { return .ignored("no connection is open") }
            touch(at)
            return chunk(bytes)
        case .userConfirmed(let yes, let at):
            return confirmed(yes, at: at)
        case .passwordChecked(let check, let at):
            return passwordChecked(check, at: at)
        case .userPause:
            guard case .transferring(let r) = state else { return .ignored("nothing is being received") }
            state = .paused(r)
            return [.send(.pauseTransfer(backupId: r.meta.backupId))]
        case .userResume(let at):
            // Nothing was owed while paused: silence counts again from the resume.
            guard case .paused(var r) = state else { return .ignored("not paused") }
            r.lastActivity = at
            state = .transferring(r)
            return [.send(.resumeTransfer(.init(backupId: r.meta.backupId)))]
        case .userCancel:
            return cancelledByUser()
        case .packageRefused(let why, _):
            switch state {
            case .transferring: return fail(.protocolError, why)
            case .idle, .awaitingHandshake, .awaitingPIN, .awaitingMeta, .confirming, .checkingPassword, .paused, .verifying, .resuming, .disconnected,
                .done, .failed, .locked:
                return .ignored("chunks are unpacked only while transferring")
            }
        case .fileVerified(let ok, _):
            return fileVerified(ok)
        case .disconnected:
            return disconnected()
        case .tick(let at):
            return timeouts(at: at)
        }
    }

    /// A connection opened: greet, or resume after a drop.
    private mutating func connected(at: EpochMillis) -> Step<TransferAction> {
        touch(at)
        let hello = TransferAction.send(.handshake(handshake))
        if case .disconnected(let r) = state {
            state = .resuming(r)
            return [hello]
        }
        guard case .idle = state else { return .ignored("a sender is connected already, or the session has ended") }
        if pin.isEmpty || resumeToken.isEmpty || sessionId.isEmpty {
            state = .failed(.noRandom, nil)
            return [
                .close(reason: "no random bytes for the PIN"),
                .reject(violation(MigrationRule.pinDraw, "random bytes for the PIN, the resume token and the session id", "a source that ran out")),
            ]
        }
        state = .awaitingHandshake(since: at)
        return [hello]
    }

    /// The user's answer to the wipe (MIG-META-002 checks the password first when it can).
    private mutating func confirmed(_ yes: Bool, at: EpochMillis) -> Step<TransferAction> {
        guard case .confirming(var r) = state else { return .ignored("nothing is waiting for the user's answer") }
        guard yes else {
            state = .failed(.cancelled(.userDeclined), r)
            return [.send(.cancelTransfer(backupId: r.meta.backupId, reason: .userDeclined)), .close(reason: "the user declined")]
        }
        // MIG-META-002: with the envelope's header, the password is checked before any chunk.
        if let header = r.meta.envelopeHeader {
            state = .checkingPassword(r)
            return [.checkPassword(header: header)]
        }
        // MIG-XFER-005: silence counts from when the transfer was asked for, not from the
        // meta: a user who took a minute to confirm is not a stalled sender.
        r.lastActivity = at
        state = .transferring(r)
        return [.openFile(r.meta), .send(.startTransfer(backupId: r.meta.backupId, window: window))]
    }

    /// The password check's result, before any chunk is asked for.
    private mutating func passwordChecked(_ check: PasswordCheck, at: EpochMillis) -> Step<TransferAction> {
        guard case .checkingPassword(var r) = state else { return .ignored("no password is being checked") }
        switch check {
        case .opens, .notChecked:
            r.lastActivity = at
            state = .transferring(r)
            return [.openFile(r.meta), .send(.startTransfer(backupId: r.meta.backupId, window: window))]
        case .wrongPassword:
            // Not the sender's fault: no violation, the same outcome on both sides.
            state = .failed(.cancelled(.wrongPassword), r)
            return [.send(.cancelTransfer(backupId: r.meta.backupId, reason: .wrongPassword)), .close(reason: "the password does not open this backup")]
        case .invalidHeader(let why):
            return fail(.protocolError, why)
        }
    }

    /// The user cancelled (MIG-MSG-007).
    private mutating func cancelledByUser() -> Step<TransferAction> {
        switch state {
        case .done, .failed, .locked: return .ignored("the session has ended")
        default: break
        }
        let reception = state.reception
        let connected = state.isOpen
        state = .failed(.cancelled(.userCancelled), reception)
        // With no connection open there is nobody to tell (MIG-MSG-007).
        return connected ? [.send(.cancelTransfer(backupId: reception?.meta.backupId, reason: .userCancelled)), .close(reason: "cancelled")] : []
    }

    /// The assembled file against the announced digest (MIG-XFER-004).
    private mutating func fileVerified(_ ok: Bool) -> Step<TransferAction> {
        guard case .verifying(let r) = state else { return .ignored("no file is being verified") }
        guard ok else {
            state = .failed(.cancelled(.digestMismatch), r)
            return [
                .send(.complete(.digestMismatch(backupId: r.meta.backupId))),
                .reject(Violation(rule: MigrationRule.finalDigest, path: .root, expected: r.meta.envelopeSHA256, found: "another digest")),
            ]
        }
        state = .done(r)
        return [.send(.complete(.verified(backupId: r.meta.backupId))), .restore(r.meta)]
    }

    /// The connection dropped: what is worth keeping is kept.
    private mutating func disconnected() -> Step<TransferAction> {
        switch state {
        case .transferring(let r), .paused(let r), .verifying(let r), .resuming(let r):
            state = .disconnected(r)
        case .done, .failed, .locked, .disconnected:
            return .ignored("the session had ended or was disconnected already")
        case .idle, .awaitingHandshake, .awaitingPIN, .awaitingMeta, .confirming, .checkingPassword:
            // Before the transfer nothing is worth keeping: a new connection starts over with a new PIN.
            state = .failed(.disconnected, state.reception)
        }
        return []
    }

    /// What the clock ends: a stalled transfer (MIG-XFER-005), a sender that never greets (MIG-XFER-007).
    private mutating func timeouts(at: EpochMillis) -> Step<TransferAction> {
        switch state {
        case .transferring(let r) where at - r.lastActivity > configuration.stallTimeout:
            state = .disconnected(r)
            return [.close(reason: "no data for \(configuration.stallTimeout) ms"),
                    .reject(Violation(rule: MigrationRule.timeouts, path: .root, expected: "data within \(configuration.stallTimeout) ms", found: "\(at - r.lastActivity) ms of silence"))]
        case .awaitingHandshake(let since) where at - since > configuration.handshakeTimeout:
            return Step(ungreeted(since: since, at: at, nil))
        case .resuming(let r) where at - r.lastActivity > configuration.handshakeTimeout:
            return Step(ungreeted(since: r.lastActivity, at: at, r))
        case .idle, .awaitingHandshake, .awaitingPIN, .awaitingMeta, .confirming, .checkingPassword, .transferring, .paused, .verifying, .done,
            .disconnected, .resuming, .failed, .locked:
            return .ignored("no deadline has passed")
        }
    }

    /// MIG-XFER-007: a sender that accepts the connection and never greets holds no receiver. A
    /// connection that has not greeted is only closed (MIG-MSG-007); the journal stays, so a
    /// receiver started again still resumes.
    private mutating func ungreeted(since: EpochMillis, at: EpochMillis, _ reception: Reception?) -> [TransferAction] {
        state = .failed(.cancelled(.timeout), reception)
        return [
            .close(reason: "no Handshake within \(configuration.handshakeTimeout) ms"),
            .reject(violation(MigrationRule.greeting, "the sender's Handshake within \(configuration.handshakeTimeout) ms of connecting", "\(at - since) ms without one")),
        ]
    }

    /// The sender was heard from at `at` (MIG-XFER-005 counts silence from here).
    private mutating func touch(_ at: EpochMillis) {
        guard var r = state.reception else { return }
        r.lastActivity = at
        state = state.with(r)
    }

    var handshake: ControlMessage.Handshake {
        .init(role: .receiver, sessionId: sessionId, appVersion: configuration.appVersion, schemaVersion: configuration.supportedSchemaVersion,
              deviceName: configuration.deviceName, maxWindow: configuration.maxWindow, maxChunkSize: configuration.maxChunkSize)
    }

    private mutating func received(_ message: ControlMessage, at: EpochMillis) -> Step<TransferAction> {
        switch (state, message) {
        case (.awaitingHandshake, .handshake(let h)):
            guard h.role == .sender else { return fail(.protocolError, violation(MigrationRule.handshake, "a sender's Handshake", "role receiver")) }
            window = min(configuration.maxWindow, h.maxWindow)
            senderSessionId = h.sessionId
            state = .awaitingPIN(attemptsLeft: PINLockout.attemptsPerSession)
            return [.showPIN(pin)]
        case (.resuming(var r), .handshake(let h)):
            // MIG-XFER-003: the token goes only to the sender that was authenticated with the PIN.
            guard h.role == .sender, h.sessionId == senderSessionId else {
                return fail(.protocolError, violation(MigrationRule.resume, "the session's sender \(senderSessionId ?? "?")", "\(h.role.rawValue) \(h.sessionId)"))
            }
            r.declaredHeld = r.have
            // What was held is not in the ResumeTransfer's list, so it comes again.
            r.held = []
            state = .transferring(r)
            return [.send(.resumeTransfer(.init(backupId: r.meta.backupId, resumeToken: resumeToken, window: window, have: r.have.ranges)))]
        case (.awaitingPIN(let left), .authPIN(.request(let entered))):
            // MIG-PIN-002: five wrong PINs lock the session.
            if entered == pin {
                state = .awaitingMeta
                pinAccepted = true
                return [.send(.authPIN(.accepted(resumeToken: resumeToken)))]
            }
            if left <= 1 {
                state = .locked
                return [
                    .send(.authPIN(.locked)), .close(reason: "too many wrong PINs"),
                    .reject(violation(MigrationRule.pinAttempts, "at most \(PINLockout.attemptsPerSession) attempts", "\(PINLockout.attemptsPerSession) wrong PINs")),
                ]
            }
            state = .awaitingPIN(attemptsLeft: left - 1)
            return [.send(.authPIN(.rejected(attemptsLeft: left - 1)))]
        case (.awaitingMeta, .startBackup):
            return .ignored("the package is being prepared: the meta follows")
        case (.awaitingMeta, .backupMeta(let m)):
            let r = Reception(meta: m, lastActivity: at)
            // MIG-META-001: schema compatibility, then space, then the user's consent.
            if m.schemaVersion > configuration.supportedSchemaVersion {
                return fail(.schemaIncompatible, violation(MigrationRule.metaChecks, "schemaVersion ≤ \(configuration.supportedSchemaVersion)", "\(m.schemaVersion)"), r)
            }
            let needed = configuration.unpacksAsItArrives
                ? m.zipSize + Int64(configuration.maxWindow) * Int64(m.chunkSize) : m.fileSize + 2 * m.zipSize
            if needed > configuration.freeSpace {
                return fail(.insufficientSpace, violation(MigrationRule.metaChecks, "\(needed) bytes free", "\(configuration.freeSpace)"), r)
            }
            if m.chunkSize > configuration.maxChunkSize {
                return fail(.protocolError, violation(MigrationRule.metaChecks, "chunks of at most \(configuration.maxChunkSize) bytes", "\(m.chunkSize)"), r)
            }
            state = .confirming(r)
            return [.confirmWipe(m)]
        case (.transferring(let r), .pauseTransfer):
            state = .paused(r)
            return []
        case (.paused(let r), .resumeTransfer):
            state = .transferring(r)
            return []
        case (_, .cancelTransfer(_, let reason)):
            state = .failed(.cancelled(reason), state.reception)
            return [.close(reason: "the sender cancelled: \(reason.rawValue)")]
        case (.verifying(let r), .complete(.sent(let id, let count, let digest))), (.transferring(let r), .complete(.sent(let id, let count, let digest))):
            guard r.have.count == r.meta.chunkCount else {
                return fail(.protocolError, violation(MigrationRule.order, "Complete after every chunk", "Complete with \(r.have.count) of \(r.meta.chunkCount) chunks"))
            }
            // MIG-XFER-004: Complete repeats what BackupMeta announced; anything else is not this backup.
            for (key, announced, found) in [
                ("backupId", r.meta.backupId, id), ("chunkCount", "\(r.meta.chunkCount)", "\(count)"), ("envelopeSHA256", r.meta.envelopeSHA256, digest),
            ] where announced != found {
                return fail(
                    .protocolError,
                    Violation(rule: MigrationRule.finalDigest, path: .root / "payload" / key, expected: "\(announced) as in BackupMeta", found: found))
            }
            state = .verifying(r)
            return [.verifyFile(r.meta)]
        default:
            return fail(.protocolError, violation(MigrationRule.order, "a message the session expects now", "\(message.json["type"]?.stringValue ?? "?") in \(phase.rawValue)"))
        }
    }

    private mutating func chunk(_ bytes: [UInt8]) -> Step<TransferAction> {
        guard case .transferring(var r) = state else {
            return fail(.protocolError, violation(MigrationRule.order, "chunks only while transferring", "a chunk in \(phase.rawValue)"))
        }
        let meta = r.meta
        let chunk: BackupChunk
        do throws(Violation) {
            chunk = try BackupChunk.decode(bytes)
            try chunk.checkPlace(against: meta)
        } catch {
            return fail(.protocolError, error)
        }
        // §5.5: a copy of a chunk held ahead of a gap is acknowledged with it once the gap fills.
        // Dropped, not ignored: its arrival still counts as the sender's activity (MIG-XFER-005).
        if r.held.contains(chunk.index) { return [] }
        if r.have.contains(chunk.index) {
            let ack = TransferAction.send(.chunkAck(backupId: meta.backupId, index: chunk.index, status: .ok))
            // MIG-XFER-003: what ResumeTransfer declared held must not cross the wire again.
            guard r.declaredHeld.contains(chunk.index) else { return [ack] }
            let again = Violation(rule: MigrationRule.resume, path: .root / "index", byteOffset: 24, expected: "only chunks the ResumeTransfer did not list", found: "chunk \(chunk.index) again")
            return .refused(again, [ack, .reject(again)])
        }
        // MIG-XFER-002: a chunk whose digest is wrong is asked again, a bounded number of times;
        // nothing is written.
        guard chunk.digestMatches else {
            guard r.retransmits[chunk.index, default: 0] < configuration.maxRetransmitsPerChunk else {
                return fail(
                    .tooManyRetransmits,
                    Violation(
                        rule: MigrationRule.retransmit, path: .root / "chunkSHA256", byteOffset: 40,
                        expected: "chunk \(chunk.index) intact within \(configuration.maxRetransmitsPerChunk + 1) copies",
                        found: "\(configuration.maxRetransmitsPerChunk + 1) damaged copies"))
            }
            r.retransmits[chunk.index, default: 0] += 1
            state = .transferring(r)
            let damaged = Violation(rule: MigrationRule.chunkDigest, path: .root / "chunkSHA256", byteOffset: 40, expected: "the SHA-256 of the data", found: "another digest for chunk \(chunk.index)")
            return .refused(damaged, [.send(.chunkAck(backupId: meta.backupId, index: chunk.index, status: .retransmit)), .reject(damaged)])
        }
        // MIG-XFER-001: every chunk below this one that is still missing was never acknowledged, so the
        // sender had at least that many outstanding besides this one. The data is good: it is kept.
        let outstanding = chunk.index - r.have.count(below: chunk.index) + 1
        let pastWindow = outstanding > window ? violation(MigrationRule.window, "at most \(window) chunks unacknowledged", "chunk \(chunk.index) with \(outstanding) outstanding") : nil
        let write = TransferAction.writeChunk(index: chunk.index, offset: chunk.offset, data: chunk.data)
        if configuration.unpacksAsItArrives, outstanding > 1 {
            // §5.5: unpacked only in index order, so it is kept aside unacknowledged; past the
            // window it cannot be kept at all.
            if let pastWindow { return fail(.protocolError, pastWindow) }
            r.held.insert(chunk.index)
            state = .transferring(r)
            return [write]
        }
        var acknowledged = [chunk.index]
        r.have.insert(chunk.index)
        while case let next = acknowledged.last! + 1, r.held.remove(next) != nil {
            r.have.insert(next)
            acknowledged.append(next)
        }
        state = .transferring(r)
        let journal = TransferJournal(meta: meta, resumeToken: resumeToken, senderSessionId: senderSessionId ?? "", have: r.have.ranges)
        // Written, then journaled, then acknowledged: an acknowledged chunk is on disk.
        var actions: [TransferAction] = [write, .persistJournal(journal)]
        actions += acknowledged.map { .send(.chunkAck(backupId: meta.backupId, index: $0, status: .ok)) }
        guard let pastWindow else { return Step(actions) }
        return .refused(pastWindow, actions + [.reject(pastWindow)])
    }

    /// Ends the session on the peer's break: told, closed, reported.
    private mutating func fail(_ reason: ControlMessage.CancelReason, _ why: Violation, _ reception: Reception? = nil) -> Step<TransferAction> {
        let reception = reception ?? state.reception
        state = .failed(.cancelled(reason), reception)
        return .refused(why, [.send(.cancelTransfer(backupId: reception?.meta.backupId, reason: reason)), .close(reason: why.description), .reject(why)])
    }

    private func violation(_ rule: RuleID, _ expected: String, _ found: String) -> Violation {
        Violation(rule: rule, path: .root, expected: expected, found: found)
    }
}
