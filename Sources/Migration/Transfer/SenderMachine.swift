import Foundation
import WireCore

/// The old phone (seed 000 §2.1, §7.2): listens, takes the PIN from its user, builds the
/// package, announces it, and sends chunks with at most `window` unacknowledged (window 1 is
/// exactly the seed's "send each chunk, then wait for its ACK"). Keeps its progress across a
/// disconnect: a receiver that comes back with the resume token gets only what it lacks.
/// Each state carries what that step of the session needs; the machine owns its timeouts and
/// says when it next needs the clock (`nextDeadline`).
public struct SenderMachine: TimedMachine {
    /// The state's name, as the vectors spell it (Spec/migration.md 5.3).
    public enum Phase: String, Sendable, CaseIterable {
        case listening, awaitingPINEntry, awaitingPINResult, preparing, metaSent, transferring, paused, completing, waitingReconnect
        case done, failed, locked
    }

    /// The connection a receiver opened while the sender waits for it (MIG-XFER-007 times a
    /// connection that has not greeted; only a greeted one may resume, and only soon, MIG-XFER-003).
    public enum Connection: Sendable, Hashable {
        case none
        case opened(at: EpochMillis)
        case greeted(at: EpochMillis)
    }

    /// A package announced to the receiver, and what has become of its chunks.
    public struct Transfer: Sendable, Hashable {
        public let meta: ControlMessage.BackupMeta
        /// The token the receiver gave with the accepted PIN; a resume must present it.
        public let resumeToken: String
        public fileprivate(set) var acked = ChunkSet()
        /// Chunks sent and not yet acknowledged, with the time they were sent.
        public fileprivate(set) var inFlight: [Int: EpochMillis] = [:]
        /// How often each chunk was sent (MIG-XFER-002's bound).
        public fileprivate(set) var sends: [Int: Int] = [:]
        /// Where the next send looks for a chunk not yet acknowledged.
        fileprivate var next = 0
    }

    public enum State: Sendable, Hashable {
        case listening(Connection)
        case awaitingPINEntry
        case awaitingPINResult
        case preparing(resumeToken: String)
        case metaSent(Transfer)
        case transferring(Transfer)
        case paused(Transfer)
        case completing(Transfer)
        /// The receiver left mid-transfer at `since`; its progress is kept until it resumes.
        case waitingReconnect(Transfer, since: EpochMillis, connection: Connection)
        case done(Transfer)
        case failed(SessionFailure, Transfer?)
        case locked

        public var phase: Phase {
            switch self {
            case .listening: return .listening
            case .awaitingPINEntry: return .awaitingPINEntry
            case .awaitingPINResult: return .awaitingPINResult
            case .preparing: return .preparing
            case .metaSent: return .metaSent
            case .transferring: return .transferring
            case .paused: return .paused
            case .completing: return .completing
            case .waitingReconnect: return .waitingReconnect
            case .done: return .done
            case .failed: return .failed
            case .locked: return .locked
            }
        }

        /// The announced package, from `metaSent` on (kept in `done` and `failed`).
        public var transfer: Transfer? {
            switch self {
            case .metaSent(let t), .transferring(let t), .paused(let t), .completing(let t), .waitingReconnect(let t, _, _), .done(let t): return t
            case .failed(_, let t): return t
            case .listening, .awaitingPINEntry, .awaitingPINResult, .preparing, .locked: return nil
            }
        }

        /// The same state with its transfer replaced.
        func with(_ t: Transfer) -> State {
            switch self {
            case .metaSent: return .metaSent(t)
            case .transferring: return .transferring(t)
            case .paused: return .paused(t)
            case .completing: return .completing(t)
            case .waitingReconnect(_, let since, let connection): return .waitingReconnect(t, since: since, connection: connection)
            case .done: return .done(t)
            case .failed(let reason, _): return .failed(reason, t)
            case .listening, .awaitingPINEntry, .awaitingPINResult, .preparing, .locked: return self
            }
        }

        var isFinal: Bool {
            switch self {
            case .done, .failed, .locked: return true
            default: return false
            }
        }
    }

    public enum Event: Sendable, Hashable {
        case connected(at: EpochMillis)
        case message(JSONValue, at: EpochMillis)
        /// A frame that is not a control message: not JSON, or binary (the sender receives none).
        case malformed(Violation, at: EpochMillis)
        case userEnteredPIN(String, at: EpochMillis)
        case backupReady(ControlMessage.BackupMeta, at: EpochMillis)
        case userPause(at: EpochMillis)
        case userResume(at: EpochMillis)
        case userCancel(at: EpochMillis)
        /// The edge cannot produce a chunk: a file of the store changed since the package was
        /// planned (MIG-XFER-008).
        case storeChanged(at: EpochMillis)
        case disconnected(at: EpochMillis)
        case tick(at: EpochMillis)
    }

    public struct Configuration: Sendable, Hashable {
        public var appVersion = "1.0.0"
        public var schemaVersion: Int64 = 1
        public var deviceName = "Old iPhone"
        public var maxWindow = 16
        public var chunkSize = 1 << 20
        /// An unacknowledged chunk is sent again after this long (MIG-XFER-005).
        public var ackTimeout: EpochMillis = 15_000
        /// Sends of one chunk before the transfer is cancelled (MIG-XFER-002).
        public var maxSendsPerChunk = 5
        /// A connection that sent no Handshake for this long is closed (MIG-XFER-007).
        public var handshakeTimeout: EpochMillis = 10_000
        /// No receiver back for this long after a disconnect ends the session (MIG-XFER-005).
        public var reconnectTimeout: EpochMillis = 120_000
        public init() {}
    }

    public private(set) var state: State = .listening(.none)
    public let configuration: Configuration
    public let sessionId: String
    /// The window both Handshakes allow (1 until then, MIG-XFER-001): a session parameter,
    /// kept when the session ends.
    public private(set) var window = 1
    /// The receiver's `maxChunkSize` from its Handshake: the package's chunks may not be larger
    /// (MIG-META-001).
    public private(set) var receiverMaxChunkSize: Int?
    /// Wrong PINs the receiver answered in this session: its `attemptsLeft` must count down from
    /// 4, and `locked` come at the fifth exactly (MIG-PIN-002).
    public private(set) var wrongPINs = 0

    /// MIG-PIN-002: after `wrongPINs` wrong PINs the receiver owes `attemptsLeft` 5 - wrongPINs, and
    /// `locked` instead of `rejected` at the fifth.
    private func pinCountViolation(rejectedWith left: Int) -> Violation? {
        let due = PINLockout.attemptsPerSession - wrongPINs
        if due <= 0 {
            return Violation(rule: MigrationRule.pinAttempts, path: .root / "payload" / "result", expected: "\"locked\" at wrong PIN \(PINLockout.attemptsPerSession)", found: "\"rejected\" at wrong PIN \(wrongPINs)")
        }
        if left == due { return nil }
        return Violation(rule: MigrationRule.pinAttempts, path: .root / "payload" / "attemptsLeft", expected: "\(due) after \(wrongPINs) wrong PIN(s)", found: "\(left)")
    }

    public init<R: RandomByteSource>(configuration: Configuration = Configuration(), random: inout R) {
        self.configuration = configuration
        sessionId = uuidV4Text(random: random.next(16) ?? [])
    }

    public var phase: Phase { state.phase }

    /// The earliest time at which `tick` has something to do; nil while no timeout runs. Timeouts
    /// are "more than" (MIG-XFER-005), so the deadline is one millisecond past each limit.
    public var nextDeadline: EpochMillis? {
        switch state {
        case .listening(.opened(let at)), .waitingReconnect(_, _, .opened(let at)), .waitingReconnect(_, _, .greeted(let at)):
            return at + configuration.handshakeTimeout + 1
        case .waitingReconnect(_, let since, .none):
            return since + configuration.reconnectTimeout + 1
        case .transferring(let t):
            return t.inFlight.values.min().map { $0 + configuration.ackTimeout + 1 }
        default:
            return nil
        }
    }

    public static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    var handshake: ControlMessage.Handshake {
        .init(role: .sender, sessionId: sessionId, appVersion: configuration.appVersion, schemaVersion: configuration.schemaVersion,
              deviceName: configuration.deviceName, maxWindow: configuration.maxWindow, maxChunkSize: configuration.chunkSize)
    }

    public mutating func step(_ event: Event) -> Step<TransferAction> {
        switch event {
        case .connected(let at):
            switch state {
            case .listening:
                state = .listening(.opened(at: at))
                return []
            case .waitingReconnect(let t, let since, _):
                state = .waitingReconnect(t, since: since, connection: .opened(at: at))
                return []
            default:
                // The edge turns a second receiver away before the machine hears of it.
                return .ignored("a receiver is connected already, or the session has ended")
            }
        case .message(let document, let at):
            guard !state.isFinal else { return .ignored("the session has ended") }
            let message: ControlMessage
            do throws(Violation) {
                message = try ControlMessage.decode(document)
            } catch {
                return fail(.protocolError, error)
            }
            return received(message, at: at)
        case .malformed(let violation, _):
            guard !state.isFinal else { return .ignored("the session has ended") }
            return fail(.protocolError, violation)
        case .userEnteredPIN(let pin, _):
            guard case .awaitingPINEntry = state else { return .ignored("no PIN is asked for") }
            state = .awaitingPINResult
            return [.send(.authPIN(.request(pin: pin)))]
        case .backupReady(let meta, _):
            guard case .preparing(let token) = state else { return .ignored("no package is being prepared") }
            if let most = receiverMaxChunkSize, meta.chunkSize > most {
                // MIG-META-001: the receiver would refuse these chunks; announcing them would only
                // fail later. The package is this side's fault, so nothing is reported against the peer.
                state = .failed(.cancelled(.protocolError), nil)
                return [.send(.cancelTransfer(backupId: nil, reason: .protocolError)), .close(reason: "the package's chunks (\(meta.chunkSize) bytes) exceed the receiver's maxChunkSize \(most) (MIG-META-001)")]
            }
            state = .metaSent(Transfer(meta: meta, resumeToken: token))
            return [.send(.backupMeta(meta))]
        case .userPause:
            guard case .transferring(let t) = state else { return .ignored("nothing is being sent") }
            state = .paused(t)
            return [.send(.pauseTransfer(backupId: t.meta.backupId))]
        case .userResume(let at):
            guard case .paused(let t) = state else { return .ignored("not paused") }
            return Step([.send(.resumeTransfer(.init(backupId: t.meta.backupId)))] + fill(t, at: at))
        case .userCancel:
            return cancel(.userCancelled)
        case .storeChanged:
            return cancel(.storeChanged)
        case .disconnected(let at):
            switch state {
            case .listening:
                // MIG-XFER-007: a connection that never greeted was not the session's receiver.
                state = .listening(.none)
            case .transferring(var t), .paused(var t), .completing(var t):
                // Keep the progress; chunks in flight were not acknowledged and will be sent again.
                t.inFlight = [:]
                state = .waitingReconnect(t, since: at, connection: .none)
            case .waitingReconnect(let t, _, _):
                // Whoever connected is gone, greeted or not: the next one greets again.
                state = .waitingReconnect(t, since: at, connection: .none)
            case .done, .failed, .locked:
                return .ignored("the session has ended")
            case .awaitingPINEntry, .awaitingPINResult, .preparing, .metaSent:
                state = .failed(.disconnected, state.transfer)
            }
            return []
        case .tick(let at):
            return timeouts(at: at)
        }
    }

    /// What the clock ends at `at`: an idle connection (MIG-XFER-007), a receiver that did not
    /// come back (the session), a chunk not acknowledged in time (MIG-XFER-005).
    private mutating func timeouts(at: EpochMillis) -> Step<TransferAction> {
        switch state {
        case .listening(.opened(let since)) where at - since > configuration.handshakeTimeout:
            state = .listening(.none)
            return Step(idleConnection(for: at - since))
        case .waitingReconnect(let t, _, .opened(let since)) where at - since > configuration.handshakeTimeout:
            state = .waitingReconnect(t, since: at, connection: .none)
            return Step(idleConnection(for: at - since))
        case .waitingReconnect(let t, _, .greeted(let since)) where at - since > configuration.handshakeTimeout:
            // MIG-XFER-003: a receiver that greets and does not resume began a new session (it
            // lost its journal) and waits for a PIN, as this sender waits for its resume: neither
            // would ever speak. Not a break: closed unreported, and the wait counts again.
            state = .waitingReconnect(t, since: at, connection: .none)
            return [.close(reason: "no ResumeTransfer within \(configuration.handshakeTimeout) ms of the Handshake: not the session being resumed")]
        case .waitingReconnect(let t, let since, .none) where at - since > configuration.reconnectTimeout:
            // No connection to tell: the receiver is gone, and so is the session.
            state = .failed(.cancelled(.timeout), t)
            return []
        case .transferring(let t):
            var actions: [TransferAction] = []
            var current = t
            for (index, sentAt) in t.inFlight.sorted(by: { $0.key < $1.key }) where at - sentAt > configuration.ackTimeout {
                let resent = resend(index, in: current, at: at, rule: MigrationRule.timeouts)
                actions += resent.actions
                guard case .transferring(let next) = state else { return Step(actions, resent.outcome) }
                current = next
            }
            return actions.isEmpty ? .ignored("no chunk is overdue") : Step(actions)
        default:
            return .ignored("no deadline has passed")
        }
    }

    private func idleConnection(for elapsed: EpochMillis) -> [TransferAction] {
        [
            .close(reason: "no Handshake within \(configuration.handshakeTimeout) ms"),
            .reject(violation(MigrationRule.greeting, "a Handshake within \(configuration.handshakeTimeout) ms of connecting", "\(elapsed) ms without one")),
        ]
    }

    private mutating func received(_ message: ControlMessage, at: EpochMillis) -> Step<TransferAction> {
        switch (state, message) {
        case (.listening, .handshake(let h)), (.waitingReconnect, .handshake(let h)):
            guard h.role == .receiver else { return fail(.protocolError, violation(MigrationRule.handshake, "a receiver's Handshake", "role sender")) }
            window = min(configuration.maxWindow, h.maxWindow)
            receiverMaxChunkSize = h.maxChunkSize
            if case .waitingReconnect(let t, let since, _) = state {
                state = .waitingReconnect(t, since: since, connection: .greeted(at: at))
                return [.send(.handshake(handshake))]
            }
            state = .awaitingPINEntry
            return [.send(.handshake(handshake)), .askPIN(attemptsLeft: PINLockout.attemptsPerSession)]
        case (.awaitingPINResult, .authPIN(.accepted(let token))):
            state = .preparing(resumeToken: token)
            return [.send(.startBackup), .prepareBackup]
        case (.awaitingPINResult, .authPIN(.rejected(let left))):
            state = .awaitingPINEntry
            wrongPINs += 1
            // The receiver's count is what the user is shown, right or not.
            guard let wrongCount = pinCountViolation(rejectedWith: left) else { return [.askPIN(attemptsLeft: left)] }
            return .refused(wrongCount, [.askPIN(attemptsLeft: left), .reject(wrongCount)])
        case (.awaitingPINResult, .authPIN(.locked)):
            state = .locked
            wrongPINs += 1
            let early =
                wrongPINs == PINLockout.attemptsPerSession
                ? []
                : [TransferAction.reject(Violation(rule: MigrationRule.pinAttempts, path: .root / "payload" / "result", expected: "\"locked\" at wrong PIN \(PINLockout.attemptsPerSession)", found: "\"locked\" at wrong PIN \(wrongPINs)"))]
            return Step([.close(reason: "the receiver locked the session after too many wrong PINs")] + early)
        case (.metaSent(let t), .startTransfer(let id, let w)):
            guard id == t.meta.backupId else { return fail(.protocolError, violation(MigrationRule.transferControl, t.meta.backupId, id)) }
            window = min(window, w)
            return Step(fill(t, at: at))
        case (.waitingReconnect(let t, _, .greeted), .resumeTransfer(let r)):
            return resumed(t, r, at: at)
        case (.transferring(let t), .chunkAck(let id, let index, let status)), (.paused(let t), .chunkAck(let id, let index, let status)),
            (.completing(let t), .chunkAck(let id, let index, let status)):
            return acknowledged(t, id, index, status, at: at)
        case (.transferring(let t), .pauseTransfer):
            state = .paused(t)
            return []
        case (.paused(let t), .resumeTransfer(let r)) where r.resumeToken == nil:
            return Step(fill(t, at: at))
        case (.completing(let t), .complete(.verified)):
            state = .done(t)
            return [.close(reason: "migration complete")]
        case (.completing(let t), .complete(.digestMismatch)):
            // The receiver broke nothing by saying so: the file it assembled from verified chunks
            // is not the one announced (MIG-XFER-004).
            state = .failed(.cancelled(.digestMismatch), t)
            return [.close(reason: "the receiver's file does not match")]
        case (_, .cancelTransfer(_, let reason)):
            state = .failed(.cancelled(reason), state.transfer)
            return [.close(reason: "the receiver cancelled: \(reason.rawValue)")]
        default:
            return fail(.protocolError, violation(MigrationRule.order, "a message the session expects now", "\(message.json["type"]?.stringValue ?? "?") in \(phase.rawValue)"))
        }
    }

    /// MIG-XFER-003: only the receiver holding the token resumes; what it has is not sent again.
    private mutating func resumed(_ transfer: Transfer, _ r: ControlMessage.ResumeTransfer, at: EpochMillis) -> Step<TransferAction> {
        var t = transfer
        guard r.backupId == t.meta.backupId else {
            return fail(.protocolError, Violation(rule: MigrationRule.resume, path: .root / "payload" / "backupId", expected: t.meta.backupId, found: r.backupId))
        }
        guard let token = r.resumeToken, token == t.resumeToken, let have = r.have else {
            // The token is a secret: the report does not repeat it.
            return fail(
                .protocolError,
                Violation(
                    rule: MigrationRule.resume, path: .root / "payload" / "resumeToken", expected: "the token the PIN's acceptance gave",
                    found: r.resumeToken == nil ? "absent (a resume after a pause, not after a reconnect)" : "another token"))
        }
        // A receiver cannot hold a chunk past the backup's last: clamping the range would take the lie.
        if let past = have.firstIndex(where: { $0.upperBound > t.meta.chunkCount }) {
            return fail(
                .protocolError,
                Violation(
                    rule: MigrationRule.resume, path: .root / "payload" / "have" / past,
                    expected: "ranges within the backup's \(t.meta.chunkCount) chunks", found: "[\(have[past].lowerBound), \(have[past].upperBound))"))
        }
        let held = ChunkSet(have)
        // An acknowledged chunk is on disk (written, journalled, then acknowledged): a `have`
        // without it would take acknowledged chunks over the wire again.
        if let lost = t.acked.ranges.lazy.flatMap({ $0 }).first(where: { !held.contains($0) }) {
            return fail(
                .protocolError,
                Violation(
                    rule: MigrationRule.resume, path: .root / "payload" / "have",
                    expected: "every chunk acknowledged before the drop (\(t.acked.count), chunk \(lost) among them)",
                    found: "\(held.count) chunk(s), without chunk \(lost)"))
        }
        t.acked = held
        if let w = r.window { window = min(configuration.maxWindow, w) }
        t.next = 0
        return Step(fill(t, at: at))
    }

    /// A ChunkAck while the transfer is held (sending, paused, or completing).
    private mutating func acknowledged(_ transfer: Transfer, _ id: String, _ index: Int, _ status: ControlMessage.ChunkStatus, at: EpochMillis) -> Step<TransferAction> {
        var t = transfer
        guard id == t.meta.backupId else {
            return fail(.protocolError, violation(MigrationRule.chunkAck, "an ack for backup \(t.meta.backupId)", id))
        }
        guard index < t.meta.chunkCount else {
            return fail(
                .protocolError,
                Violation(rule: MigrationRule.order, path: .root / "payload" / "index", expected: "an index below chunkCount \(t.meta.chunkCount)", found: "\(index)"))
        }
        if status == .retransmit {
            // A late complaint about a chunk already acknowledged (a corrupted duplicate) changes nothing.
            guard !t.acked.contains(index) else { return .ignored("chunk \(index) was acknowledged already") }
            return resend(index, in: t, at: at, rule: MigrationRule.retransmit)
        }
        t.inFlight[index] = nil
        t.acked.insert(index)
        state = state.with(t)
        if case .transferring = state { return Step(fill(t, at: at)) }
        // Paused, or every chunk sent and Complete with it: the ack is recorded, nothing more goes out.
        return []
    }

    /// Transferring `t`: sends chunks until `window` are unacknowledged (MIG-XFER-001); after the
    /// last acknowledgement, `Complete`.
    private mutating func fill(_ transfer: Transfer, at: EpochMillis) -> [TransferAction] {
        var t = transfer
        var actions: [TransferAction] = []
        while t.inFlight.count < window, t.next < t.meta.chunkCount {
            let index = t.next
            t.next += 1
            guard !t.acked.contains(index), t.inFlight[index] == nil else { continue }
            t.inFlight[index] = at
            t.sends[index, default: 0] += 1
            actions.append(.sendChunk(index: index))
        }
        if t.acked.count == t.meta.chunkCount {
            state = .completing(t)
            actions.append(.send(.complete(.sent(backupId: t.meta.backupId, chunkCount: t.meta.chunkCount, envelopeSHA256: t.meta.envelopeSHA256))))
        } else {
            state = .transferring(t)
        }
        return actions
    }

    /// Sends chunk `index` again, in whichever state holds the transfer, unless it was sent the
    /// most times allowed (MIG-XFER-002).
    private mutating func resend(_ index: Int, in transfer: Transfer, at: EpochMillis, rule: RuleID) -> Step<TransferAction> {
        var t = transfer
        guard t.sends[index, default: 0] < configuration.maxSendsPerChunk else {
            return fail(.tooManyRetransmits, violation(rule, "chunk \(index) delivered within \(configuration.maxSendsPerChunk) sends", "\(t.sends[index, default: 0]) sends"))
        }
        t.inFlight[index] = at
        t.sends[index, default: 0] += 1
        state = state.with(t)
        return [.sendChunk(index: index)]
    }

    /// Ends the session for a reason of this side's own (MIG-MSG-007): the receiver is told over a
    /// connection on which it greeted; one that has not greeted is only closed; with none open
    /// there is nobody to tell.
    private mutating func cancel(_ reason: ControlMessage.CancelReason) -> Step<TransferAction> {
        guard !state.isFinal else { return .ignored("the session has ended") }
        let transfer = state.transfer
        let before = state
        state = .failed(.cancelled(reason), transfer)
        switch before {
        case .listening(.none), .waitingReconnect(_, _, .none): return []
        case .listening(.opened), .waitingReconnect(_, _, .opened): return [.close(reason: "cancelled")]
        default: return [.send(.cancelTransfer(backupId: transfer?.meta.backupId, reason: reason)), .close(reason: "cancelled")]
        }
    }

    /// Ends the session on the peer's break: told, closed, reported.
    private mutating func fail(_ reason: ControlMessage.CancelReason, _ why: Violation) -> Step<TransferAction> {
        let transfer = state.transfer
        state = .failed(.cancelled(reason), transfer)
        return .refused(why, [.send(.cancelTransfer(backupId: transfer?.meta.backupId, reason: reason)), .close(reason: why.description), .reject(why)])
    }

    private func violation(_ rule: RuleID, _ expected: String, _ found: String) -> Violation {
        Violation(rule: rule, path: .root, expected: expected, found: found)
    }
}
