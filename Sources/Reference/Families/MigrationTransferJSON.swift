import Foundation
import Migration
import TesteeProtocol
import WireCore

/// JSON forms of the transfer machines (Spec migration.md §5.3) and of the chunk kind.
public enum MigrationTransferJSON {
    typealias Problem = ContextReader.Problem
    typealias Events = MachineDriver.EventReader

    static func int(_ v: Int) -> JSONValue { .number(JSONNumber(Int64(v))) }

    static func ranges(_ r: [Range<Int>]) -> JSONValue { .array(r.map { [int($0.lowerBound), int($0.upperBound)] }) }

    static func random(_ context: JSONValue) throws(Problem) -> ScriptedBytes {
        guard let hex = try ContextReader(value: context).string("random"), let bytes = Hex.decode(hex) else {
            throw Problem(message: "context.random (hex bytes) is required")
        }
        return ScriptedBytes(bytes)
    }

    static func meta(_ value: JSONValue?, _ what: String) throws(Problem) -> ControlMessage.BackupMeta {
        guard let value else { throw Problem(message: "\(what) needs a BackupMeta payload") }
        let decoded: ControlMessage
        do throws(Violation) {
            decoded = try ControlMessage.decode(["type": "BackupMeta", "payload": value])
        } catch {
            throw Problem(message: "\(what): \(error)")
        }
        guard case .backupMeta(let m) = decoded else { throw Problem(message: "\(what): not a BackupMeta") }
        return m
    }

    /// `backup-chunk` documents: the frame, checked against the context's BackupMeta.
    static func chunk(_ bytes: [UInt8], context: JSONValue) -> Outcome {
        let m: ControlMessage.BackupMeta
        do throws(Problem) {
            m = try meta(context["meta"], "context.meta")
        } catch {
            return .invalidRequest(reason: error.message)
        }
        do throws(Violation) {
            let chunk = try BackupChunk.decode(bytes)
            try chunk.checkPlace(against: m)
            guard chunk.digestMatches else {
                throw Violation(rule: MigrationRule.chunkDigest, path: .root / "chunkSHA256", byteOffset: 40, expected: "the SHA-256 of the data", found: chunk.digest.hexEncoded)
            }
            return .accept(canonical: [
                "backupId": .string(chunk.backupId), "index": int(chunk.index), "offset": .number(JSONNumber(chunk.offset)),
                "length": int(chunk.data.count), "chunkSHA256": .string(chunk.digest.hexEncoded),
            ])
        } catch {
            return .reject([error])
        }
    }

    static func json(_ action: TransferAction) -> JSONValue {
        switch action {
        case .send(let message): return ["action": "send", "message": message.json]
        case .sendChunk(let index): return ["action": "send-chunk", "index": int(index)]
        case .showPIN(let pin): return ["action": "show-pin", "pin": .string(pin)]
        case .askPIN(let left): return ["action": "ask-pin", "attemptsLeft": int(left)]
        case .prepareBackup: return ["action": "prepare-backup"]
        case .confirmWipe(let m): return ["action": "confirm-wipe", "backupId": .string(m.backupId)]
        case .checkPassword: return ["action": "check-password", "rule": .string(MigrationRule.passwordFirst.rawValue)]
        case .openFile(let m): return ["action": "open-file", "backupId": .string(m.backupId), "fileSize": .number(JSONNumber(m.fileSize))]
        case .writeChunk(let index, let offset, let data):
            return ["action": "write-chunk", "index": int(index), "offset": .number(JSONNumber(offset)), "length": int(data.count)]
        case .persistJournal(let j): return ["action": "persist-journal", "have": ranges(j.have)]
        case .verifyFile(let m): return ["action": "verify-file", "expectedSHA256": .string(m.envelopeSHA256)]
        case .restore(let m): return ["action": "restore", "backupId": .string(m.backupId)]
        case .close: return ["action": "close"]
        case .reject(let v): return ["action": "reject", "rule": .string(v.rule.rawValue), "path": .string(v.path.description)]
        }
    }

    static func runReceiver(context: JSONValue, events: [JSONValue]) throws(Problem) -> [MachineStep] {
        var random = try random(context)
        let c = ContextReader(value: context["configuration"] ?? .null)
        var configuration = ReceiverMachine.Configuration()
        if let v = try c.integer("supportedSchemaVersion") { configuration.supportedSchemaVersion = v }
        if let v = try c.integer("freeSpace") { configuration.freeSpace = v }
        if let v = try c.flag("streaming") { configuration.unpacksAsItArrives = v }
        if let v = try c.integer("maxWindow") { configuration.maxWindow = Int(v) }
        if let v = try c.integer("maxChunkSize") { configuration.maxChunkSize = Int(v) }
        if let v = try c.integer("maxRetransmitsPerChunk") { configuration.maxRetransmitsPerChunk = Int(v) }
        // The Spec's defaults paragraph names it among those a vector may set.
        if let v = try c.integer("stallTimeout") { configuration.stallTimeout = v }
        if let v = try c.integer("handshakeTimeout") { configuration.handshakeTimeout = v }
        let machine = ReceiverMachine(configuration: configuration, random: &random)
        return try MachineDriver.run(
            machine, events: events,
            decode: { e throws(Problem) -> ReceiverMachine.Event in
                if let event: ReceiverMachine.Event = try sharedEvent(e) { return event }
                switch e.name {
                case "chunk", "binary": return .chunk(try frame(e), at: try e.at())
                case "user-confirmed": return .userConfirmed(try e.flag("yes"), at: try e.at())
                case "file-verified": return .fileVerified(try e.flag("ok"), at: try e.at())
                case "password-checked": return .passwordChecked(try passwordCheck(e), at: try e.at())
                case "package-refused":
                    // `{rule, path}`: the rule the package broke and where, as the unpacking edge found it.
                    guard let path = JSONPointer(try e.string("path")) else { throw Problem(message: "events[\(e.index)].path: a JSON Pointer") }
                    return .packageRefused(
                        Violation(rule: RuleID(try e.string("rule")), path: path, expected: "a package this receiver unpacks", found: "one it refused"), at: try e.at())
                default: throw e.unknown
                }
            },
            handle: { machine, event in machine.handle(event).map(json) },
            state: { m in
                var o = JSONObject(["name": .string(m.phase.rawValue)])
                if case .awaitingPIN(let left) = m.state { o["attemptsLeft"] = int(left) }
                if case .failed(let reason, _) = m.state { o["reason"] = .string(reason.wireName) }
                if let r = m.state.reception { o["have"] = ranges(r.have.ranges) }
                if let held = m.state.reception?.held, !held.isEmpty { o["held"] = .array(held.sorted().map { int($0) }) }
                return .object(o)
            })
    }

    static func runSender(context: JSONValue, events: [JSONValue]) throws(Problem) -> [MachineStep] {
        var random = try random(context)
        let c = ContextReader(value: context["configuration"] ?? .null)
        var configuration = SenderMachine.Configuration()
        if let v = try c.integer("maxWindow") { configuration.maxWindow = Int(v) }
        if let v = try c.integer("chunkSize") { configuration.chunkSize = Int(v) }
        if let v = try c.integer("ackTimeout") { configuration.ackTimeout = v }
        if let v = try c.integer("maxSendsPerChunk") { configuration.maxSendsPerChunk = Int(v) }
        if let v = try c.integer("handshakeTimeout") { configuration.handshakeTimeout = v }
        if let v = try c.integer("reconnectTimeout") { configuration.reconnectTimeout = v }
        let machine = SenderMachine(configuration: configuration, random: &random)
        return try MachineDriver.run(
            machine, events: events,
            decode: { e throws(Problem) -> SenderMachine.Event in
                if let event: SenderMachine.Event = try sharedEvent(e) { return event }
                switch e.name {
                case "binary": return .malformed(ControlFrame.binaryToSender(length: try frame(e).count), at: try e.at())
                case "user-entered-pin": return .userEnteredPIN(try e.string("pin"), at: try e.at())
                case "backup-ready": return .backupReady(try meta(e.object["meta"], "events[\(e.index)]"), at: try e.at())
                case "store-changed": return .storeChanged(at: try e.at())
                default: throw e.unknown
                }
            },
            handle: { machine, event in machine.handle(event).map(json) },
            state: { m in
                var o = JSONObject(["name": .string(m.phase.rawValue), "window": int(m.window)])
                if case .failed(let reason, _) = m.state { o["reason"] = .string(reason.wireName) }
                if let t = m.state.transfer {
                    o["acked"] = ranges(t.acked.ranges)
                    o["inFlight"] = .array(t.inFlight.keys.sorted().map { int($0) })
                }
                return .object(o)
            })
    }

    /// `{"event": "password-checked", "result": "opens" | "wrong-password" | "not-checked" |
    /// "invalid-header", "rule": the envelope rule the header broke}`.
    static func passwordCheck(_ e: Events) throws(Problem) -> ReceiverMachine.PasswordCheck {
        switch try e.string("result") {
        case "opens": return .opens
        case "wrong-password": return .wrongPassword
        case "not-checked": return .notChecked
        case "invalid-header":
            let rule = RuleID(try e.string("rule"))
            return .invalidHeader(
                Violation(rule: rule, path: .root / "payload" / "envelopeHeader", expected: "an envelope header this receiver opens", found: "one it cannot"))
        case let other: throw Problem(message: "events[\(e.index)].result: unknown \(other)")
        }
    }

    /// MIG-PIN-003 as a machine: `session-ended {outcome}` and `session-wanted` events; the
    /// state is the lock count and the earliest start; a wanted session gets `start-session`
    /// or `wait {until}`.
    static func runPINLockout(events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            PINLockout(), events: events,
            decode: { e throws(Problem) -> PINLockout.Event in
                switch e.name {
                case "session-ended":
                    let text = try e.string("outcome")
                    guard let outcome = PINLockout.SessionOutcome(rawValue: text) else {
                        throw Problem(message: "events[\(e.index)].outcome: one of locked, pin-accepted, other")
                    }
                    return .sessionEnded(outcome, at: try e.at())
                case "session-wanted": return .sessionWanted(at: try e.at())
                default: throw e.unknown
                }
            },
            handle: { lockout, event in
                lockout.handle(event).map { action -> JSONValue in
                    switch action {
                    case .startSession: return ["action": "start-session"]
                    case .wait(let until): return ["action": "wait", "until": .number(JSONNumber(until)), "rule": .string(MigrationRule.pinLockout.rawValue)]
                    }
                }
            },
            state: { l in ["lockedInARow": int(l.lockedInARow), "notBefore": .number(JSONNumber(l.notBefore))] })
    }

    /// The events both machines take, read the same way for both; nil for the others.
    static func sharedEvent<E: TransferEvent>(_ e: Events) throws(Problem) -> E? {
        switch e.name {
        case "connected": return .connected(at: try e.at())
        case "message": return .message(try e.document(), at: try e.at())
        case "text":
            // MIG-WS-001: the frame's text, parsed as the edge parses it.
            switch ControlFrame.parse(try e.string("text")) {
            case .success(let document): return .message(document, at: try e.at())
            case .failure(let violation): return .malformed(violation, at: try e.at())
            }
        case "user-pause": return .userPause(at: try e.at())
        case "user-resume": return .userResume(at: try e.at())
        case "user-cancel": return .userCancel(at: try e.at())
        case "disconnected": return .disconnected(at: try e.at())
        case "tick": return .tick(at: try e.at())
        default: return nil
        }
    }

    /// A binary frame's bytes (base64 in the vectors).
    static func frame(_ e: Events) throws(Problem) -> [UInt8] {
        guard let frame = Data(base64Encoded: try e.string("frame")) else { throw Problem(message: "events[\(e.index)].frame must be base64") }
        return [UInt8](frame)
    }
}

/// The events the sender and receiver machines have in common; each machine's `Event` cases
/// provide them.
protocol TransferEvent {
    static func connected(at: EpochMillis) -> Self
    static func message(_ document: JSONValue, at: EpochMillis) -> Self
    static func malformed(_ violation: Violation, at: EpochMillis) -> Self
    static func userPause(at: EpochMillis) -> Self
    static func userResume(at: EpochMillis) -> Self
    static func userCancel(at: EpochMillis) -> Self
    static func disconnected(at: EpochMillis) -> Self
    static func tick(at: EpochMillis) -> Self
}

extension ReceiverMachine.Event: TransferEvent {}
extension SenderMachine.Event: TransferEvent {}
