import WireCore

/// The signaling relay (seed 002 §4.2, §6.5, Spec pairing.md section 5) as a sans-I/O machine:
/// connections register peer ids, `message`s are routed by `to`, and manual-pairing aliases
/// (`pairing-code:<code>`) are guarded against guessing. The WebSocket edge feeds it events and
/// performs its actions.
public struct SignalingRelay: Machine {
    public typealias ConnectionID = Int

    public enum Event: Sendable, Hashable {
        /// A client connected from `source` (its network address: the unit of rate limiting).
        case connected(ConnectionID, source: String, at: EpochMillis)
        /// A text frame arrived.
        case received(ConnectionID, text: [UInt8], at: EpochMillis)
        case disconnected(ConnectionID, at: EpochMillis)
    }

    public enum Action: Sendable, Hashable {
        /// Send this document as a text frame on the connection. `rule` names the rule that made
        /// the relay refuse something (for logs and vectors); nil for ordinary traffic.
        case send(ConnectionID, JSONValue, rule: RuleID?)
    }

    public struct Policy: Sendable, Hashable {
        /// How long an alias lives after its registration (PAIR-SEC-002).
        public var aliasLifetime: EpochMillis = PairingTimeouts.validity
        /// Misses allowed per source within `guessWindow` (PAIR-SEC-004): messages to aliases
        /// that are not registered, and registrations of aliases another connection holds.
        public var maxGuesses = 5
        public var guessWindow: EpochMillis = PairingTimeouts.validity
        /// Live aliases one connection may hold (PAIR-SEC-005).
        public var maxAliasesPerConnection = 3
        /// New aliases one source may register within `guessWindow` (PAIR-SEC-005).
        public var maxAliasesPerSource = 10

        public init() {}
    }

    struct Connection: Sendable, Hashable {
        let source: String
        /// Non-alias peer ids this connection registered, in order; the first one is its `from`.
        var peerIds: [String] = []
        /// The same, to look up (a scan per register made many ids on one connection quadratic).
        var peerIdKeys: Set<ByteString> = []
        /// Aliases this connection registered (some may have expired or been spent since).
        var aliases: [String] = []
    }

    struct Alias: Sendable, Hashable {
        let connection: ConnectionID
        let registeredAt: EpochMillis
    }

    /// Times per source, oldest first, of the events a sliding window counts.
    struct SourceWindow: Sendable, Hashable {
        var misses: [EpochMillis] = []
        var aliasRegistrations: [EpochMillis] = []

        mutating func slide(to at: EpochMillis, window: EpochMillis) {
            misses.removeAll { at - $0 > window }
            aliasRegistrations.removeAll { at - $0 > window }
        }

        var isEmpty: Bool { misses.isEmpty && aliasRegistrations.isEmpty }
    }

    public let policy: Policy
    private var connections: [ConnectionID: Connection] = [:]
    /// Peer ids are opaque and compared byte for byte (PAIR-PEER-001): a `[String: …]` key would
    /// route `did:cc:é` and its NFD twin to one connection.
    private var peers: [ByteString: ConnectionID] = [:]
    private var aliases: [String: Alias] = [:]
    /// Aliases that received their one delivery, until their lifetime would have ended.
    private var spent: [String: EpochMillis] = [:]
    /// Registrations and spendings in time order, so expiry costs only what expires
    /// (registration times never decrease: events arrive in time order).
    private var expiries = ExpiryQueue()
    private var sources: [String: SourceWindow] = [:]

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// The peer ids currently routed to a connection (aliases included), for inspection.
    public var registeredPeerIds: [String] {
        (peers.keys.map(\.value) + Array(aliases.keys)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    public mutating func step(_ event: Event) -> Step<Action> {
        switch event {
        case .connected(let id, let source, _):
            connections[id] = Connection(source: source)
            return []
        case .disconnected(let id, _):
            guard let connection = connections.removeValue(forKey: id) else { return .ignored("no such connection") }
            // Only what this connection still holds: an id taken over by a newer connection stays.
            for peerId in connection.peerIds where peers[ByteString(peerId)] == id { peers[ByteString(peerId)] = nil }
            for alias in connection.aliases where aliases[alias]?.connection == id { aliases[alias] = nil }
            return []
        case .received(let id, let text, let at):
            guard connections[id] != nil else { return .ignored("no such connection") }
            return Step(received(text, from: id, at: at))
        }
    }

    private mutating func received(_ text: [UInt8], from id: ConnectionID, at: EpochMillis) -> [Action] {
        let value: JSONValue
        do throws(Violation) {
            value = try JSONParser.parse(text, limits: pairingLimits)
        } catch {
            return [self.error(id, error.rule == CoreRule.size ? .tooLarge : .invalidMessage, PairingRule.relayRouting)]
        }
        switch PairingFrame(value).kind {
        case .document(.ping):
            // PAIR-RELAY-002: the keepalive real clients send; it changes nothing.
            return [.send(id, ["type": "pong"], rule: PairingRule.keepalive)]
        case .document(.register):
            do throws(Violation) {
                let register = try Register.decode(value, context: PairingContext(now: at))
                return self.register(register.peerId, on: id, at: at)
            } catch {
                return [self.error(id, .invalidMessage, PairingRule.relayRouting)]
            }
        case .document(.message):
            do throws(Violation) {
                let message = try SignalMessage.decode(value, context: PairingContext(now: at))
                return route(message, from: id, at: at)
            } catch {
                return [self.error(id, .invalidMessage, PairingRule.relayRouting)]
            }
        case .bareSignal:
            // PAIR-RTC-005: WebRTC signals travel wrapped in a message; say so rather than drop them.
            return [error(id, .invalidMessage, PairingRule.rtcBareFrame)]
        // A client sends only the three above; payloads, the relay's own frames and records are not frames to it.
        case .document(.desktopPairing), .document(.pairAck), .document(.devicePairing), .document(.pairingConfirmation),
            .document(.registered), .document(.peerOffline), .document(.relayError), .document(.pairedDesktop), .document(.pong),
            .document(.peerStatus), .other:
            return [error(id, .invalidMessage, PairingRule.relayRouting)]
        }
    }

    private mutating func register(_ peerId: String, on id: ConnectionID, at: EpochMillis) -> [Action] {
        guard PeerID.aliasCode(peerId) != nil else {
            // A reconnecting client takes its id over from its half-open old connection.
            peers[ByteString(peerId)] = id
            if connections[id]?.peerIdKeys.insert(ByteString(peerId)).inserted == true { connections[id]?.peerIds.append(peerId) }
            return [.send(id, Registered(peerId: peerId).canonical, rule: nil)]
        }
        expireAliases(at: at)
        let source = connections[id]?.source ?? ""
        // PAIR-SEC-004: a source that keeps missing is refused every alias, registrations too.
        if guessing(source, at: at) { return [error(id, .rateLimited, PairingRule.guessLimit)] }
        // Re-registering an alias the connection holds reveals nothing (PAIR-SEC-001/002).
        if aliases[peerId]?.connection == id { return [.send(id, Registered(peerId: peerId).canonical, rule: nil)] }
        // PAIR-SEC-005: a bounded number of live aliases per connection and of new ones per
        // source. Checked before the code is looked up: answered `alias-taken` for a live code
        // and `rate-limited` for a free one, a spent quota made free probes show every live code.
        let held = (connections[id]?.aliases ?? []).filter { aliases[$0]?.connection == id }.count
        sources[source, default: SourceWindow()].slide(to: at, window: policy.guessWindow)
        if held >= policy.maxAliasesPerConnection || (sources[source]?.aliasRegistrations.count ?? 0) >= policy.maxAliasesPerSource {
            return [error(id, .rateLimited, PairingRule.aliasQuota)]
        }
        if aliases[peerId] != nil {
            // PAIR-SEC-001; probing live codes by registering them is guessing too (PAIR-SEC-004).
            sources[source, default: SourceWindow()].misses.append(at)
            return [error(id, .aliasTaken, PairingRule.aliasHeld)]
        }
        sources[source, default: SourceWindow()].aliasRegistrations.append(at)
        aliases[peerId] = Alias(connection: id, registeredAt: at)
        connections[id]?.aliases.removeAll { aliases[$0]?.connection != id }
        connections[id]?.aliases.append(peerId)
        expiries.append(peerId, at: at)
        spent[peerId] = nil
        return [.send(id, Registered(peerId: peerId).canonical, rule: nil)]
    }

    /// Whether `source` has used up its misses in the window (PAIR-SEC-004).
    private mutating func guessing(_ source: String, at: EpochMillis) -> Bool {
        guard var window = sources[source] else { return false }
        window.slide(to: at, window: policy.guessWindow)
        sources[source] = window.isEmpty ? nil : window
        return window.misses.count >= policy.maxGuesses
    }

    private mutating func route(_ message: SignalMessage, from id: ConnectionID, at: EpochMillis) -> [Action] {
        guard let sender = connections[id], let from = sender.peerIds.first else {
            return [error(id, .notRegistered, PairingRule.relayRouting)]
        }
        // A message a client sends names its target (a `from` without `to` is a delivery's shape).
        guard let to = message.to else { return [error(id, .invalidMessage, PairingRule.relayRouting)] }
        let forwarded = SignalMessage(to: to, from: from, payload: message.payload).canonical
        guard PeerID.aliasCode(to) != nil else {
            guard let target = peers[ByteString(to)] else {
                return [.send(id, PeerOffline(peerId: to).canonical, rule: PairingRule.relayRouting)]
            }
            return [.send(target, forwarded, rule: nil)]
        }
        // PAIR-SEC-004: a source that keeps missing aliases is guessing codes.
        if guessing(sender.source, at: at) {
            return [error(id, .rateLimited, PairingRule.guessLimit)]
        }
        guard let alias = aliases[to] else {
            sources[sender.source, default: SourceWindow()].misses.append(at)
            if let registeredAt = spent[to], at - registeredAt <= policy.aliasLifetime {
                return [.send(id, PeerOffline(peerId: to).canonical, rule: PairingRule.aliasSingleUse)]
            }
            return [.send(id, PeerOffline(peerId: to).canonical, rule: PairingRule.relayRouting)]
        }
        // PAIR-SEC-002: an alias lives five minutes.
        if at - alias.registeredAt > policy.aliasLifetime {
            aliases[to] = nil
            return [error(id, .aliasExpired, PairingRule.aliasLifetime)]
        }
        // PAIR-SEC-003: one delivery per alias; the code is spent.
        aliases[to] = nil
        spent[to] = alias.registeredAt
        return [.send(alias.connection, forwarded, rule: nil)]
    }

    /// Drops the aliases, and the memory of spent ones, older than their lifetime: only the
    /// registrations at the front of the queue are looked at.
    private mutating func expireAliases(at: EpochMillis) {
        while let (alias, registeredAt) = expiries.first, at - registeredAt > policy.aliasLifetime {
            expiries.removeFirst()
            if aliases[alias]?.registeredAt == registeredAt { aliases[alias] = nil }
            if spent[alias] == registeredAt { spent[alias] = nil }
        }
    }

    /// Errors carry no human text: clients act on the code (PAIR-SIG-003), and the same input
    /// gives byte-identical answers on every relay.
    private func error(_ id: ConnectionID, _ code: RelayError.Code, _ rule: RuleID) -> Action {
        .send(id, RelayError(code: code).canonical, rule: rule)
    }
}

/// A first-in first-out queue of (alias, registration time) with amortized O(1) removal at the front.
struct ExpiryQueue: Sendable, Hashable {
    private var items: [(String, EpochMillis)] = []
    private var head = 0

    static func == (a: ExpiryQueue, b: ExpiryQueue) -> Bool {
        a.items[a.head...].elementsEqual(b.items[b.head...]) { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    func hash(into hasher: inout Hasher) {
        for (alias, at) in items[head...] {
            hasher.combine(alias)
            hasher.combine(at)
        }
    }

    var first: (String, EpochMillis)? { head < items.count ? items[head] : nil }

    mutating func append(_ alias: String, at: EpochMillis) { items.append((alias, at)) }

    mutating func removeFirst() {
        head += 1
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}
