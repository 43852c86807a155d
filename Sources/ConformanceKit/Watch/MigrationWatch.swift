import Migration
import Reference
import WireCore

/// Judges a migration as it passes between a real new phone (the client, the receiver) and a
/// real old phone (the server, the sender), from the frames alone (Spec migration.md section 5):
/// every control message with the document checker; the session's order; the PIN answers and the
/// lock (MIG-PIN-002, -003); the window, the order and the resends of chunks, each chunk's
/// header and digest (MIG-XFER-001, -002, MIG-CHUNK-*); acknowledgements of chunks never sent or
/// damaged (MIG-CHUNK-004); `Complete` on both sides against what `BackupMeta` announced and what
/// the data's digest is (MIG-XFER-004). Each violation is the side's that sent the frame.
/// Sans-I/O: events in, a result out; what it knows of a chunk is what a session log keeps.
public struct MigrationWatch: WireJudge, Sendable {
    public struct Options: Sendable {
        /// How long after a locked session a receiver must wait before it shows a new PIN (MIG-PIN-003).
        public var lockoutWait: EpochMillis = 30_000
        /// How long a sender waits for an acknowledgement before it sends a chunk again
        /// (MIG-XFER-005: 15 s; `--ack-timeout-ms` for a sender that states a shorter one).
        public var ackTimeout: EpochMillis = 15_000
        /// The fewest PBKDF2 iterations a sender's envelope header may state (MIG-ENV-003: the
        /// Spec's 600,000; `--minimum-iterations` lowers it for test senders).
        public var minimumIterations: UInt32 = EnvelopePolicy.standard.iterations.lowerBound
        public init() {}
    }

    /// One migration: from the receiver's Handshake to its end.
    struct Session {
        var index: Int
        var receiverHello: ControlMessage.Handshake?
        var senderHello: ControlMessage.Handshake?
        var rejections = 0
        var locked = false
        var pinAccepted = false
        var meta: ControlMessage.BackupMeta?
        var window: Int?
        /// Sends per chunk index, and which arrived damaged (their data's digest is not the header's).
        var sends: [Int: Int] = [:]
        var lastSent: [Int: EpochMillis] = [:]
        var damaged: Set<Int> = []
        /// The chunks acknowledged `ok`, with when their first `ok` crossed the watch.
        var acknowledgedAt: [Int: EpochMillis] = [:]
        /// The chunks sent and not yet acknowledged: the window's count and what a resume may
        /// send again, kept as chunks come and go (a count over every chunk sent, per chunk,
        /// made a 1 GiB transfer of 4 KiB chunks quadratic).
        var unacknowledged: Set<Int> = []
        var retransmitAsked: Set<Int> = []
        var highestSent = -1
        var envelopeDigest: String?
        var senderComplete = false
        var receiverComplete = false
    }

    public let options: Options
    private var sessions: [Session] = []
    private var records: [WatchSession] = []
    /// The connection each session's receiver is on.
    private var current: [Int: Int] = [:]
    private var findings = FindingTally()
    private var notes = NoteList()
    private var events: [WireEvent] = []
    private var eventsOmitted = 0
    private var connections: [Int: WatchConnection] = [:]
    /// When the last locked session ended (MIG-PIN-003).
    private var lastLock: EpochMillis?
    private var now: EpochMillis = 0

    public init(options: Options = Options()) {
        self.options = options
    }

    public var endedSessions: Int { records.filter { $0.endedAt != nil }.count }

    public mutating func tick(at: EpochMillis) { now = max(now, at) }

    public mutating func handle(_ event: WireEvent) {
        tick(at: event.at)
        if events.count < WatchResult.maxEvents { events.append(event) } else { eventsOmitted += 1 }
        let c = event.connection
        switch event.body {
        case .open:
            connections[c] = WatchConnection(id: c, side: "receiver", name: nil, registered: [], opened: event.at, closed: nil)
        case .text(let from, let text):
            control(text, from: from, on: c, at: event.at)
        case .binary(.server, let frame):
            chunk(frame, on: c, at: event.at)
        case .binary(.client, let frame):
            add(.client, c, at: event.at, frame: "a binary frame of \(frame.length) bytes", ControlFrame.binaryToSender(length: frame.length))
        case .envelope(let sha256, _):
            if let s = current[c] { sessions[s].envelopeDigest = sha256 }
        case .segments(let opened, let refused):
            segments(opened: opened, refused: refused, on: c, at: event.at)
        case .ping, .pong:
            break
        case .owner(let label):
            connections[c]?.name = label
        case .close:
            connections[c]?.closed = event.at
            if let s = current[c], records[s].endedAt == nil, sessions[s].meta == nil {
                // Before the transfer began a lost connection ends the session (MIG-XFER-006).
                end(s, "broken", step: "the connection ended before the transfer began", at: event.at)
            }
        }
    }

    public mutating func finish(at: EpochMillis) -> WatchResult {
        tick(at: at)
        for i in records.indices where records[i].endedAt == nil {
            records[i].outcome = "abandoned"
            records[i].step = "the watch ended first"
        }
        return WatchResult(
            family: "migration", sessions: records, findings: findings.kept.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element),
            findingsOmitted: findings.omitted, notes: notes.all, connections: connections.values.sorted { $0.id < $1.id }.map { c in
                var lane = c
                lane.side = "receiver"
                return lane
            }, events: events, eventsOmitted: eventsOmitted)
    }

    // MARK: control messages

    private mutating func control(_ text: String, from side: WireEvent.Side, on c: Int, at: EpochMillis) {
        let quoted = FrameJudge.quote(text, limit: 200)
        let checked = DocumentChecker.check(Array(text.utf8), name: "", kind: "control-message", context: .object(JSONObject()))
        let session = current[c]
        if let v = checked.violations.first {
            add(side, c, at: at, frame: quoted, v, session: session)
            return
        }
        guard let value = try? JSONParser.parse(Array(text.utf8)), let message = try? ControlMessage.decode(value) else { return }
        switch (side, message) {
        case (.client, .handshake(let hello)):
            if let s = current[c], records[s].endedAt == nil, sessions[s].meta != nil {
                // A reconnect's Handshake: the same session goes on (MIG-XFER-003).
                sessions[s].receiverHello = hello
                return
            }
            begin(hello, on: c, at: at)
        case (.server, .handshake(let hello)):
            guard let s = session else { return outOfOrder(side, c, at, quoted, "a Handshake after the receiver's") }
            if hello.role != .sender { add(side, c, at: at, frame: quoted, Violation(rule: MigrationRule.handshake, path: .root / "payload" / "role", expected: "\"sender\"", found: "\"\(hello.role.rawValue)\""), session: s) }
            sessions[s].senderHello = hello
        case (.server, .authPIN(.request)):
            guard let s = session, sessions[s].senderHello != nil, !sessions[s].locked, !sessions[s].pinAccepted else {
                return outOfOrder(side, c, at, quoted, session.map { sessions[$0].locked ? "no PIN after the session locked" : "a PIN after the Handshakes, before it was accepted" } ?? "a Handshake first")
            }
        case (.client, .authPIN(let answer)):
            guard let s = session else { return outOfOrder(side, c, at, quoted, "a Handshake first") }
            pinAnswer(answer, s, c, at, quoted)
        case (.server, .backupMeta(let meta)):
            guard let s = session, sessions[s].pinAccepted, sessions[s].meta == nil else { return outOfOrder(side, c, at, quoted, "BackupMeta once, after the PIN was accepted") }
            sessions[s].meta = meta
            // The header's parameters are judged without the password: a header no receiver may
            // accept (MIG-ENV-003) is the sender's break however the transfer goes on.
            let policy = EnvelopePolicy(iterations: options.minimumIterations...EnvelopePolicy.standard.iterations.upperBound)
            if let header = meta.envelopeHeader, case .invalidHeader(let v) = ReceiverMachine.PasswordCheck(header: header, password: nil, policy: policy) {
                add(side, c, at: at, frame: quoted, v, session: s)
            }
            if let most = sessions[s].receiverHello?.maxChunkSize, meta.chunkSize > most {
                add(side, c, at: at, frame: quoted, Violation(rule: MigrationRule.metaChecks, path: .root / "payload" / "chunkSize", expected: "at most the receiver's maxChunkSize \(most)", found: "\(meta.chunkSize)"), session: s)
            }
        case (.client, .startTransfer(_, let window)):
            guard let s = session, sessions[s].meta != nil, sessions[s].window == nil else { return outOfOrder(side, c, at, quoted, "StartTransfer once, after BackupMeta") }
            let most = min(sessions[s].receiverHello?.maxWindow ?? 64, sessions[s].senderHello?.maxWindow ?? 64)
            if window > most {
                add(side, c, at: at, frame: quoted, Violation(rule: MigrationRule.window, path: .root / "payload" / "window", expected: "at most \(most) (both Handshakes' maxWindow)", found: "\(window)"), session: s)
            }
            sessions[s].window = min(window, most)
        case (.client, .chunkAck(_, let index, let status)):
            guard let s = session else { return outOfOrder(side, c, at, quoted, "a Handshake first") }
            acknowledgement(index, status, s, c, at, quoted)
        case (.server, .complete(.sent(_, let count, let digest))):
            guard let s = session, let meta = sessions[s].meta else { return outOfOrder(side, c, at, quoted, "Complete after BackupMeta") }
            sessions[s].senderComplete = true
            if count != meta.chunkCount || !digest.bytesEqual(meta.envelopeSHA256) {
                let (member, want, got) = count != meta.chunkCount ? ("chunkCount", "\(meta.chunkCount)", "\(count)") : ("envelopeSHA256", meta.envelopeSHA256, digest)
                add(side, c, at: at, frame: quoted, Violation(rule: MigrationRule.finalDigest, path: .root / "payload" / member, expected: "\(want), as BackupMeta announced", found: got), session: s)
            }
            // From the acknowledgements, not the announced count (up to 2^41 chunks: an array
            // that large ended the watch).
            let acknowledged = sessions[s].acknowledgedAt.keys.filter { (0..<meta.chunkCount).contains($0) }.count
            if acknowledged < meta.chunkCount, let first = (0...acknowledged).first(where: { sessions[s].acknowledgedAt[$0] == nil }) {
                add(
                    side, c, at: at, frame: quoted,
                    Violation(rule: MigrationRule.order, path: .root, expected: "Complete once every chunk is acknowledged", found: "\(meta.chunkCount - acknowledged) not acknowledged, first \(first)"), session: s)
            }
        case (.client, .complete(let result)):
            guard let s = session, sessions[s].senderComplete else { return outOfOrder(side, c, at, quoted, "the receiver's Complete after the sender's") }
            verdict(result, s, c, at, quoted)
        case (_, .cancelTransfer(_, let reason)):
            if let s = session, records[s].endedAt == nil { end(s, "broken", step: "cancelled by the \(side == .client ? "receiver" : "sender"): \(reason.rawValue)", at: at) }
        case (.client, .resumeTransfer):
            // After a pause or a reconnect every unacknowledged chunk may come again.
            if let s = session { sessions[s].retransmitAsked.formUnion(sessions[s].unacknowledged) }
        case (_, .startBackup), (_, .pauseTransfer), (_, .resumeTransfer):
            break
        default:
            outOfOrder(side, c, at, quoted, "a message of the \(side == .client ? "sender" : "receiver"), not the \(side == .client ? "receiver" : "sender")")
        }
    }

    private mutating func begin(_ hello: ControlMessage.Handshake, on c: Int, at: EpochMillis) {
        var record = WatchSession(flow: "migration", outcome: "open", step: nil, code: nil, connections: ["receiver": c], startedAt: at, endedAt: nil)
        record.connections["sender"] = c
        records.append(record)
        sessions.append(Session(index: records.count - 1, receiverHello: hello))
        current[c] = records.count - 1
    }

    /// MIG-PIN-002: 4, 3, 2, 1 attempts left, then `locked` at the fifth wrong PIN, exactly; and
    /// MIG-PIN-003: no new PIN within the lockout after a locked session.
    private mutating func pinAnswer(_ answer: ControlMessage.AuthPIN, _ s: Int, _ c: Int, _ at: EpochMillis, _ quoted: String) {
        if sessions[s].rejections == 0, !sessions[s].pinAccepted, let lock = lastLock, at - lock <= options.lockoutWait {
            add(
                .client, c, at: at, frame: quoted,
                Violation(rule: MigrationRule.pinLockout, path: .root, expected: "no new PIN within \(options.lockoutWait) ms of the locked session", found: "a PIN answered \(at - lock) ms after it"), session: s)
        }
        switch answer {
        case .request:
            outOfOrder(.client, c, at, quoted, "the receiver answers PINs; it asks for none")
        case .rejected(let left):
            sessions[s].rejections += 1
            let want = 5 - sessions[s].rejections
            if sessions[s].rejections == 5 {
                add(.client, c, at: at, frame: quoted, Violation(rule: MigrationRule.pinAttempts, path: .root / "payload" / "result", expected: "\"locked\" at the fifth wrong PIN", found: "\"rejected\""), session: s)
            } else if left != want {
                add(.client, c, at: at, frame: quoted, Violation(rule: MigrationRule.pinAttempts, path: .root / "payload" / "attemptsLeft", expected: "\(want) after \(sessions[s].rejections) wrong PIN(s)", found: "\(left)"), session: s)
            }
        case .locked:
            sessions[s].locked = true
            lastLock = at
            if sessions[s].rejections != 4 {
                add(.client, c, at: at, frame: quoted, Violation(rule: MigrationRule.pinAttempts, path: .root / "payload" / "result", expected: "\"locked\" at the fifth wrong PIN", found: "locked after \(sessions[s].rejections + 1)"), session: s)
            }
            end(s, "broken", step: "PIN: locked", at: at)
        case .accepted:
            sessions[s].pinAccepted = true
            lastLock = nil
        }
    }

    private mutating func acknowledgement(_ index: Int, _ status: ControlMessage.ChunkStatus, _ s: Int, _ c: Int, _ at: EpochMillis, _ quoted: String) {
        guard sessions[s].sends[index] != nil else {
            add(.client, c, at: at, frame: quoted, Violation(rule: MigrationRule.chunkAck, path: .root / "payload" / "index", expected: "the index of a chunk the sender sent", found: "\(index)"), session: s)
            return
        }
        switch status {
        case .ok:
            if sessions[s].damaged.contains(index), sessions[s].acknowledgedAt[index] == nil {
                add(
                    .client, c, at: at, frame: quoted,
                    Violation(rule: MigrationRule.chunkDigest, path: .root / "payload" / "status", expected: "\"retransmit\": the last copy of chunk \(index) did not match its chunkSHA256", found: "\"ok\""), session: s)
            }
            if sessions[s].acknowledgedAt[index] == nil { sessions[s].acknowledgedAt[index] = at }
            sessions[s].unacknowledged.remove(index)
        case .retransmit:
            sessions[s].retransmitAsked.insert(index)
        }
    }

    /// The receiver's Complete: `verified` only when the data's digest is the one announced.
    private mutating func verdict(_ result: ControlMessage.Complete, _ s: Int, _ c: Int, _ at: EpochMillis, _ quoted: String) {
        guard let meta = sessions[s].meta else { return }
        let actual = sessions[s].envelopeDigest
        switch result {
        case .verified:
            if let actual, !actual.bytesEqual(meta.envelopeSHA256) {
                add(.client, c, at: at, frame: quoted, Violation(rule: MigrationRule.finalDigest, path: .root / "payload" / "result", expected: "\"digest-mismatch\": the data's SHA-256 is \(actual)", found: "\"verified\""), session: s)
            }
            end(s, "migrated", step: nil, at: at)
        case .digestMismatch:
            if let actual, actual.bytesEqual(meta.envelopeSHA256) {
                add(.client, c, at: at, frame: quoted, Violation(rule: MigrationRule.finalDigest, path: .root / "payload" / "result", expected: "\"verified\": the data's SHA-256 is the one announced", found: "\"digest-mismatch\""), session: s)
            }
            end(s, "broken", step: "digest: the receiver found a mismatch", at: at)
        case .sent:
            break
        }
        if actual == nil { notes.append("session \(s + 1): the final digest was not checked (the watch did not see every chunk whole)") }
    }

    /// The envelope opened with the password as it passed (MIG-ENV-*): a failure is the sender's,
    /// except a password that does not open it, which may be the watcher's own mistake.
    private mutating func segments(opened: Int, refused: EnvelopeError?, on c: Int, at: EpochMillis) {
        let s = current[c]
        let session = s.map { "session \($0 + 1): " } ?? ""
        guard let refused else {
            notes.append(session + "the envelope's \(opened) segments were authenticated with the password given")
            return
        }
        if refused.code == .wrongPassword {
            notes.append(session + "the password given does not open the envelope (MIG-ENV key check): its segments were not authenticated")
            return
        }
        add(.server, c, at: at, frame: "the envelope, after \(opened) segments opened", refused.violation, session: s)
    }

    // MARK: chunks

    private mutating func chunk(_ frame: WireEvent.BinaryFrame, on c: Int, at: EpochMillis) {
        let label = "BackupChunk of \(frame.length) bytes"
        guard let s = current[c], let meta = sessions[s].meta, sessions[s].window != nil else {
            return add(.server, c, at: at, frame: label, Violation(rule: MigrationRule.order, path: .root, expected: "chunks after StartTransfer", found: "a chunk"), session: current[c])
        }
        let chunk: BackupChunk
        do throws(Violation) {
            chunk = try BackupChunk.header(of: frame.head, frameLength: frame.length)
            try chunk.checkPlace(against: meta)
        } catch {
            return add(.server, c, at: at, frame: label, error, session: s)
        }
        let i = chunk.index
        let quoted = "BackupChunk \(i) (\(chunk.length) bytes)"
        // MIG-CHUNK-004: the data's SHA-256 (what the log keeps after the header) is the header's.
        let damaged = !frame.restSHA256.bytesEqual(chunk.digest.hexEncoded)
        if damaged {
            add(.server, c, at: at, frame: quoted, Violation(rule: MigrationRule.chunkDigest, path: .root / "chunkSHA256", expected: "the SHA-256 of the chunk's data", found: "a digest its data does not have"), session: s)
            sessions[s].damaged.insert(i)
        } else {
            sessions[s].damaged.remove(i)
        }
        let sends = sessions[s].sends[i, default: 0]
        if sends > 0 {
            // Again: asked for, or the ack is overdue (the sender's timeout); never once acknowledged.
            let since = at - (sessions[s].lastSent[i] ?? at)
            if let ok = sessions[s].acknowledgedAt[i] {
                // MIG-XFER-005's live tolerance: a send the watch sees soon after the ok may have
                // left before the sender read it (a window sent again at its timeout crosses the
                // acks of a receiver that acknowledges once a gap fills, §5.5).
                if at - ok >= options.ackTimeout * 4 / 5 {
                    add(
                        .server, c, at: at, frame: quoted,
                        Violation(rule: MigrationRule.retransmit, path: .root / "index", expected: "no chunk again once acknowledged ok", found: "chunk \(i), sent \(sends + 1) times, \(at - ok) ms after its ok"),
                        session: s)
                }
            } else if sends >= 5 {
                add(.server, c, at: at, frame: quoted, Violation(rule: MigrationRule.retransmit, path: .root / "index", expected: "at most 5 sends of one chunk", found: "send \(sends + 1)"), session: s)
            } else if !sessions[s].retransmitAsked.contains(i), since < options.ackTimeout * 4 / 5 {
                // MIG-XFER-005's live tolerance: the first send may have queued behind others
                // before the watch saw it, so the interval seen is shorter than the sender's.
                add(
                    .server, c, at: at, frame: quoted,
                    Violation(
                        rule: MigrationRule.retransmit, path: .root / "index",
                        expected: "a chunk again only when asked, or its ack overdue (\(options.ackTimeout) ms, at least \(options.ackTimeout * 4 / 5) ms seen)",
                        found: "chunk \(i) again \(since) ms after it was sent, not asked for"), session: s)
            }
            sessions[s].retransmitAsked.remove(i)
        } else if i > sessions[s].highestSent + 1 {
            add(.server, c, at: at, frame: quoted, Violation(rule: MigrationRule.window, path: .root / "index", expected: "chunks in index order: \(sessions[s].highestSent + 1) next", found: "\(i)"), session: s)
        }
        sessions[s].sends[i] = sends + 1
        if sessions[s].acknowledgedAt[i] == nil { sessions[s].unacknowledged.insert(i) }
        sessions[s].lastSent[i] = at
        sessions[s].highestSent = max(sessions[s].highestSent, i)
        // MIG-XFER-001: unacknowledged chunks at most the window.
        let window = sessions[s].window ?? 1
        let outstanding = sessions[s].unacknowledged.count
        if outstanding > window {
            add(.server, c, at: at, frame: quoted, Violation(rule: MigrationRule.window, path: .root, expected: "at most \(window) chunks unacknowledged", found: "\(outstanding)"), session: s)
        }
    }

    // MARK: findings

    private mutating func outOfOrder(_ side: WireEvent.Side, _ c: Int, _ at: EpochMillis, _ quoted: String, _ expected: String) {
        add(side, c, at: at, frame: quoted, Violation(rule: MigrationRule.order, path: .root, expected: expected, found: "this message"), session: current[c])
    }

    private mutating func end(_ s: Int, _ outcome: String, step: String?, at: EpochMillis) {
        guard records[s].endedAt == nil else { return }
        records[s].outcome = outcome
        records[s].step = step
        records[s].endedAt = at
    }

    private mutating func add(_ side: WireEvent.Side, _ c: Int, at: EpochMillis, frame: String, _ violation: Violation, session: Int? = nil) {
        var v = violation
        v.subject = "connection \(c)"
        findings.add(
            WatchFinding(side: side == .client ? "receiver" : "sender", name: nil, connection: c, frame: frame, at: at, violation: v, session: session ?? current[c]))
    }
}

extension MigrationWatch.Options {
    /// As the session log's header keeps them (`judge`), and back.
    public var json: JSONObject {
        JSONObject([
            "lockoutWait": .number(JSONNumber(lockoutWait)), "ackTimeout": .number(JSONNumber(ackTimeout)),
            "minimumIterations": .number(JSONNumber(Int64(minimumIterations))),
        ])
    }

    public init(json: JSONObject) {
        self.init()
        let value = JSONValue.object(json)
        lockoutWait = value["lockoutWait"]?.integerValue ?? lockoutWait
        ackTimeout = value["ackTimeout"]?.integerValue ?? ackTimeout
        if let floor = value["minimumIterations"]?.integerValue, floor >= 1, floor <= Int64(EnvelopePolicy.standard.iterations.upperBound) {
            minimumIterations = UInt32(floor)
        }
    }
}
