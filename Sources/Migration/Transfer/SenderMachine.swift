import Foundation
import WireCore

/// The old phone (seed 000 §2.1, §7.2): listens, takes the PIN from its user, builds the
/// package, announces it, and sends chunks with at most `window` unacknowledged (window 1 is
/// exactly the seed's "send each chunk, then wait for its ACK"). Keeps its progress across a
/// disconnect: a receiver that comes back with the resume token gets only what it lacks.
public struct SenderMachine: Sendable {
    public enum State: Sendable, Hashable {
        case listening
        case awaitingPINEntry
        case awaitingPINResult
        case preparing
        case metaSent
        case transferring
        case paused
        case completing
        case waitingReconnect
        case done
        case failed(String)
        case locked
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
        public init() {}
    }

    public private(set) var state: State = .listening
    public let configuration: Configuration
    public let sessionId: String
    public private(set) var meta: ControlMessage.BackupMeta?
    public private(set) var acked = ChunkSet()
    public private(set) var window = 1
    /// Chunks sent and not yet acknowledged, with the time they were sent.
    public private(set) var inFlight: [Int: EpochMillis] = [:]
    /// How often each chunk was sent (for MIG-XFER-002's bound, and for the no-resend property).
    public private(set) var sends: [Int: Int] = [:]
    private var resumeToken: String?
    /// A reconnected receiver sends its Handshake before `ResumeTransfer` (MIG-MSG-002, MIG-XFER-006).
    private var receiverGreeted = false
    /// When the current connection opened, while it has not sent its Handshake (MIG-XFER-007).
    private var awaitingGreetingSince: EpochMillis?
    private var next = 0

    public init<R: RandomByteSource>(configuration: Configuration = Configuration(), random: inout R) {
        self.configuration = configuration
        sessionId = ReceiverMachine.uuid(random.next(16) ?? Array(repeating: 0, count: 16))
    }

    var handshake: ControlMessage.Handshake {
        .init(role: .sender, sessionId: sessionId, appVersion: configuration.appVersion, schemaVersion: configuration.schemaVersion,
              deviceName: configuration.deviceName, maxWindow: configuration.maxWindow, maxChunkSize: configuration.chunkSize)
    }

    public mutating func handle(_ event: Event) -> [TransferAction] {
        switch event {
        case .connected(let at):
            switch state {
            case .listening, .waitingReconnect: awaitingGreetingSince = at
            default: break
            }
            return []
        case .message(let document, let at):
            switch state {
            case .done, .failed, .locked: return []
            default: break
            }
            let message: ControlMessage
            do throws(Violation) {
                message = try ControlMessage.decode(document)
            } catch {
                return fail(.protocolError, error)
            }
            return received(message, at: at)
        case .malformed(let violation, _):
            switch state {
            case .done, .failed, .locked: return []
            default: return fail(.protocolError, violation)
            }
        case .userEnteredPIN(let pin, _):
            guard case .awaitingPINEntry = state else { return [] }
            state = .awaitingPINResult
            return [.send(.authPIN(.request(pin: pin)))]
        case .backupReady(let m, _):
            guard case .preparing = state else { return [] }
            meta = m
            state = .metaSent
            return [.send(.backupMeta(m))]
        case .userPause:
            guard case .transferring = state, let meta else { return [] }
            state = .paused
            return [.send(.pauseTransfer(backupId: meta.backupId))]
        case .userResume(let at):
            guard case .paused = state, let meta else { return [] }
            state = .transferring
            return [.send(.resumeTransfer(.init(backupId: meta.backupId)))] + fill(at: at)
        case .userCancel:
            if case .done = state { return [] }
            state = .failed("user-cancelled")
            return [.send(.cancelTransfer(backupId: meta?.backupId, reason: .userCancelled)), .close(reason: "cancelled")]
        case .disconnected:
            awaitingGreetingSince = nil
            switch state {
            case .listening:
                // MIG-XFER-007: a connection that never greeted was not the session's receiver.
                break
            case .transferring, .paused, .completing:
                // Keep the progress; chunks in flight were not acknowledged and will be sent again.
                inFlight = [:]
                receiverGreeted = false
                state = .waitingReconnect
            case .done, .failed, .locked, .waitingReconnect:
                break
            default:
                state = .failed("disconnected")
            }
            return []
        case .tick(let at):
            // MIG-XFER-007: an idle connection does not keep the receiver's place.
            if let since = awaitingGreetingSince, at - since > configuration.handshakeTimeout {
                awaitingGreetingSince = nil
                return [
                    .close(reason: "no Handshake within \(configuration.handshakeTimeout) ms"),
                    .reject(violation(MigrationRule.greeting, "a Handshake within \(configuration.handshakeTimeout) ms of connecting", "\(at - since) ms without one")),
                ]
            }
            guard case .transferring = state else { return [] }
            var actions: [TransferAction] = []
            for (index, sentAt) in inFlight.sorted(by: { $0.key < $1.key }) where at - sentAt > configuration.ackTimeout {
                actions += resend(index, at: at, rule: MigrationRule.timeouts)
                if case .failed = state { return actions }
            }
            return actions
        }
    }

    private mutating func received(_ message: ControlMessage, at: EpochMillis) -> [TransferAction] {
        switch (state, message) {
        case (.listening, .handshake(let h)), (.waitingReconnect, .handshake(let h)):
            guard h.role == .receiver else { return fail(.protocolError, violation(MigrationRule.handshake, "a receiver's Handshake", "role sender")) }
            window = min(configuration.maxWindow, h.maxWindow)
            if case .listening = state { state = .awaitingPINEntry }
            receiverGreeted = true
            awaitingGreetingSince = nil
            return [.send(.handshake(handshake))] + (state == .awaitingPINEntry ? [.askPIN(attemptsLeft: ReceiverMachine.pinAttempts)] : [])
        case (.awaitingPINResult, .authPIN(.accepted(let token))):
            resumeToken = token
            state = .preparing
            return [.send(.startBackup), .prepareBackup]
        case (.awaitingPINResult, .authPIN(.rejected(let left))):
            state = .awaitingPINEntry
            return [.askPIN(attemptsLeft: left)]
        case (.awaitingPINResult, .authPIN(.locked)):
            state = .locked
            return [.close(reason: "the receiver locked the session after too many wrong PINs")]
        case (.metaSent, .startTransfer(let id, let w)):
            guard id == meta?.backupId else { return fail(.protocolError, violation(MigrationRule.transferControl, meta?.backupId ?? "", id)) }
            window = min(window, w)
            state = .transferring
            return fill(at: at)
        case (.waitingReconnect, .resumeTransfer(let r)) where receiverGreeted:
            // MIG-XFER-003: only the receiver holding the token resumes; what it has is not sent again.
            guard let meta, r.backupId == meta.backupId, let token = r.resumeToken, token == resumeToken, let have = r.have else {
                return fail(.protocolError, violation(MigrationRule.resume, "the session's backup and resume token", "another"))
            }
            acked = ChunkSet(have.map { $0.clamped(to: 0..<meta.chunkCount) })
            if let w = r.window { window = min(configuration.maxWindow, w) }
            next = 0
            state = .transferring
            return fill(at: at)
        case (.transferring, .chunkAck(let id, let index, let status)), (.paused, .chunkAck(let id, let index, let status)),
            (.completing, .chunkAck(let id, let index, let status)):
            guard let meta, id == meta.backupId, index < meta.chunkCount else {
                return fail(.protocolError, violation(MigrationRule.chunkAck, "an index of this backup", "\(index)"))
            }
            if status == .retransmit {
                // A late complaint about a chunk already acknowledged (a corrupted duplicate) changes nothing.
                return acked.contains(index) ? [] : resend(index, at: at, rule: MigrationRule.retransmit)
            }
            inFlight[index] = nil
            acked.insert(index)
            if case .paused = state { return [] }
            return fill(at: at)
        case (.transferring, .pauseTransfer):
            state = .paused
            return []
        case (.paused, .resumeTransfer(let r)) where r.resumeToken == nil:
            state = .transferring
            return fill(at: at)
        case (.completing, .complete(.verified)):
            state = .done
            return [.close(reason: "migration complete")]
        case (.completing, .complete(.digestMismatch)):
            state = .failed("digest-mismatch")
            return [.close(reason: "the receiver's file does not match"),
                    .reject(violation(MigrationRule.finalDigest, "the receiver's digest to match", "a mismatch"))]
        case (_, .cancelTransfer(_, let reason)):
            state = .failed(reason.rawValue)
            return [.close(reason: "the receiver cancelled: \(reason.rawValue)")]
        default:
            return fail(.protocolError, violation(MigrationRule.order, "a message the session expects now", "\(message.json["type"]?.stringValue ?? "?") in \(state)"))
        }
    }

    /// Sends chunks until `window` are unacknowledged (MIG-XFER-001); after the last
    /// acknowledgement, `Complete`.
    private mutating func fill(at: EpochMillis) -> [TransferAction] {
        guard let meta, case .transferring = state else { return [] }
        var actions: [TransferAction] = []
        while inFlight.count < window, next < meta.chunkCount {
            let index = next
            next += 1
            guard !acked.contains(index), inFlight[index] == nil else { continue }
            inFlight[index] = at
            sends[index, default: 0] += 1
            actions.append(.sendChunk(index: index))
        }
        if acked.count == meta.chunkCount {
            state = .completing
            actions.append(.send(.complete(.sent(backupId: meta.backupId, chunkCount: meta.chunkCount, envelopeSHA256: meta.envelopeSHA256))))
        }
        return actions
    }

    private mutating func resend(_ index: Int, at: EpochMillis, rule: RuleID) -> [TransferAction] {
        guard sends[index, default: 0] < configuration.maxSendsPerChunk else {
            return fail(.tooManyRetransmits, violation(rule, "chunk \(index) delivered within \(configuration.maxSendsPerChunk) sends", "\(sends[index, default: 0]) sends"))
        }
        inFlight[index] = at
        sends[index, default: 0] += 1
        return [.sendChunk(index: index)]
    }

    private mutating func fail(_ reason: ControlMessage.CancelReason, _ why: Violation) -> [TransferAction] {
        state = .failed(reason.rawValue)
        return [.send(.cancelTransfer(backupId: meta?.backupId, reason: reason)), .close(reason: why.description), .reject(why)]
    }

    private func violation(_ rule: RuleID, _ expected: String, _ found: String) -> Violation {
        Violation(rule: rule, path: .root, expected: expected, found: found)
    }
}
