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
    public struct Options: Sendable {
        /// The keepalive interval the clients state (`--keepalive-ms`); nil: any the Spec allows.
        public var keepaliveInterval: EpochMillis?
        /// The first back-off delay the clients state (`--backoff`); nil: the Spec's least, 500 ms.
        public var firstBackoff: EpochMillis?
        /// One side's own keepalive and first back-off (`--keepalive-ms phone=500`): a
        /// time-scaled phone beside a real desktop. A side not named takes the values above.
        public var keepaliveBySide: [String: EpochMillis] = [:]
        public var backoffBySide: [String: EpochMillis] = [:]
        /// Keepalives in a row the clients let go unanswered before they drop the connection
        /// (`--unanswered-limit`, PAIR-CONN-003); nil: the Spec's widest, 3.
        public var unansweredLimit: Int?
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
        /// The ids it registered, each once, in the order first registered (at most
        /// `maxRegistered`: a client registers one or two).
        var registered: [String] = []
        var registeredKeys: Set<ByteString> = []
        /// Its own id (the first it registered that is no alias) and the alias it registered last.
        var ownId: String?
        var latestAlias: String?
        var role: String?
        /// Client text frames so far.
        var frames = 0
        /// Its first client frames (their type, the id a register names, when, the frame): who
        /// came back after a drop, and whether it registered first (PAIR-CONN-001), is decided
        /// from these at the end, when every connection's behaviour is known.
        var opening: [(kind: PairingKind?, type: String?, peerId: String?, at: EpochMillis, quoted: String)] = []
        /// Its keepalives, each with whether the relay sent anything on it since the one before
        /// (PAIR-CONN-003's dead connection): replayed through `ObservedConnection` when judged.
        var keepalives: [(at: EpochMillis, afterHeard: Bool)] = []
        var heardSinceKeepalive = false
        var latestKeepalive: EpochMillis?
        var keepaliveJudged = false
        /// The ids it sent messages to.
        var targets: Set<ByteString> = []
        /// The ids it registered while another open connection held them (a takeover or an
        /// impersonation): it claims them, and does not inherit their `--name` label.
        var claimedHeld: Set<ByteString> = []
        /// The implementation whose process holds its socket (`WireEvent.Body.owner`): its
        /// label, whatever ids it registers.
        var owner: String?
    }

    /// A client frame the relay must answer or deliver (judged with `--upstream`).
    struct Pending {
        var connection: Int
        var at: EpochMillis
        var kind: PairingKind
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
        /// A session whose outcome is known but whose other side may still answer (a wrong
        /// code the desktop must not confirm): it ends then, with this outcome and step.
        var closing: (at: EpochMillis, outcome: String, step: String?)?
        /// With `--upstream`: the ack's payload, until the relay delivers it.
        var undelivered: JSONValue?
        /// Flow B, the desktop's alias on a connection of its own and several such open: which
        /// code it showed, and so whether it took the ack, cannot be told from the wire.
        var codeUnknown = false
        /// The desktop's side, the Spec's mobile bridge showing the code its alias names, and the
        /// ack as the relay delivers it to the desktop: what the machine does with it is what the
        /// desktop owes (a confirmation of a typed code) or must not do (confirm an ack it drops).
        var bridge: MobileBridgeMachine?
        var ack: JSONValue = .null
        /// Why the desktop's machine dropped the ack (PAIR-DESK-003): a confirmation is a violation.
        var refused: FailureReason?
        /// A typed code's phone, the Spec's manual machine submitted at the ack: its deadline is
        /// how long the desktop has to confirm (PAIR-MAN-003, `--confirmation-wait`).
        var phoneSide: ManualPairingMachine?
    }

    /// The ids a connection's record keeps; more are noted, not tracked.
    static let maxRegistered = 256
    /// Frames awaiting the relay's answer, and WebRTC exchanges open at once; more are noted,
    /// not judged (a real pair has a few; a flood must not make every event cost a scan).
    static let maxPending = 4096

    public let options: Options
    private var connections: [Int: Connection] = [:]
    /// Every registration of an id, in order: (connection, time).
    private var registrations: [ByteString: [(connection: Int, at: EpochMillis)]] = [:]
    /// The connection an id routes to now.
    private var holders: [ByteString: Int] = [:]
    /// Aliases that received their pair-ack (spent: PAIR-SEC-003), so no longer owed after a reconnect.
    private var spent: Set<ByteString> = []
    /// Open connections that registered only aliases, with the alias each registered last: the
    /// real desktop holds its code's alias on a connection of its own.
    private var aliasOnly: [Int: String] = [:]
    /// Connections already charged with the echo-loop trap when their pair-ack showed them a
    /// phone, and the aliases they registered: the end's judgement does not charge them again,
    /// nor a phone that registers the same alias again after a reconnect (one cause, one finding).
    private var trapCharged: Set<Int> = []
    private var aliasesTrapped: Set<ByteString> = []
    /// Which connections are one client's, as far as the wire shows (a comeback after a drop,
    /// the desktop's alias connection and its main one): a union-find, each connection's
    /// parent. One client's repeats of one violation are one finding (item 6 of issue 38).
    private var clientParent: [Int: Int] = [:]
    private var pending: [Pending] = []
    /// Client frames the relay refuses (a bare signal, a type no client sends), per connection:
    /// the relay's `error` answers them, not the next frame awaiting an answer.
    private var refusalsOwed: [Int: Int] = [:]
    private var pendingOmitted = 0
    private var flows: [Flow] = []
    /// The flows each connection takes part in, in order (a finding belongs to the latest).
    private var flowsOf: [Int: [Int]] = [:]
    /// The flows by the phone's DID, in order (a confirmation answers the latest).
    private var flowsByPhone: [ByteString: [Int]] = [:]
    /// Flows with a `closing` due, in the order they were set (each `at + frameTimeout`).
    private var closingQueue: [(flow: Int, at: EpochMillis)] = []
    private var closingHead = 0
    private var ended = 0
    private var exchanges = ExchangeWatch()
    /// The relay's findings have side `relay`; a client's side is known at the end, by connection.
    private var findings = FindingTally()
    private var notes = NoteList()
    private var events: [WireEvent] = []
    private var eventsOmitted = 0
    private var now: EpochMillis = 0

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Sessions that have ended (paired or broken): `--sessions N` stops the watch at N.
    public var endedSessions: Int { ended }

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
            connections[c]?.heardSinceKeepalive = true
            server(text, on: c, at: event.at)
        case .binary(let from, let frame):
            if from == .server { connections[c]?.heardSinceKeepalive = true }
            add(c, relay: from == .server, at: event.at, frame: "a binary frame of \(frame.length) bytes",
                Violation(rule: PairingRule.relayRouting, path: .root, expected: "text frames only (signaling is JSON)", found: "a binary frame of \(frame.length) bytes"))
        case .ping(.client):
            keepalive(on: c, at: event.at)
        case .pong(.server):
            connections[c]?.heardSinceKeepalive = true
        case .ping(.server), .pong(.client), .envelope, .segments:
            // With --upstream the relay's pings are answered by the watch: the client never hears them.
            break
        case .owner(let label):
            connections[c]?.owner = label
        case .close(let by, _):
            connections[c]?.closed = event.at
            connections[c]?.closedByClient = by == .client
            judgeKeepalives(c, until: event.at)
            // A register's answer goes only to its connection: once that is closed, none is due.
            pending.removeAll { p in
                guard p.connection == c, p.kind == .register else { return false }
                notes.append("connection \(c): closed \(event.at - p.at) ms after \(p.frame), before the relay's answer (not judged)")
                return true
            }
            for i in pending.indices where pending[i].connection == c { pending[i].senderClosed = true }
            for id in connections[c]?.registered ?? [] where holders[ByteString(id)] == c { holders[ByteString(id)] = nil }
            aliasOnly[c] = nil
            refusalsOwed[c] = nil
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
        if exchanges.omitted > 0 {
            notes.append("\(exchanges.omitted) WebRTC offers came while \(ExchangeWatch.maxOpen) exchanges were open; their exchanges are not judged")
        }
        judgeReconnects(trapped: judgeTraps())
        noteUnseen()
        for id in connections.keys.sorted() where connections[id]?.closed == nil { judgeKeepalives(id, until: now) }
        for i in flows.indices where flows[i].session.endedAt == nil {
            let flow = flows[i]
            var phoneSide = flow.phoneSide
            _ = phoneSide?.handle(.tick(at: now))
            if case .failed(let reason)? = phoneSide?.state, reason.rule == PairingRule.manualTimeout, let wait = phoneSide?.confirmationWait {
                end(i, "broken", step: "confirmation: none within \(wait) ms")
                add(
                    flow.session.connections["desktop"], relay: false, at: now, frame: nil,
                    Violation(
                        rule: PairingRule.desktopConfirms, path: .root, expected: "a confirmation to \(flow.mobileDid.map(JSONSerializer.quoted) ?? "the phone") within \(wait) ms",
                        found: "none"), session: i)
            } else if flow.session.flow == "manual", let left = phoneLeft(flow) {
                // The phone gave up before the Spec's wait (iOS waits 60 s): its choice, not
                // the desktop's fault, which had until the wait's end to confirm.
                flows[i].session.outcome = "abandoned"
                flows[i].session.step = "the phone left \(left - flow.ackAt) ms after its pair-ack, before any confirmation"
                flows[i].session.endedAt = left
                notes.append(
                    "session \(i + 1): the desktop had not confirmed when the phone left, \(left - flow.ackAt) ms after its pair-ack; whether it would have within \(options.confirmationWait) ms is not known (to judge the desktop on a shorter wait, pass --confirmation-wait MS)")
            } else {
                flows[i].session.outcome = "abandoned"
                flows[i].session.step = "the watch ended first"
            }
        }
        return result()
    }

    /// Connections that registered and then took part in nothing the relay carried: the watch
    /// cannot see what they did elsewhere (a desktop confirming a phone's QR on its LAN socket,
    /// Flow A off the relay), and says so instead of leaving them `unknown` without a word.
    private mutating func noteUnseen() {
        let idle = connections.values.filter { $0.role == nil && flowsOf[$0.id] == nil && !$0.registered.isEmpty && $0.targets.isEmpty }.map(\.id).sorted()
        guard !idle.isEmpty else { return }
        let listed = idle.prefix(10).map(String.init).joined(separator: ", ") + (idle.count > 10 ? " and \(idle.count - 10) more" : "")
        notes.append(
            "\(idle.count) connection(s) registered and took part in no pairing the relay carried (\(listed)): what a client did off the relay (a Flow A confirmed on the desktop's LAN socket) cannot be seen here; such a client only waited, as far as the watch can tell")
    }

    /// When a waiting phone left: its session's connection closed and no later connection holds
    /// its id (a phone that came back is still waiting).
    private func phoneLeft(_ flow: Flow) -> EpochMillis? {
        guard let c = flow.session.connections["phone"], let closed = connections[c]?.closed, closed >= flow.ackAt else { return nil }
        if let did = flow.mobileDid, let holder = holders[ByteString(did)], holder != c { return nil }
        return closed
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
        let frame = PairingFrame(json)
        if (connections[c]?.opening.count ?? 0) < 32 {
            connections[c]?.opening.append((frame.documentKind, json["type"]?.stringValue, frame.documentKind == .register ? json["peerId"]?.stringValue : nil, at, quoted))
        }
        switch frame.kind {
        case .document(.register):
            register(json, bytes, on: c, at: at, quoted: quoted)
        case .document(.message):
            message(json, frame, bytes, on: c, at: at, quoted: quoted)
        case .document(.ping):
            keepalive(on: c, at: at)
        case .bareSignal(let type):
            // Android's default and the desktop's form: the deployed relay drops it without a word.
            if options.judgeRelay { refusalsOwed[c, default: 0] += 1 }
            add(
                c, relay: false, at: at, frame: quoted,
                Violation(
                    rule: PairingRule.rtcBareFrame, path: .root / "type", expected: "a WebRTC signal as the payload of a message (3.7)",
                    found: "a bare \(JSONSerializer.quoted(type)) frame"))
        case .document(.desktopPairing), .document(.pairAck), .document(.devicePairing), .document(.pairingConfirmation), .document(.registered),
            .document(.peerOffline), .document(.relayError), .document(.pairedDesktop), .document(.pong), .document(.peerStatus), .other:
            if options.judgeRelay { refusalsOwed[c, default: 0] += 1 }
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
                trapCharged.insert(c)
                aliasesTrapped.insert(key)
            } else {
                connections[c]?.role = "desktop"
            }
        }
        registrations[key, default: []].append((c, at))
        if let holder = holders[key], holder != c, connections[holder]?.closed == nil {
            connections[c]?.claimedHeld.insert(key)
            // PAIR-SEC-001: a live alias stays with its holder (the relay refuses the second
            // registration); any other id is taken over by the later registration.
            if PeerID.aliasCode(peerId) == nil { holders[key] = c }
        } else {
            holders[key] = c
        }
        if let connection = connections[c], !connection.registeredKeys.contains(key) {
            if connection.registered.count < Self.maxRegistered {
                connections[c]?.registered.append(peerId)
                connections[c]?.registeredKeys.insert(key)
                if PeerID.aliasCode(peerId) == nil, connection.ownId == nil { connections[c]?.ownId = peerId }
            } else if connection.registered.count == Self.maxRegistered {
                notes.append("connection \(c): registered more than \(Self.maxRegistered) ids; the rest are not tracked")
            }
        }
        if PeerID.aliasCode(peerId) != nil {
            connections[c]?.latestAlias = peerId
            if connections[c]?.ownId == nil { aliasOnly[c] = peerId }
        } else {
            aliasOnly[c] = nil
        }
        if options.judgeRelay { expectAnswer(Pending(connection: c, at: at, kind: .register, to: nil, peerId: peerId, payload: nil, frame: quoted)) }
    }

    private func trap(_ peerId: String, _ expected: String) -> Violation {
        Violation(rule: PairingRule.registerOwnID, path: .root / "peerId", expected: expected, found: JSONSerializer.quoted(peerId))
    }

    private mutating func message(_ json: JSONValue, _ frame: PairingFrame, _ bytes: [UInt8], on c: Int, at: EpochMillis, quoted: String) {
        // The sender's own id (its first registered one that is not an alias) for the echo rule (PAIR-RTC-004).
        var context = JSONObject(["now": .number(JSONNumber(at))])
        if let own = connections[c]?.ownId { context["localPeerId"] = .string(own) }
        let checked = DocumentChecker.check(bytes, name: "", kind: "message", context: .object(context))
        let session = sessionIndex(for: json, frame, from: c)
        for v in checked.violations { add(c, relay: false, at: at, frame: quoted, v, session: session) }
        guard checked.violations.isEmpty, let to = json["to"]?.stringValue, let payload = json["payload"] else { return }
        connections[c]?.targets.insert(ByteString(to))
        if options.judgeRelay { expectAnswer(Pending(connection: c, at: at, kind: .message, to: to, peerId: nil, payload: payload, frame: quoted)) }
        switch frame.payload {
        case .document(.pairAck)?:
            ack(payload, to: to, on: c, at: at, quoted: quoted)
        case .document(.pairingConfirmation)?:
            confirmation(payload, to: to, on: c, at: at, quoted: quoted)
        case .signal(let signal)?:
            let own = connections[c]?.registered ?? []
            // For an offer: the latest session in which this sender is a paired phone. In Flow B
            // the phone is paired once it sent its ack, so an ack the relay has not yet
            // delivered counts (forwarding: the offer may pass the ack's delivery).
            func pairedForPhone(_ f: Flow) -> Bool {
                f.session.outcome == "paired" || (f.session.flow == "flow-b" && f.session.outcome == "open" && f.undelivered != nil)
            }
            let paired = signal == .offer
                ? own.compactMap { id in flowsByPhone[ByteString(id)]?.last { pairedForPhone(flows[$0]) } }.max()
                    .flatMap { i in flows[i].mobileDid.map { (did: $0, session: i) } }
                : nil
            exchanges.signal(signal, json, to: to, senderIds: own, on: c, at: at, pairedPhone: paired)
        // A QR's documents and app messages travel the relay too; the watch judges them above as documents only.
        case .document(.desktopPairing)?, .document(.devicePairing)?, .opaque?, nil:
            break
        case .document(.register)?, .document(.message)?, .document(.registered)?, .document(.peerOffline)?, .document(.relayError)?,
            .document(.pairedDesktop)?, .document(.ping)?, .document(.pong)?, .document(.peerStatus)?:
            break  // PairingFrame.payload names only the table's payload kinds.
        }
    }

    /// What a side of a WebRTC exchange failed to send in time is its PAIR-RTC-006; an exchange
    /// the watch did not see to its end is a note.
    private mutating func judgeExchanges(final: Bool) {
        let (missing, unfinished) = exchanges.judge(now: now, final: final)
        for m in missing {
            let x = m.exchange
            if m.fromDesktop, flows[x.session].session.outcome != "paired" {
                // The relay never delivered the ack: the desktop was never paired, so owed nothing.
                notes.append(
                    "connection \(x.phoneConnection): the phone's WebRTC offer followed a pair-ack the relay did not deliver; its pairing never reached the desktop, which owed no answer (not judged)")
                continue
            }
            if m.fromDesktop, flows[x.session].codeUnknown {
                notes.append(
                    "connection \(x.phoneConnection): the desktop did not answer the phone's WebRTC offer; whether it took the phone's pair-ack is not known (its code sits on one of several alias connections, which the wire does not tie to it), so it is not judged")
                continue
            }
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
            trapCharged.insert(c)
            aliasesTrapped.insert(ByteString(id))
        }
        let code = payload["pairingCode"]?.stringValue
        let manual = PeerID.aliasCode(to) != nil
        let desktop = holders[ByteString(to)]
        if let desktop { connections[desktop]?.role = "desktop" }
        var shown = desktop.flatMap(shownCode)
        let codeUnknown = !manual && desktop != nil && shown == nil && desktop.flatMap({ connections[$0]?.latestAlias }) == nil && aliasOnly.count > 1
        if manual {
            shown = PeerID.aliasCode(to)
            if desktop != nil { spent.insert(ByteString(to)) }
        }
        var session = WatchSession(
            flow: manual ? "manual" : "flow-b", outcome: "open", step: nil, code: code, connections: ["phone": c], startedAt: at, endedAt: nil)
        if let desktop { session.connections["desktop"] = desktop }
        var flow = Flow(session: session, mobileDid: payload["mobileDid"]?.stringValue, ackAt: at)
        flow.codeUnknown = codeUnknown
        if manual, let code {
            let phone = PhoneContext(activeDid: flow.mobileDid ?? "", device: MobileDeviceInfo(deviceId: "", name: "", platform: ""), signalingUrl: "")
            var phoneSide = ManualPairingMachine(phone: phone, confirmationWait: options.confirmationWait)
            _ = phoneSide.handle(.submit(code: code, at: at))
            flow.phoneSide = phoneSide
        }
        if let desktop, let shown {
            // Shown since the alias's latest registration at or before the ack (a reconnection
            // registers it again later: the watch is never stricter than the desktop).
            let alias = ByteString(PeerID.alias(forCode: shown))
            let since = registrations[alias]?.last { $0.at <= at }?.at ?? at
            var bridge = MobileBridgeMachine(desktop: DesktopContext(pcPeerId: connections[desktop]?.ownId ?? to, device: DesktopDeviceInfo(name: "", platform: ""), relayUrl: ""))
            _ = bridge.handle(.start(at: since, code: shown))
            flow.bridge = bridge
            flow.ack = PairingFrame.delivered(.object(JSONObject(["type": .string(PairingKind.message.rawValue), "to": .string(to), "payload": payload])), from: connections[c]?.ownId ?? "")
        }
        let i = open(flow)
        guard desktop != nil else {
            end(i, "broken", step: "delivery: nobody held \(JSONSerializer.quoted(to))")
            return
        }
        if options.judgeRelay {
            // Someone else's relay: the session goes on when it delivers the ack (`delivered`).
            flows[i].undelivered = payload
            close(i, (at + options.frameTimeout, "broken", "delivery: the relay delivered nothing within \(options.frameTimeout) ms"))
            return
        }
        delivered(i, at: at)
    }

    /// The ack reached the desktop, whose machine decides (4.5): it drops an ack it must refuse
    /// (the session ends once the desktop had its time to answer, PAIR-DESK-003), owes a typed
    /// code its confirmation (the session waits for it, PAIR-DESK-002), and takes a scanned code
    /// without one (Flow B ends for the phone). A code the wire does not show is not judged.
    private mutating func delivered(_ i: Int, at: EpochMillis) {
        flows[i].undelivered = nil
        flows[i].closing = nil
        guard var bridge = flows[i].bridge else {
            if flows[i].session.flow == "flow-b" {
                end(i, "paired", step: flows[i].codeUnknown ? "as far as the wire shows: the code shown is on one of several alias connections, not compared" : nil)
            }
            return
        }
        let actions = bridge.handle(.message(document: flows[i].ack, at: at))
        flows[i].bridge = bridge
        for case .drop(let reason) in actions {
            flows[i].refused = reason
            close(i, (at + options.frameTimeout, "broken", "code: " + reason.detail))
            return
        }
        guard case .paired = bridge.state else { return }
        // The code is used up: the desktop stops holding its alias (PAIR-DESK-002).
        for case .release(_, let alias) in actions { spent.insert(ByteString(alias)) }
        let owed = actions.contains { if case .send = $0 { true } else { false } }
        if !owed { end(i, "paired", step: nil) }
    }

    /// A desktop's confirmation: of a typed code (manual), or of a scanned phone QR (Flow A).
    private mutating func confirmation(_ payload: JSONValue, to: String, on c: Int, at: EpochMillis, quoted: String) {
        connections[c]?.role = "desktop"
        let code = payload["pairingCode"]?.stringValue
        let phone = holders[ByteString(to)]
        if let phone { connections[phone]?.role = "phone" }
        // The latest ack from this phone that this desktop received.
        if let i = answeredFlow(ofPhone: to, desktop: c, code: code) {
            if let d = flows[i].session.connections["desktop"], d != c {
                // The ack reached the desktop's alias connection; it confirms on its main one.
                flows[i].session.connections["alias"] = d
                flows[i].session.connections["desktop"] = c
                sameClient(d, c)
                flowsOf[c, default: []].append(i)
            }
            let flow = flows[i]
            if let refused = flow.refused {
                add(
                    c, relay: false, at: at, frame: quoted,
                    Violation(
                        rule: PairingRule.desktopRefuses, path: .root / "payload" / "pairingCode", expected: "no confirmation of a pair-ack the desktop must drop (\(refused.detail))",
                        found: "a confirmation" + (code.map { " of \($0)" } ?? "")), session: i)
                if flow.session.endedAt == nil { end(i, "broken", step: "code: the desktop confirmed a pair-ack it must drop (\(refused.detail))") }
            } else if flow.session.flow == "manual", flow.session.endedAt == nil, var phoneSide = flow.phoneSide {
                // The phone's machine takes the confirmation, or finds it past its wait or for
                // another code (which it drops and waits on).
                let actions = phoneSide.handle(.confirmation(document: payload, at: at))
                flows[i].phoneSide = phoneSide
                switch phoneSide.state {
                case .success:
                    end(i, "paired", step: nil)
                case .failed:
                    end(i, "broken", step: "confirmation: after \(at - flow.ackAt) ms, the phone had given up")
                case .entering, .submitting:
                    for case .drop(let reason) in actions {
                        notes.append("connection \(c): the phone's machine drops this confirmation (\(reason.rule): \(reason.detail)) and still waits: \(quoted)")
                    }
                }
            } else if flow.session.flow == "flow-b" {
                notes.append("connection \(c): a confirmation in Flow B, where none is due (PAIR-DESK-002): \(quoted)")
            }
            return
        }
        // No ack came before it: the desktop scanned the phone's own QR (Flow A).
        var session = WatchSession(flow: "flow-a", outcome: "open", step: nil, code: code, connections: ["desktop": c], startedAt: at, endedAt: nil)
        if let phone { session.connections["phone"] = phone }
        let i = open(Flow(session: session, mobileDid: to, ackAt: at))
        if phone != nil {
            end(i, "paired", step: nil)
        } else {
            end(i, "broken", step: "delivery: nobody held \(JSONSerializer.quoted(to))")
        }
    }

    private func sessionIndex(for json: JSONValue, _ frame: PairingFrame, from c: Int) -> Int? {
        guard let to = json["to"]?.stringValue else { return nil }
        switch frame.payloadKind {
        case .pairAck?: return flows.count
        case .pairingConfirmation?: return answeredFlow(ofPhone: to, desktop: c, code: json["payload"]?["pairingCode"]?.stringValue) ?? flows.count
        // Only an ack opens a session and only a confirmation belongs to one.
        case .desktopPairing?, .devicePairing?, .register?, .message?, .registered?, .peerOffline?, .relayError?, .pairedDesktop?, .ping?, .pong?, .peerStatus?, nil:
            return nil
        }
    }

    /// A new flow, indexed by its connections and its phone.
    private mutating func open(_ flow: Flow) -> Int {
        let i = flows.count
        flows.append(flow)
        for c in Set(flow.session.connections.values) { flowsOf[c, default: []].append(i) }
        if let did = flow.mobileDid { flowsByPhone[ByteString(did), default: []].append(i) }
        return i
    }

    /// The latest flow of the phone `did` that desktop connection `c` took part in.
    private func latestFlow(ofPhone did: String, desktop c: Int) -> Int? {
        flowsByPhone[ByteString(did)]?.last { flows[$0].session.connections["desktop"] == c }
    }

    /// The flow a desktop's confirmation answers: the latest ack of that phone it received, or,
    /// for the real desktop's form (the alias on a connection of its own, the confirmation on its
    /// main one), the latest typed-code ack of that phone with the confirmed code that an
    /// alias-only connection received.
    private func answeredFlow(ofPhone did: String, desktop c: Int, code: String?) -> Int? {
        if let i = latestFlow(ofPhone: did, desktop: c) { return i }
        guard let code else { return nil }
        return flowsByPhone[ByteString(did)]?.last { i in
            let flow = flows[i]
            guard flow.session.flow == "manual", flow.session.code.map({ $0.bytesEqual(code) }) == true, let d = flow.session.connections["desktop"] else { return false }
            return connections[d].map { $0.ownId == nil && $0.latestAlias != nil } ?? false
        }
    }

    /// The code desktop connection `c` shows: its alias's, or, when its alias is on a
    /// connection of its own, the alias of the one open alias-only connection (several with
    /// different codes: which is this desktop's is not known, and nil).
    private func shownCode(desktop c: Int) -> String? {
        if let own = connections[c]?.latestAlias { return PeerID.aliasCode(own) }
        var alias: String?
        for held in aliasOnly.values.prefix(Self.maxLookBack) {
            guard alias == nil || alias!.bytesEqual(held) else { return nil }
            alias = held
        }
        return alias.flatMap(PeerID.aliasCode)
    }

    /// A flow ends at `closing.at` unless something ends it first.
    private mutating func close(_ i: Int, _ closing: (at: EpochMillis, outcome: String, step: String?)) {
        flows[i].closing = closing
        closingQueue.append((i, closing.at))
    }

    private mutating func end(_ i: Int, _ outcome: String, step: String?, at: EpochMillis? = nil) {
        if flows[i].session.endedAt == nil { ended += 1 }
        flows[i].session.outcome = outcome
        flows[i].session.step = step
        flows[i].session.endedAt = at ?? now
        flows[i].closing = nil
    }

    /// Time passed without a frame: sessions waiting for the other side's answer end when it is
    /// due (the live watch ticks; a replay reaches the same ends at its next event or the end).
    public mutating func tick(at: EpochMillis) {
        now = max(now, at)
        // Only the flows with a closing due, in the order they fall due (each event scanned
        // every flow once: quadratic in a long watch).
        while closingHead < closingQueue.count, closingQueue[closingHead].at <= now {
            let (i, due) = closingQueue[closingHead]
            closingHead += 1
            if let closing = flows[i].closing, closing.at == due { end(i, closing.outcome, step: closing.step, at: closing.at) }
        }
        if closingHead > 1024, closingHead * 2 > closingQueue.count {
            closingQueue.removeFirst(closingHead)
            closingHead = 0
        }
        judgeExchanges(final: false)
    }

    // MARK: timing

    private mutating func keepalive(on c: Int, at: EpochMillis) {
        guard let connection = connections[c] else { return }
        connections[c]?.keepalives.append((at, connection.heardSinceKeepalive))
        connections[c]?.heardSinceKeepalive = false
        connections[c]?.latestKeepalive = max(connection.latestKeepalive ?? at, at)
    }

    /// The policy a connection's client states (PAIR-CONN-002, -003): its side's, else every
    /// client's, else what the Spec allows at the widest (then `intervalStated` is false).
    private func policy(of connection: Connection) -> (SignalingConnectionMachine.Policy, intervalStated: Bool) {
        let side = connection.role
        let interval = side.flatMap { options.keepaliveBySide[$0] } ?? options.keepaliveInterval
        let first = side.flatMap { options.backoffBySide[$0] } ?? options.firstBackoff ?? SignalingConnectionMachine.Policy.delayBounds.lowerBound
        var policy = SignalingConnectionMachine.Policy(backoff: [first], keepaliveInterval: interval ?? SignalingConnectionMachine.Policy.keepaliveBounds.upperBound)
        let bounds = SignalingConnectionMachine.Policy.unansweredBounds
        policy.unansweredLimit = min(max(options.unansweredLimit ?? bounds.upperBound, bounds.lowerBound), bounds.upperBound)
        return (policy, interval != nil)
    }

    /// PAIR-CONN-003 on one connection, up to `until`: its keepalives replayed through the
    /// connection machine (`ObservedConnection`), the first breach only.
    private mutating func judgeKeepalives(_ c: Int, until: EpochMillis) {
        guard let connection = connections[c], !connection.keepaliveJudged, !connection.registered.isEmpty else { return }
        connections[c]?.keepaliveJudged = true
        let (policy, stated) = policy(of: connection)
        var observed = ObservedConnection(policy: policy, intervalStated: stated, openedAt: connection.opened)
        for keepalive in connection.keepalives where observed.breach == nil {
            if keepalive.afterHeard { observed.heard(at: keepalive.at) }
            observed.keepalive(at: keepalive.at)
        }
        if connection.heardSinceKeepalive { observed.heard(at: until) }
        observed.silence(until: until)
        guard let breach = observed.breach else { return }
        add(c, relay: false, at: breach.at, frame: "keepalive \(breach.keepalive)", breach.violation)
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
        // The closed connections that held or sent to each id, by when they closed: the
        // candidates are looked up, not found by a scan of every connection (5000 connections
        // once took a minute and a half).
        var closedTouching: [ByteString: [(closed: EpochMillis, id: Int)]] = [:]
        for connection in connections.values {
            guard let closed = connection.closed else { continue }
            for key in connection.registeredKeys.union(connection.targets) { closedTouching[key, default: []].append((closed, connection.id)) }
        }
        for key in closedTouching.keys { closedTouching[key]!.sort { ($0.closed, $0.id) < ($1.closed, $1.id) } }
        for c in connections.keys.sorted() {
            guard let connection = connections[c], let first = connection.opening.first, first.kind == .register, let id = first.peerId else { continue }
            let key = ByteString(id)
            // A client back after a drop registers again every id it held (PAIR-CONN-001): a
            // connection that held more than this one registers is another client's (a desktop
            // that closed after pairing a moment after the phone's drop), whatever closed last.
            let registers = Set(connection.opening.compactMap(\.peerId).map(ByteString.init))
            func consistent(_ p: Connection) -> Bool { p.targets.contains(key) || p.registeredKeys.isSubset(of: registers) }
            // The latest to close within 120 s before this one opened, a consistent one first;
            // at most `maxLookBack` of them are weighed.
            let list = closedTouching[key] ?? []
            var k = Self.lastIndex(in: list, closedBy: connection.opened)
            var previous: Connection?
            var weighed = 0
            while k >= 0, connection.opened - list[k].closed <= 120_000, weighed < Self.maxLookBack {
                defer { k -= 1 }
                guard list[k].id != c, let p = connections[list[k].id], connection.role == nil || p.role == connection.role else { continue }
                weighed += 1
                if consistent(p) {
                    previous = p
                    break
                }
                if previous == nil { previous = p }
            }
            guard let previous, !previous.registeredKeys.contains(key) else { continue }
            sameClient(previous.id, c)
            trapped.insert(c)
            connections[c]?.role = previous.role
            guard !trapCharged.contains(c) else { continue }
            add(c, relay: false, at: first.at, frame: first.quoted, trap(id, "the client's own id on its new connection, not \(JSONSerializer.quoted(id)), the id it sent to (the echo-loop trap)"))
        }
        for (key, list) in registrations.sorted(by: { ($0.value.first?.at ?? 0, $0.key.value) < ($1.value.first?.at ?? 0, $1.key.value) }) {
            guard let owner = list.first?.connection else { continue }
            let ownerRole = connections[owner]?.role
            // The registrations whose connection may still be open, latest last: one closed by a
            // registration's time is closed for every later one, so the top is dropped then.
            var live: [(connection: Int, at: EpochMillis)] = []
            func closed(_ c: Int) -> EpochMillis { connections[c]?.closed ?? .max }
            for (n, reg) in list.enumerated() {
                defer {
                    if live.last?.connection == reg.connection { live.removeLast() }
                    live.append(reg)
                }
                while let top = live.last, closed(top.connection) <= reg.at { live.removeLast() }
                guard n > 0, reg.connection != owner, !trapped.contains(reg.connection) else { continue }
                let c = reg.connection
                var holder: (connection: Int, at: EpochMillis)?
                for h in live.reversed().prefix(Self.maxLookBack) where h.connection != c && h.at <= reg.at && closed(h.connection) > reg.at {
                    holder = h
                    break
                }
                guard let holder, isActive(holder.connection, after: reg.at) else { continue }
                let culprit = ownerRole != nil && connections[c]?.role == ownerRole && connections[holder.connection]?.role != ownerRole ? holder.connection : c
                guard trapped.insert(culprit).inserted, !trapCharged.contains(culprit) else { continue }
                if aliasesTrapped.contains(key), connections[culprit]?.role != "desktop" { continue }
                if connections[culprit]?.role == nil, let ownerRole { connections[culprit]?.role = ownerRole == "desktop" ? "phone" : "desktop" }
                let frame = connections[culprit]?.opening.first { $0.peerId.map { $0.bytesEqual(key.value) } == true }
                add(culprit, relay: false, at: frame?.at ?? reg.at, frame: frame?.quoted, trap(key.value, "the client's own id, not one another live connection holds (the echo-loop trap)"))
            }
        }
        return trapped
    }

    /// How many earlier connections the end's judgements weigh for one connection: a client
    /// comes back once, not thousands of times within two minutes.
    static let maxLookBack = 256

    /// The index of the last entry of `list` (ascending by `closed`) closed by `at`, or -1.
    static func lastIndex(in list: [(closed: EpochMillis, id: Int)], closedBy at: EpochMillis) -> Int {
        var low = 0, high = list.count
        while low < high {
            let mid = (low + high) / 2
            if list[mid].closed <= at { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    /// Whether a connection still did anything after `at`: a frame, a keepalive, or staying open.
    private func isActive(_ c: Int, after at: EpochMillis) -> Bool {
        guard let connection = connections[c] else { return false }
        if connection.closed == nil || connection.closedByClient { return true }
        return connection.opening.contains { $0.at > at } || connection.latestKeepalive.map { $0 > at } == true
    }

    /// PAIR-CONN-001 and PAIR-CONN-002's lower bound: every connection registers before any other
    /// frame; a client that lost its connection (not one that closed it) waits before it comes
    /// back and registers again every id it held that is still live.
    private mutating func judgeReconnects(trapped: Set<Int>) {
        for c in connections.keys.sorted() {
            guard let connection = connections[c], let first = connection.opening.first, first.kind != .register else { continue }
            add(c, relay: false, at: first.at, frame: first.quoted, Violation(rule: PairingRule.reRegister, path: .root, expected: "a register before any other frame", found: "a \(first.type ?? "frame") first"))
        }
        // The connections (not trapped) whose first frame registers each id, by when they opened,
        // with the least connection id from each position on: who came back is looked up.
        var comebacks: [ByteString: (opened: [EpochMillis], leastId: [Int])] = [:]
        var byFirstId: [ByteString: [(opened: EpochMillis, id: Int)]] = [:]
        for connection in connections.values where !trapped.contains(connection.id) {
            if let id = connection.opening.first?.peerId { byFirstId[ByteString(id), default: []].append((connection.opened, connection.id)) }
        }
        for (key, list) in byFirstId {
            let sorted = list.sorted { ($0.opened, $0.id) < ($1.opened, $1.id) }
            var least = sorted.map(\.id)
            for k in least.indices.reversed().dropFirst() { least[k] = min(least[k], least[k + 1]) }
            comebacks[key] = (sorted.map(\.opened), least)
        }
        // The relay's drops in time order, for an alias connection's companions (a window each, never a scan).
        let drops = connections.values.compactMap { c in c.closedByClient || trapped.contains(c.id) || c.role == "phone" ? nil : c.closed.map { (at: $0, id: c.id) } }
            .sorted { ($0.at, $0.id) < ($1.at, $1.id) }
        let dropTimes = drops.map(\.at)
        for p in connections.keys.sorted() {
            guard let old = connections[p], let closed = old.closed, !old.closedByClient, !trapped.contains(p) else { continue }
            let held = old.registered.filter { !spent.contains(ByteString($0)) }
            // The first connection (by id) opened since the drop whose first frame registers a held id.
            var nextId: Int?
            for id in held {
                guard let (opened, least) = comebacks[ByteString(id)], let i = Self.firstIndex(in: opened, notBefore: closed) else { continue }
                nextId = min(nextId ?? .max, least[i])
            }
            guard let nextId, let next = connections[nextId] else {
                judgeAliasNotBack(p, closed: closed, held: held, comebacks: comebacks, drops: drops, dropTimes: dropTimes)
                continue
            }
            sameClient(p, next.id)
            if next.role == nil { connections[next.id]?.role = old.role }
            var owed = held
            var judged = false
            for frame in next.opening {
                guard !owed.isEmpty else { break }
                if frame.kind == .register, let id = frame.peerId {
                    owed.removeAll { $0.bytesEqual(id) }
                    continue
                }
                add(
                    next.id, relay: false, at: frame.at, frame: frame.quoted,
                    Violation(
                        rule: PairingRule.reRegister, path: .root,
                        expected: "a register of \(owed.map(JSONSerializer.quoted).joined(separator: ", ")) before any other frame (the ids held before the drop)",
                        found: "a \(frame.type ?? "frame") first"))
                judged = true
                break
            }
            if !judged, next.opening.count < 32 { judgeNeverRegistered(owed, heldBy: p, dropped: closed, next: next) }
            var client = old
            client.role = old.role ?? next.role
            let least = ObservedConnection.Tolerance.delay(policy(of: client).0.delay(afterFailures: 1)).lowerBound
            if next.opened - closed < least {
                add(
                    next.id, relay: false, at: next.opened, frame: "reconnection after connection \(p) dropped",
                    Violation(rule: PairingRule.backoff, path: .root, expected: "a wait of at least \(least) ms after the drop", found: "\(next.opened - closed) ms"))
            }
        }
    }

    /// A client back after a drop that registered some of its ids again and never the rest
    /// (a desktop that forgot its alias, its code still live): PAIR-CONN-001, once the watch saw
    /// the new connection for the frame timeout. An id another connection registered since the
    /// drop (an alias moved to a connection of its own) is not owed here.
    private mutating func judgeNeverRegistered(_ owed: [String], heldBy p: Int, dropped: EpochMillis, next: Connection) {
        let missing = owed.filter { id in
            let list = registrations[ByteString(id)] ?? []
            // Registrations are appended in time order: the latest says whether one came after.
            if (list.last?.at ?? .min) > dropped { return false }
            guard PeerID.aliasCode(id) != nil else { return true }
            let registeredAt = list.last { $0.connection == p }?.at ?? dropped
            return registeredAt + PairingTimeouts.validity > next.opened
        }
        guard !missing.isEmpty else { return }
        let listed = missing.map(JSONSerializer.quoted).joined(separator: ", ")
        let seen = (next.closed ?? now) - next.opened
        guard seen > options.frameTimeout else {
            notes.append("connection \(next.id): came back after connection \(p) dropped and had not registered \(listed) again when it ended \(seen) ms later (not judged)")
            return
        }
        add(
            next.id, relay: false, at: next.opened + options.frameTimeout, frame: "reconnection after connection \(p) dropped",
            Violation(
                rule: PairingRule.reRegister, path: .root, expected: "a register of \(listed) again once reconnected (the ids held before the drop, still live)",
                found: "none within \(options.frameTimeout) ms"))
    }

    /// The first index of `times` (ascending) at or after `at`, by bisection: the end-of-watch
    /// judgements look up every connection's comeback, and a scan each was quadratic.
    static func firstIndex(in times: [EpochMillis], notBefore at: EpochMillis) -> Int? {
        var low = 0, high = times.count
        while low < high {
            let mid = (low + high) / 2
            if times[mid] < at { low = mid + 1 } else { high = mid }
        }
        return low < times.count ? low : nil
    }

    /// A connection of its own for the alias (the real desktop's form): dropped with the
    /// desktop's other connection (a relay restart), it must come back with the alias while
    /// the code is live (PAIR-CONN-001). Owed once another connection of that drop (not a
    /// phone's) came back, by the Spec's longest wait after that (60 s × 1.5 + 1 s); a code that
    /// expires first is owed nothing.
    private mutating func judgeAliasNotBack(
        _ p: Int, closed: EpochMillis, held: [String], comebacks: [ByteString: (opened: [EpochMillis], leastId: [Int])], drops: [(at: EpochMillis, id: Int)],
        dropTimes: [EpochMillis]
    ) {
        let aliases = held.filter { PeerID.aliasCode($0) != nil }
        guard !aliases.isEmpty else { return }
        // Another connection dropped by the relay within a second of this one, whose ids came back.
        var back: (connection: Int, at: EpochMillis)?
        let low = Self.firstIndex(in: dropTimes, notBefore: closed - 1000) ?? drops.count
        for (otherClosed, q) in drops[low...].prefix(64) where q != p {
            guard otherClosed <= closed + 1000, let other = connections[q] else { break }
            for id in other.registered where PeerID.aliasCode(id) == nil {
                guard let opened = comebacks[ByteString(id)]?.opened, let i = Self.firstIndex(in: opened, notBefore: otherClosed) else { continue }
                if back == nil || opened[i] < back!.at { back = (q, opened[i]) }
            }
        }
        guard let back else { return }
        // PAIR-CONN-002's longest delay and its tolerance (150 % plus 1 s).
        let longest = SignalingConnectionMachine.Policy.delayBounds.upperBound
        let deadline = max(closed, back.at) + longest * 3 / 2 + 1000
        for alias in aliases {
            let registeredAt = registrations[ByteString(alias)]?.last { $0.connection == p }?.at ?? closed
            guard registeredAt + PairingTimeouts.validity > deadline else { continue }
            guard now > deadline else {
                notes.append("connection \(p): held \(JSONSerializer.quoted(alias)) when the relay dropped it; the watch ended \(now - closed) ms later, before a register of it again was due (not judged)")
                continue
            }
            add(
                p, relay: false, at: deadline, frame: "connection \(p) dropped by the relay",
                Violation(
                    rule: PairingRule.reRegister, path: .root,
                    expected: "a register of \(JSONSerializer.quoted(alias)) again once the relay was back (its code was live until \(registeredAt + PairingTimeouts.validity))",
                    found: "none in the \(deadline - closed) ms after the drop, though the desktop's other connection \(back.connection) came back"))
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
        let frame = PairingFrame(json)
        if case .bareSignal(let type) = frame.kind {
            add(
                c, relay: true, at: at, frame: quoted,
                Violation(
                    rule: PairingRule.rtcBareFrame, path: .root / "type", expected: "no bare WebRTC frame (a relay refuses them with invalid-message)",
                    found: "a bare \(JSONSerializer.quoted(type)) frame delivered"))
            return
        }
        // What a relay sends a client (3.5) is judged as a document; anything else is a note.
        guard let kind = frame.documentKind, !kind.carriers.isDisjoint(with: [.relayFrame, .relayBroadcast]) else {
            // Presence broadcasts and other extensions: the Spec allows them (3.5).
            notes.append("connection \(c): the relay sent \(quoted) (not a frame the Spec defines; not judged)")
            return
        }
        let checked = DocumentChecker.check(bytes, name: "", kind: kind.rawValue, context: ["now": .number(JSONNumber(at))])
        for v in checked.violations { add(c, relay: true, at: at, frame: quoted, v) }
        switch kind {
        case .registered:
            if let i = pending.firstIndex(where: { $0.kind == .register && $0.connection == c && $0.peerId.map { $0.bytesEqual(json["peerId"]?.stringValue ?? "") } == true }) {
                pending.remove(at: i)
            }
        case .relayError:
            if let owed = refusalsOwed[c], owed > 0 {
                refusalsOwed[c] = owed - 1
            } else if let i = pending.firstIndex(where: { $0.connection == c }) {
                pending.remove(at: i)
            }
        case .peerOffline:
            if let i = pending.firstIndex(where: { $0.kind == .message && $0.connection == c && $0.to.map { $0.bytesEqual(json["peerId"]?.stringValue ?? "") } == true }) {
                pending.remove(at: i)
            }
        case .message:
            delivery(json, on: c, at: at, quoted: quoted)
        case .peerStatus:
            // A broadcast, judged as a document above; no client asked for it, and none acts on it.
            if checked.violations.isEmpty { notes.append("connection \(c): the relay sent \(quoted) (sent unasked, which the Spec allows; checked, ignored)") }
        case .pong:
            // It answers the client's keepalive: judged as a document above.
            break
        case .desktopPairing, .pairAck, .devicePairing, .pairingConfirmation, .register, .ping, .pairedDesktop:
            break  // Not carried by a relay: noted above.
        }
    }

    /// A delivery matched to the message it carries by content, never by arrival order.
    private mutating func delivery(_ json: JSONValue, on c: Int, at: EpochMillis, quoted: String) {
        let payload = json["payload"]
        let to = json["to"]?.stringValue
        // A relay may leave `to` out of a delivery (3.5); when it is there it must be the target.
        func carries(_ p: Pending) -> Bool {
            guard p.kind == .message, p.payload == payload else { return false }
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

    /// A client frame the relay must answer or deliver; past `maxPending` at once, noted instead.
    private mutating func expectAnswer(_ frame: Pending) {
        guard pending.count < Self.maxPending else {
            pendingOmitted += 1
            if pendingOmitted == 1 { notes.append("connection \(frame.connection): more than \(Self.maxPending) frames awaited the relay's answer at once; the rest are not judged") }
            return
        }
        pending.append(frame)
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
            let expected = first.kind == .register ? "registered or error within \(options.frameTimeout) ms" : "a delivery, peer-offline or error within \(options.frameTimeout) ms"
            add(first.connection, relay: true, at: first.at, frame: first.frame, Violation(rule: PairingRule.relayRouting, path: .root, expected: expected, found: "nothing"))
        }
    }

    // MARK: findings

    private func client(_ c: Int) -> Int {
        var c = c
        while let parent = clientParent[c], parent != c { c = parent }
        return c
    }

    private mutating func sameClient(_ a: Int, _ b: Int) {
        let (ra, rb) = (client(a), client(b))
        if ra != rb { clientParent[max(ra, rb)] = min(ra, rb) }
    }

    /// One finding per side, client, rule, path and cause: a client that repeats a violation on
    /// each of its connections broke it once, counted.
    private func mergedByClient(_ list: [WatchFinding]) -> [WatchFinding] {
        struct Key: Hashable {
            var side: String, client: Int?, rule: String, path: String, expected: String
        }
        var merged: [WatchFinding] = []
        var index: [Key: Int] = [:]
        for f in list {
            let key = Key(side: f.side, client: f.side == "relay" ? nil : f.connection.map(client), rule: f.violation.rule.rawValue, path: f.violation.path.description, expected: f.violation.expected)
            guard let i = index[key] else {
                index[key] = merged.count
                merged.append(f)
                continue
            }
            merged[i].count += f.count
            let latest = f.last ?? WatchFinding.Last(at: f.at, frame: f.frame)
            if latest.at >= (merged[i].last?.at ?? merged[i].at) { merged[i].last = latest }
        }
        return merged
    }


    private mutating func add(_ c: Int?, relay: Bool, at: EpochMillis, frame: String?, _ violation: Violation, session: Int? = nil) {
        var v = violation
        v.subject = c.map { "connection \($0)" }
        let owning = session ?? c.flatMap { c in flowsOf[c]?.last { (flows[$0].session.endedAt ?? .max) >= at } }
        findings.add(WatchFinding(side: relay ? "relay" : "unknown", name: nil, connection: c, frame: frame, at: at, violation: v, session: owning))
    }

    private func result() -> WatchResult {
        let sides = connections.mapValues { $0.role ?? "unknown" }
        // A connection whose process the kit started is that implementation's. Otherwise a label
        // follows the first named id it registered; one it took from a live holder is shown as
        // claimed (two connections never share a label).
        let claimed = connections.compactMapValues { connection -> String? in
            guard connection.owner == nil else { return nil }
            return connection.registered.lazy.compactMap { id in
                options.names[id].map { connection.claimedHeld.contains(ByteString(id)) ? "claiming \($0)'s id" : $0 }
            }.first
        }
        let owned = connections.compactMapValues(\.owner)
        let labels = claimed.merging(owned) { _, owner in owner }
        func label(_ c: Int) -> String? { labels[c] }
        var notes = notes
        if !claimed.isEmpty {
            notes.append("labels from --name follow the ids each connection registered: what a connection claims, not a proof of which program it is")
        }
        if !owned.isEmpty {
            notes.append("labels of the processes the kit started follow the process that holds each connection's socket, whatever ids it registers")
        }
        // In time order (the end's judgements found earlier frames), ties as found.
        let ordered = findings.kept.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        let list = mergedByClient(ordered.map { item -> WatchFinding in
            var f = item
            if f.side != "relay", let c = f.connection {
                f.side = sides[c] ?? "unknown"
                f.name = label(c)
            }
            return f
        })
        let lanes = connections.values.sorted { $0.id < $1.id }.map {
            WatchConnection(id: $0.id, side: $0.role ?? "unknown", name: label($0.id), registered: $0.registered, opened: $0.opened, closed: $0.closed)
        }
        return WatchResult(
            family: "pairing", sessions: flows.map(\.session), findings: list, findingsOmitted: findings.omitted, notes: notes.all, connections: lanes, events: events, eventsOmitted: eventsOmitted)
    }
}

extension PairingWatch.Options {
    /// As the session log's header keeps them (`judge`), and back.
    public var json: JSONObject {
        var o = JSONObject(["judgeRelay": .bool(judgeRelay), "frameTimeout": .number(JSONNumber(frameTimeout)), "confirmationWait": .number(JSONNumber(confirmationWait))])
        if let keepaliveInterval { o["keepaliveInterval"] = .number(JSONNumber(keepaliveInterval)) }
        if let firstBackoff { o["firstBackoff"] = .number(JSONNumber(firstBackoff)) }
        if let unansweredLimit { o["unansweredLimit"] = .number(JSONNumber(Int64(unansweredLimit))) }
        func sides(_ values: [String: EpochMillis]) -> JSONValue {
            .object(JSONObject(values.keys.sorted().map { JSONObject.Member(key: $0, value: .number(JSONNumber(values[$0]!))) }))
        }
        if !keepaliveBySide.isEmpty { o["keepaliveBySide"] = sides(keepaliveBySide) }
        if !backoffBySide.isEmpty { o["backoffBySide"] = sides(backoffBySide) }
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
        unansweredLimit = value["unansweredLimit"]?.integerValue.map { Int(clamping: $0) }
        func sides(_ key: String) -> [String: EpochMillis] {
            (value[key]?.objectValue?.members ?? []).reduce(into: [:]) { $0[$1.key] = $1.value.integerValue }
        }
        keepaliveBySide = sides("keepaliveBySide")
        backoffBySide = sides("backoffBySide")
        self.names = names
    }
}
