import Pairing
import Reference
import WireCore

/// Judges what passes between real pairing clients and a relay (Spec pairing.md sections 3 to 5)
/// from the frames alone: every client frame with the document checker and the client rules
/// (register first, the echo-loop trap, keepalives), the relay's answers and deliveries when the
/// relay is someone else's, and the flows reconstructed as sessions. Sans-I/O: events in, a
/// result out; time is each event's `at`. Which side a connection is comes from what it does:
/// a connection that registers an alias or confirms is a desktop's, one that sends a `pair-ack`
/// a phone's, a later connection that registers the same id the same client's.
public struct PairingWatch: Sendable {
    /// What a relay sends a client (3.5): judged as documents; anything else is a note.
    static let relayFrames = PairingKind.types(carriedAs: .relayFrame).union(broadcasts)
    /// What a relay may send unasked (a presence broadcast): judged as a document, then noted.
    static let broadcasts = PairingKind.types(carriedAs: .relayBroadcast)
    public struct Options: Sendable {
        /// The keepalive interval the clients state (`--keepalive-ms`); nil: any the Spec allows.
        public var keepaliveInterval: EpochMillis?
        /// The first back-off delay the clients state (`--backoff`); nil: the Spec's least, 500 ms.
        public var firstBackoff: EpochMillis?
        /// Judge the relay's frames (`--upstream`: the relay is someone else's).
        public var judgeRelay = false
        /// How long a relay may take to answer or deliver.
        public var frameTimeout: EpochMillis = 5000
        /// How long a typed code waits for its confirmation (PAIR-MAN-003).
        public var confirmationWait: EpochMillis = PairingTimeouts.validity
        /// `--name PEERID=LABEL`.
        public var names: [String: String] = [:]
        public init() {}
    }

    struct Connection {
        let id: Int
        let opened: EpochMillis
        var closed: EpochMillis?
        var closedByClient = false
        var registered: [String] = []
        var role: String?
        /// Client text frames so far.
        var frames = 0
        /// Its first client frames (their type, the id a register names, when, the frame): who
        /// came back after a drop, and whether it registered first (PAIR-CONN-001), is decided
        /// from these at the end, when every connection's behaviour is known.
        var opening: [(type: String?, peerId: String?, at: EpochMillis, quoted: String)] = []
        var keepalives: [EpochMillis] = []
        var keepaliveJudged = false
        /// The ids it sent messages to.
        var targets: Set<ByteString> = []
    }

    /// A client frame the relay must answer or deliver (judged with `--upstream`).
    struct Pending {
        var connection: Int
        var at: EpochMillis
        var kind: String
        var to: String?
        var peerId: String?
        var payload: JSONValue?
        var frame: String
        /// The client closed its connection before the answer was due: an answer on it can no
        /// longer come (a delivery to the target still can).
        var senderClosed = false
    }

    /// A session's progress.
    struct Flow {
        var session: WatchSession
        var mobileDid: String?
        var ackAt: EpochMillis
        /// The code the desktop showed (its live alias) when the ack came, if it had one.
        var shownCode: String?
        /// A session whose outcome is known but whose other side may still answer (a wrong
        /// code the desktop must not confirm): it ends then, with this outcome and step.
        var closing: (at: EpochMillis, outcome: String, step: String?)?
        /// With `--upstream`: the ack's payload, until the relay delivers it.
        var undelivered: JSONValue?
    }

    public let options: Options
    private var connections: [Int: Connection] = [:]
    /// Every registration of an id, in order: (connection, time).
    private var registrations: [ByteString: [(connection: Int, at: EpochMillis)]] = [:]
    /// The connection an id routes to now.
    private var holders: [ByteString: Int] = [:]
    /// Aliases that received their pair-ack (spent: PAIR-SEC-003), so no longer owed after a reconnect.
    private var spent: Set<ByteString> = []
    private var pending: [Pending] = []
    private var flows: [Flow] = []
    private var exchanges = ExchangeWatch()
    private var findings: [(connection: Int?, relay: Bool, finding: WatchFinding)] = []
    private var notes = NoteList()
    private var events: [WireEvent] = []
    private var eventsOmitted = 0
    private var now: EpochMillis = 0

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Sessions that have ended (paired or broken): `--sessions N` stops the watch at N.
    public var endedSessions: Int { flows.filter { $0.session.endedAt != nil }.count }

    public mutating func handle(_ event: WireEvent) {
        tick(at: event.at)
        if events.count < WatchResult.maxEvents { events.append(event) } else { eventsOmitted += 1 }
        expire(at: event.at)
        let c = event.connection
        switch event.body {
        case .open:
            connections[c] = Connection(id: c, opened: event.at)
        case .text(.client, let text):
            client(text, on: c, at: event.at)
        case .text(.server, let text):
            server(text, on: c, at: event.at)
        case .binary(let from, let frame):
            add(c, relay: from == .server, at: event.at, frame: "a binary frame of \(frame.length) bytes",
                Violation(rule: PairingRule.relayRouting, path: .root, expected: "text frames only (signaling is JSON)", found: "a binary frame of \(frame.length) bytes"))
        case .ping(.client):
            connections[c]?.keepalives.append(event.at)
        case .ping(.server), .pong, .envelope, .segments:
            break
        case .close(let by, _):
            connections[c]?.closed = event.at
            connections[c]?.closedByClient = by == .client
            judgeKeepalives(c, until: event.at)
            // A register's answer goes only to its connection: once that is closed, none is due.
            pending.removeAll { p in
                guard p.connection == c, p.kind == "register" else { return false }
                notes.append("connection \(c): closed \(event.at - p.at) ms after \(p.frame), before the relay's answer (not judged)")
                return true
            }
            for i in pending.indices where pending[i].connection == c { pending[i].senderClosed = true }
            for id in connections[c]?.registered ?? [] where holders[ByteString(id)] == c { holders[ByteString(id)] = nil }
        }
    }

    /// The watch is over: what is still open is judged as of `at`.
    public mutating func finish(at: EpochMillis) -> WatchResult {
        tick(at: at)
        expire(at: at)
        for p in pending {
            notes.append("connection \(p.connection): the watch ended \(at - p.at) ms after \(p.frame), before the relay's answer was due (not judged)")
        }
        pending = []
        judgeExchanges(final: true)
        judgeReconnects(trapped: judgeTraps())
        for id in connections.keys.sorted() where connections[id]?.closed == nil { judgeKeepalives(id, until: now) }
        for i in flows.indices where flows[i].session.endedAt == nil {
            let flow = flows[i]
            if flow.session.flow == "manual", now - flow.ackAt > options.confirmationWait {
                end(i, "broken", step: "confirmation: none within \(options.confirmationWait) ms")
                add(
                    flow.session.connections["desktop"], relay: false, at: now, frame: nil,
                    Violation(
                        rule: PairingRule.desktopConfirms, path: .root, expected: "a confirmation to \(flow.mobileDid.map(JSONSerializer.quoted) ?? "the phone") within \(options.confirmationWait) ms",
                        found: "none"), session: i)
            } else {
                flows[i].session.outcome = "abandoned"
                flows[i].session.step = "the watch ended first"
            }
        }
        return result()
    }

    // MARK: client frames

    private mutating func client(_ text: String, on c: Int, at: EpochMillis) {
        guard connections[c] != nil else { return }
        connections[c]?.frames += 1
        let bytes = Array(text.utf8)
        let quoted = FrameJudge.quote(text, limit: 200)
        guard let json = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 64)) else {
            let checked = DocumentChecker.check(bytes, name: "", kind: "message", context: ["now": .number(JSONNumber(at))])
            for v in checked.violations { add(c, relay: false, at: at, frame: quoted, v) }
            return
        }
        let type = json["type"]?.stringValue
        if (connections[c]?.opening.count ?? 0) < 32 {
            connections[c]?.opening.append((type, type == "register" ? json["peerId"]?.stringValue : nil, at, quoted))
        }
        switch type {
        case "register":
            register(json, bytes, on: c, at: at, quoted: quoted)
        case "message":
            message(json, bytes, on: c, at: at, quoted: quoted)
        case "ping":
            connections[c]?.keepalives.append(at)
        case let type? where WebRTCSignal.bareFrameTypes.contains(type):
            // Android's default and the desktop's form: the deployed relay drops it without a word.
            add(
                c, relay: false, at: at, frame: quoted,
                Violation(
                    rule: PairingRule.rtcBareFrame, path: .root / "type", expected: "a WebRTC signal as the payload of a message (3.7)",
                    found: "a bare \(JSONSerializer.quoted(type)) frame"))
        default:
            notes.append("connection \(c): \(quoted) (not a frame the Spec defines for clients; not judged)")
        }
    }

    private mutating func register(_ json: JSONValue, _ bytes: [UInt8], on c: Int, at: EpochMillis, quoted: String) {
        let checked = DocumentChecker.check(bytes, name: "", kind: "register", context: ["now": .number(JSONNumber(at))])
        for v in checked.violations { add(c, relay: false, at: at, frame: quoted, v) }
        guard checked.violations.isEmpty, let peerId = json["peerId"]?.stringValue else { return }
        let key = ByteString(peerId)
        // The first to register an alias is a desktop (its code); a later one may be a phone
        // caught in the echo-loop trap, decided at the end.
        if PeerID.aliasCode(peerId) != nil, registrations[key] == nil {
            if connections[c]?.role == "phone" {
                add(c, relay: false, at: at, frame: quoted, trap(peerId, "a phone registers its own DID, never a pairing-code: alias"))
            } else {
                connections[c]?.role = "desktop"
            }
        }
        registrations[key, default: []].append((c, at))
        holders[key] = c
        connections[c]?.registered.append(peerId)
        if options.judgeRelay {
            pending.append(Pending(connection: c, at: at, kind: "register", to: nil, peerId: peerId, payload: nil, frame: quoted))
        }
    }

    private func trap(_ peerId: String, _ expected: String) -> Violation {
        Violation(rule: PairingRule.registerOwnID, path: .root / "peerId", expected: expected, found: JSONSerializer.quoted(peerId))
    }

    private mutating func message(_ json: JSONValue, _ bytes: [UInt8], on c: Int, at: EpochMillis, quoted: String) {
        // The sender's own id (its first registered one that is not an alias) for the echo rule (PAIR-RTC-004).
        var context = JSONObject(["now": .number(JSONNumber(at))])
        if let own = connections[c]?.registered.first(where: { PeerID.aliasCode($0) == nil }) { context["localPeerId"] = .string(own) }
        let checked = DocumentChecker.check(bytes, name: "", kind: "message", context: .object(context))
        let session = sessionIndex(for: json, from: c, at: at)
        for v in checked.violations { add(c, relay: false, at: at, frame: quoted, v, session: session) }
        guard checked.violations.isEmpty, let to = json["to"]?.stringValue, let payload = json["payload"] else { return }
        connections[c]?.targets.insert(ByteString(to))
        if options.judgeRelay {
            pending.append(Pending(connection: c, at: at, kind: "message", to: to, peerId: nil, payload: payload, frame: quoted))
        }
        switch payload["type"]?.stringValue {
        case PairingKind.pairAck.rawValue?:
            ack(payload, to: to, on: c, at: at, quoted: quoted)
        case PairingKind.pairingConfirmation.rawValue?:
            confirmation(payload, to: to, on: c, at: at, quoted: quoted)
        case let type? where WebRTCSignal.payloadTypes.contains(type):
            let own = connections[c]?.registered ?? []
            // For an offer: the latest paired session whose phone is this sender.
            let paired = type == "offer"
                ? flows.lastIndex { f in f.session.outcome == "paired" && f.mobileDid.map { did in own.contains { $0.bytesEqual(did) } } == true }
                    .flatMap { i in flows[i].mobileDid.map { (did: $0, session: i) } }
                : nil
            exchanges.signal(type, to: to, senderIds: own, on: c, at: at, pairedPhone: paired)
        default:
            break
        }
    }

    /// What a side of a WebRTC exchange failed to send in time is its PAIR-RTC-006; an exchange
    /// the watch did not see to its end is a note.
    private mutating func judgeExchanges(final: Bool) {
        let (missing, unfinished) = exchanges.judge(now: now, final: final)
        for m in missing {
            let x = m.exchange
            let c = m.fromDesktop ? (holders[ByteString(x.desktop)] ?? flows[x.session].session.connections["desktop"]) : x.phoneConnection
            add(
                c, relay: false, at: x.offerAt + ExchangeWatch.window, frame: nil,
                Violation(rule: PairingRule.rtcNegotiation, path: .root, expected: m.expected, found: "none"), session: x.session)
        }
        for x in unfinished {
            notes.append(
                "connection \(x.phoneConnection): the watch ended \(now - x.offerAt) ms after the phone's WebRTC offer, before the exchange was due (not judged)")
        }
    }

    /// A phone's `pair-ack`: to an alias, the manual flow; to a desktop's own id, Flow B.
    private mutating func ack(_ payload: JSONValue, to: String, on c: Int, at: EpochMillis, quoted: String) {
        connections[c]?.role = "phone"
        for id in connections[c]?.registered ?? [] where PeerID.aliasCode(id) != nil {
            // Found out now: this client registered an alias, which only a desktop does.
            add(c, relay: false, at: at, frame: quoted, trap(id, "a phone registers its own DID, never a pairing-code: alias"))
        }
        let code = payload["pairingCode"]?.stringValue
        let manual = PeerID.aliasCode(to) != nil
        let desktop = holders[ByteString(to)]
        if let desktop { connections[desktop]?.role = "desktop" }
        var shown = desktop.flatMap { connections[$0]?.registered.compactMap(PeerID.aliasCode).last }
        if manual {
            shown = PeerID.aliasCode(to)
            if desktop != nil { spent.insert(ByteString(to)) }
        }
        var session = WatchSession(
            flow: manual ? "manual" : "flow-b", outcome: "open", step: nil, code: code, connections: ["phone": c], startedAt: at, endedAt: nil)
        if let desktop { session.connections["desktop"] = desktop }
        flows.append(Flow(session: session, mobileDid: payload["mobileDid"]?.stringValue, ackAt: at, shownCode: shown))
        let i = flows.count - 1
        guard desktop != nil else {
            end(i, "broken", step: "delivery: nobody held \(JSONSerializer.quoted(to))")
            return
        }
        if options.judgeRelay {
            // Someone else's relay: the session goes on when it delivers the ack (`delivered`).
            flows[i].undelivered = payload
            flows[i].closing = (at + options.frameTimeout, "broken", "delivery: the relay delivered nothing within \(options.frameTimeout) ms")
            return
        }
        delivered(i, at: at)
    }

    /// The ack reached the desktop: Flow B ends for the phone; the desktop checks the code. A
    /// typed code waits for the confirmation.
    private mutating func delivered(_ i: Int, at: EpochMillis) {
        flows[i].undelivered = nil
        flows[i].closing = nil
        let (shown, code) = (flows[i].shownCode, flows[i].session.code)
        if flows[i].session.flow == "flow-b" {
            if let shown, let code, !shown.bytesEqual(code) {
                // Ends once the desktop had its time to answer: it must drop the ack (PAIR-DESK-003).
                flows[i].closing = (at + options.frameTimeout, "broken", "code: the ack carries \(code), the desktop shows \(shown)")
            } else {
                // The code is used up: the desktop stops holding its alias (PAIR-DESK-002).
                if let shown { spent.insert(ByteString(PeerID.alias(forCode: shown))) }
                end(i, "paired", step: nil)
            }
        }
    }

    /// A desktop's confirmation: of a typed code (manual), or of a scanned phone QR (Flow A).
    private mutating func confirmation(_ payload: JSONValue, to: String, on c: Int, at: EpochMillis, quoted: String) {
        connections[c]?.role = "desktop"
        let code = payload["pairingCode"]?.stringValue
        let phone = holders[ByteString(to)]
        if let phone { connections[phone]?.role = "phone" }
        // The latest ack from this phone that this desktop received.
        if let i = flows.lastIndex(where: { $0.mobileDid.map { $0.bytesEqual(to) } == true && $0.session.connections["desktop"] == c }) {
            let flow = flows[i]
            if let shown = flow.shownCode, let acked = flow.session.code, !shown.bytesEqual(acked) {
                add(
                    c, relay: false, at: at, frame: quoted,
                    Violation(
                        rule: PairingRule.desktopRefuses, path: .root / "payload" / "pairingCode", expected: "no confirmation of a pair-ack whose code \(acked) is not the code shown (\(shown))",
                        found: "a confirmation" + (code.map { " of \($0)" } ?? "")), session: i)
                if flow.session.endedAt == nil { end(i, "broken", step: "code: the desktop confirmed the wrong code \(acked)") }
            } else if flow.session.flow == "manual", flow.session.endedAt == nil {
                if at - flow.ackAt > options.confirmationWait {
                    end(i, "broken", step: "confirmation: after \(at - flow.ackAt) ms, the phone had given up")
                } else {
                    end(i, "paired", step: nil)
                }
            } else if flow.session.flow == "flow-b" {
                notes.append("connection \(c): a confirmation in Flow B, where none is due (PAIR-DESK-002): \(quoted)")
            }
            return
        }
        // No ack came before it: the desktop scanned the phone's own QR (Flow A).
        var session = WatchSession(flow: "flow-a", outcome: "open", step: nil, code: code, connections: ["desktop": c], startedAt: at, endedAt: nil)
        if let phone { session.connections["phone"] = phone }
        flows.append(Flow(session: session, mobileDid: to, ackAt: at, shownCode: nil))
        if phone != nil {
            end(flows.count - 1, "paired", step: nil)
        } else {
            end(flows.count - 1, "broken", step: "delivery: nobody held \(JSONSerializer.quoted(to))")
        }
    }

    private func sessionIndex(for json: JSONValue, from c: Int, at: EpochMillis) -> Int? {
        guard let to = json["to"]?.stringValue else { return nil }
        switch json["payload"]?["type"]?.stringValue {
        case PairingKind.pairAck.rawValue?: return flows.count
        case PairingKind.pairingConfirmation.rawValue?:
            return flows.lastIndex { $0.mobileDid.map { $0.bytesEqual(to) } == true && $0.session.connections["desktop"] == c } ?? flows.count
        default: return nil
        }
    }

    private mutating func end(_ i: Int, _ outcome: String, step: String?, at: EpochMillis? = nil) {
        flows[i].session.outcome = outcome
        flows[i].session.step = step
        flows[i].session.endedAt = at ?? now
        flows[i].closing = nil
    }

    /// Time passed without a frame: sessions waiting for the other side's answer end when it is
    /// due (the live watch ticks; a replay reaches the same ends at its next event or the end).
    public mutating func tick(at: EpochMillis) {
        now = max(now, at)
        for i in flows.indices {
            if let closing = flows[i].closing, closing.at <= now { end(i, closing.outcome, step: closing.step, at: closing.at) }
        }
        judgeExchanges(final: false)
    }

    // MARK: timing

    /// PAIR-CONN-003 on one connection, up to `until`: the first breach only (what follows from
    /// a missing keepalive is the same fault).
    private mutating func judgeKeepalives(_ c: Int, until: EpochMillis) {
        guard let connection = connections[c], !connection.keepaliveJudged, !connection.registered.isEmpty else { return }
        let interval = options.keepaliveInterval ?? 30_000
        let late = interval + interval / 5 + 1000
        let early = (options.keepaliveInterval ?? 5000) * 4 / 5
        var previous = connection.opened
        for (n, at) in connection.keepalives.enumerated() {
            if at - previous > late {
                return breach(c, n + 1, "a keepalive within \(late) ms of the \(n == 0 ? "connection opening" : "one before")", "\(at - previous) ms", at: at)
            }
            if n > 0, at - previous < early {
                return breach(c, n + 1, "at least \(early) ms after the one before", "\(at - previous) ms", at: at)
            }
            previous = at
        }
        if until - previous > late {
            breach(c, connection.keepalives.count + 1, "a keepalive within \(late) ms of the \(connection.keepalives.isEmpty ? "connection opening" : "one before")", "none for \(until - previous) ms", at: until)
        }
    }

    private mutating func breach(_ c: Int, _ n: Int, _ expected: String, _ found: String, at: EpochMillis) {
        connections[c]?.keepaliveJudged = true
        add(c, relay: false, at: at, frame: "keepalive \(n)", Violation(rule: PairingRule.keepaliveInterval, path: .root, expected: expected, found: found))
    }

    // MARK: who came back, and who registered someone else's id (decided at the end)

    /// PAIR-SIG-001, the echo-loop trap: two live connections hold one id, one of them not its
    /// owner's client. The owner's client is the one with the role of the id's first registrant;
    /// an old connection that goes quiet is the same client's half-open one, not a second client.
    /// Returns the connections caught in the trap.
    private mutating func judgeTraps() -> Set<Int> {
        var trapped: Set<Int> = []
        // A client on a new connection that registers the id it sent to (its target) instead of
        // its own: the trap as the seed names it (§6.2, "sendOffer ... must never set the current
        // peer id to the target"). Whose client it is: the connection that closed last before it
        // and either held that id (the same client, back) or sent to it (the trap); a connection
        // whose behaviour shows its role continues one of that role.
        for c in connections.keys.sorted() {
            guard let connection = connections[c], let first = connection.opening.first, first.type == "register", let id = first.peerId else { continue }
            let key = ByteString(id)
            let candidates = connections.values.filter { p in
                p.id != c && p.closed.map { $0 <= connection.opened && connection.opened - $0 <= 120_000 } == true
                    && (p.targets.contains(key) || p.registered.contains { $0.bytesEqual(id) })
                    && (connection.role == nil || p.role == connection.role)
            }
            // A client back after a drop registers again every id it held (PAIR-CONN-001): a
            // connection that held more than this one registers is another client's (a desktop
            // that closed after pairing a moment after the phone's drop), whatever closed last.
            let registers = connection.opening.compactMap(\.peerId)
            func consistent(_ p: Connection) -> Int {
                p.targets.contains(key) || p.registered.allSatisfy { id in registers.contains { $0.bytesEqual(id) } } ? 1 : 0
            }
            guard let previous = candidates.max(by: { (consistent($0), $0.closed ?? 0, $0.id) < (consistent($1), $1.closed ?? 0, $1.id) }),
                !previous.registered.contains(where: { $0.bytesEqual(id) })
            else { continue }
            trapped.insert(c)
            connections[c]?.role = previous.role
            add(c, relay: false, at: first.at, frame: first.quoted, trap(id, "the client's own id on its new connection, not \(JSONSerializer.quoted(id)), the id it sent to (the echo-loop trap)"))
        }
        for (key, list) in registrations.sorted(by: { ($0.value.first?.at ?? 0, $0.key.value) < ($1.value.first?.at ?? 0, $1.key.value) }) {
            guard let owner = list.first?.connection else { continue }
            let ownerRole = connections[owner]?.role
            for reg in list.dropFirst() where reg.connection != owner && !trapped.contains(reg.connection) {
                let c = reg.connection
                guard let holder = list.last(where: { h in h.connection != c && h.at <= reg.at && (connections[h.connection]?.closed ?? .max) > reg.at }),
                    isActive(holder.connection, after: reg.at)
                else { continue }
                let culprit = ownerRole != nil && connections[c]?.role == ownerRole && connections[holder.connection]?.role != ownerRole ? holder.connection : c
                guard trapped.insert(culprit).inserted else { continue }
                if connections[culprit]?.role == nil, let ownerRole { connections[culprit]?.role = ownerRole == "desktop" ? "phone" : "desktop" }
                let frame = connections[culprit]?.opening.first { $0.peerId.map { $0.bytesEqual(key.value) } == true }
                add(culprit, relay: false, at: frame?.at ?? reg.at, frame: frame?.quoted, trap(key.value, "the client's own id, not one another live connection holds (the echo-loop trap)"))
            }
        }
        return trapped
    }

    /// Whether a connection still did anything after `at`: a frame, a keepalive, or staying open.
    private func isActive(_ c: Int, after at: EpochMillis) -> Bool {
        guard let connection = connections[c] else { return false }
        if connection.closed == nil || connection.closedByClient { return true }
        return connection.opening.contains { $0.at > at } || connection.keepalives.contains { $0 > at }
    }

    /// PAIR-CONN-001 and PAIR-CONN-002's lower bound: every connection registers before any other
    /// frame; a client that lost its connection (not one that closed it) waits before it comes
    /// back and registers again every id it held that is still live.
    private mutating func judgeReconnects(trapped: Set<Int>) {
        for c in connections.keys.sorted() {
            guard let connection = connections[c], let first = connection.opening.first, first.type != "register" else { continue }
            add(c, relay: false, at: first.at, frame: first.quoted, Violation(rule: PairingRule.reRegister, path: .root, expected: "a register before any other frame", found: "a \(first.type ?? "frame") first"))
        }
        for p in connections.keys.sorted() {
            guard let old = connections[p], let closed = old.closed, !old.closedByClient, !trapped.contains(p) else { continue }
            let held = old.registered.filter { !spent.contains(ByteString($0)) }
            guard let next = connections.values.filter({ $0.opened >= closed && !trapped.contains($0.id) }).sorted(by: { $0.id < $1.id })
                .first(where: { c in c.opening.first?.peerId.map { id in held.contains { $0.bytesEqual(id) } } == true })
            else { continue }
            if next.role == nil { connections[next.id]?.role = old.role }
            var owed = held
            for frame in next.opening {
                guard !owed.isEmpty else { break }
                if frame.type == "register", let id = frame.peerId {
                    owed.removeAll { $0.bytesEqual(id) }
                    continue
                }
                add(
                    next.id, relay: false, at: frame.at, frame: frame.quoted,
                    Violation(
                        rule: PairingRule.reRegister, path: .root,
                        expected: "a register of \(owed.map(JSONSerializer.quoted).joined(separator: ", ")) before any other frame (the ids held before the drop)",
                        found: "a \(frame.type ?? "frame") first"))
                break
            }
            let least = (options.firstBackoff ?? 500) * 4 / 5
            if next.opened - closed < least {
                add(
                    next.id, relay: false, at: next.opened, frame: "reconnection after connection \(p) dropped",
                    Violation(rule: PairingRule.backoff, path: .root, expected: "a wait of at least \(least) ms after the drop", found: "\(next.opened - closed) ms"))
            }
        }
    }

    // MARK: the relay's frames (--upstream)

    private mutating func server(_ text: String, on c: Int, at: EpochMillis) {
        guard options.judgeRelay else { return }
        let bytes = Array(text.utf8)
        let quoted = FrameJudge.quote(text, limit: 200)
        guard let json = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 64)) else {
            add(c, relay: true, at: at, frame: quoted, Violation(rule: CoreRule.syntax, path: .root, expected: "a JSON text frame", found: quoted))
            return
        }
        if let type = json["type"]?.stringValue, WebRTCSignal.bareFrameTypes.contains(type) {
            add(
                c, relay: true, at: at, frame: quoted,
                Violation(
                    rule: PairingRule.rtcBareFrame, path: .root / "type", expected: "no bare WebRTC frame (a relay refuses them with invalid-message)",
                    found: "a bare \(JSONSerializer.quoted(type)) frame delivered"))
            return
        }
        guard let type = json["type"]?.stringValue, Self.relayFrames.contains(type) else {
            // Presence broadcasts and other extensions: the Spec allows them (3.5).
            notes.append("connection \(c): the relay sent \(quoted) (not a frame the Spec defines; not judged)")
            return
        }
        let checked = DocumentChecker.check(bytes, name: "", kind: type, context: ["now": .number(JSONNumber(at))])
        for v in checked.violations { add(c, relay: true, at: at, frame: quoted, v) }
        switch type {
        case "registered":
            if let i = pending.firstIndex(where: { $0.kind == "register" && $0.connection == c && $0.peerId.map { $0.bytesEqual(json["peerId"]?.stringValue ?? "") } == true }) {
                pending.remove(at: i)
            }
        case "error":
            if let i = pending.firstIndex(where: { $0.connection == c }) { pending.remove(at: i) }
        case "peer-offline":
            if let i = pending.firstIndex(where: { $0.kind == "message" && $0.connection == c && $0.to.map { $0.bytesEqual(json["peerId"]?.stringValue ?? "") } == true }) {
                pending.remove(at: i)
            }
        case "message":
            delivery(json, on: c, at: at, quoted: quoted)
        case let type where Self.broadcasts.contains(type):
            // Judged as a document above; no client asked for it, and none acts on it.
            if checked.violations.isEmpty { notes.append("connection \(c): the relay sent \(quoted) (sent unasked, which the Spec allows; checked, ignored)") }
        default:
            // A pong answers the client's keepalive: judged as a document above.
            break
        }
    }

    /// A delivery matched to the message it carries by content, never by arrival order.
    private mutating func delivery(_ json: JSONValue, on c: Int, at: EpochMillis, quoted: String) {
        let payload = json["payload"]
        let to = json["to"]?.stringValue
        // A relay may leave `to` out of a delivery (3.5); when it is there it must be the target.
        func carries(_ p: Pending) -> Bool {
            guard p.kind == "message", p.payload == payload else { return false }
            guard let to else { return true }
            return p.to.map { to.bytesEqual($0) } ?? false
        }
        guard let i = pending.firstIndex(where: carries) else {
            notes.append("connection \(c): a delivery the watch saw no client send: \(quoted)")
            return
        }
        let sent = pending.remove(at: i)
        if let f = flows.firstIndex(where: { $0.undelivered == payload && $0.session.endedAt == nil }) { delivered(f, at: at) }
        let sender = connections[sent.connection]?.registered.first
        if let sender, json["from"]?.stringValue.map({ $0.bytesEqual(sender) }) != true {
            add(
                c, relay: true, at: at, frame: quoted,
                Violation(
                    rule: PairingRule.relayRouting, path: .root / "from", expected: "the sender's registered id \(JSONSerializer.quoted(sender))",
                    found: json["from"]?.brief ?? "absent"))
        }
        if let to = sent.to, let holder = holders[ByteString(to)], holder != c {
            add(
                c, relay: true, at: at, frame: quoted,
                Violation(rule: PairingRule.relayRouting, path: .root, expected: "delivery on connection \(holder), which holds \(JSONSerializer.quoted(to))", found: "connection \(c)"))
        }
    }

    /// Client frames the relay left unanswered past the frame timeout.
    private mutating func expire(at: EpochMillis) {
        while let first = pending.first, at - first.at > options.frameTimeout {
            pending.removeFirst()
            if first.senderClosed {
                // Only a delivery could still have come; peer-offline or error had nowhere to go.
                notes.append("connection \(first.connection): no delivery of \(first.frame); the sender had closed, so peer-offline or error could not reach it (not judged)")
                continue
            }
            let expected = first.kind == "register" ? "registered or error within \(options.frameTimeout) ms" : "a delivery, peer-offline or error within \(options.frameTimeout) ms"
            add(first.connection, relay: true, at: first.at, frame: first.frame, Violation(rule: PairingRule.relayRouting, path: .root, expected: expected, found: "nothing"))
        }
    }

    // MARK: findings

    private mutating func add(_ c: Int?, relay: Bool, at: EpochMillis, frame: String?, _ violation: Violation, session: Int? = nil) {
        var v = violation
        v.subject = c.map { "connection \($0)" }
        let owning = session ?? c.flatMap { c in flows.lastIndex { $0.session.connections.values.contains(c) && ($0.session.endedAt ?? .max) >= at } }
        findings.append((c, relay, WatchFinding(side: relay ? "relay" : "unknown", name: nil, connection: c, frame: frame, at: at, violation: v, session: owning)))
    }

    private func label(_ c: Int) -> String? {
        for id in connections[c]?.registered ?? [] {
            if let name = options.names[id] { return name }
        }
        return nil
    }

    private func result() -> WatchResult {
        let sides = connections.mapValues { $0.role ?? "unknown" }
        // In time order (the end's judgements found earlier frames), ties as found.
        let ordered = findings.enumerated().sorted { ($0.element.finding.at, $0.offset) < ($1.element.finding.at, $1.offset) }.map(\.element)
        let list = ordered.map { item -> WatchFinding in
            var f = item.finding
            if !item.relay, let c = item.connection {
                f.side = sides[c] ?? "unknown"
                f.name = label(c)
            }
            return f
        }
        let lanes = connections.values.sorted { $0.id < $1.id }.map {
            WatchConnection(id: $0.id, side: $0.role ?? "unknown", name: label($0.id), registered: $0.registered, opened: $0.opened, closed: $0.closed)
        }
        return WatchResult(
            family: "pairing", sessions: flows.map(\.session), findings: list, notes: notes.all, connections: lanes, events: events, eventsOmitted: eventsOmitted)
    }
}

extension PairingWatch.Options {
    /// As the session log's header keeps them (`judge`), and back.
    public var json: JSONObject {
        var o = JSONObject(["judgeRelay": .bool(judgeRelay), "frameTimeout": .number(JSONNumber(frameTimeout)), "confirmationWait": .number(JSONNumber(confirmationWait))])
        if let keepaliveInterval { o["keepaliveInterval"] = .number(JSONNumber(keepaliveInterval)) }
        if let firstBackoff { o["firstBackoff"] = .number(JSONNumber(firstBackoff)) }
        return o
    }

    public init(json: JSONObject, names: [String: String]) {
        self.init()
        let value = JSONValue.object(json)
        judgeRelay = value["judgeRelay"]?.boolValue ?? false
        frameTimeout = value["frameTimeout"]?.integerValue ?? frameTimeout
        confirmationWait = value["confirmationWait"]?.integerValue ?? confirmationWait
        keepaliveInterval = value["keepaliveInterval"]?.integerValue
        firstBackoff = value["firstBackoff"]?.integerValue
        self.names = names
    }
}
