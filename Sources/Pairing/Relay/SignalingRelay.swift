import WireCore

/// The signaling relay (seed 002 §4.2, §6.5, Spec pairing.md section 5) as a sans-I/O machine:
/// connections register peer ids, `message`s are routed by `to`, and manual-pairing aliases
/// (`pairing-code:<code>`) are guarded against guessing. The WebSocket edge feeds it events and
/// performs its actions.
public struct SignalingRelay: Sendable {
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
        /// Messages to unregistered aliases allowed per source within `guessWindow` (PAIR-SEC-004).
        public var maxGuesses = 5
        public var guessWindow: EpochMillis = PairingTimeouts.validity

        public init() {}
    }

    struct Connection: Sendable, Hashable {
        let source: String
        /// Non-alias peer ids this connection registered, in order; the first one is its `from`.
        var peerIds: [String] = []
    }

    struct Alias: Sendable, Hashable {
        let connection: ConnectionID
        let registeredAt: EpochMillis
    }

    public let policy: Policy
    private var connections: [ConnectionID: Connection] = [:]
    private var peers: [String: ConnectionID] = [:]
    private var aliases: [String: Alias] = [:]
    /// Aliases that received their one delivery, until their lifetime would have ended.
    private var spent: [String: EpochMillis] = [:]
    /// Times at which each source addressed an alias that was not there.
    private var misses: [String: [EpochMillis]] = [:]

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// The peer ids currently routed to a connection (aliases included), for inspection.
    public var registeredPeerIds: [String] {
        (Array(peers.keys) + Array(aliases.keys)).sorted()
    }

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .connected(let id, let source, _):
            connections[id] = Connection(source: source)
            return []
        case .disconnected(let id, _):
            connections[id] = nil
            peers = peers.filter { $0.value != id }
            aliases = aliases.filter { $0.value.connection != id }
            return []
        case .received(let id, let text, let at):
            guard connections[id] != nil else { return [] }
            return received(text, from: id, at: at)
        }
    }

    private mutating func received(_ text: [UInt8], from id: ConnectionID, at: EpochMillis) -> [Action] {
        let value: JSONValue
        do throws(Violation) {
            value = try JSONParser.parse(text, limits: pairingLimits)
        } catch {
            return [self.error(id, error.rule == CoreRule.size ? .tooLarge : .invalidMessage, PairingRule.relayRouting)]
        }
        switch value["type"] {
        case .string("register")?:
            do throws(Violation) {
                let register = try Register.decode(value, context: PairingContext(now: at))
                return self.register(register.peerId, on: id, at: at)
            } catch {
                return [self.error(id, .invalidMessage, PairingRule.relayRouting)]
            }
        case .string("message")?:
            do throws(Violation) {
                let message = try SignalMessage.decode(value, context: PairingContext(now: at))
                return route(message, from: id, at: at)
            } catch {
                return [self.error(id, .invalidMessage, PairingRule.relayRouting)]
            }
        default:
            return [error(id, .invalidMessage, PairingRule.relayRouting)]
        }
    }

    private mutating func register(_ peerId: String, on id: ConnectionID, at: EpochMillis) -> [Action] {
        if PeerID.aliasCode(peerId) != nil {
            expireAliases(at: at)
            if let holder = aliases[peerId] {
                // PAIR-SEC-001; re-registering does not extend the alias's life (PAIR-SEC-002).
                if holder.connection != id {
                    return [error(id, .aliasTaken, PairingRule.aliasHeld)]
                }
            } else {
                aliases[peerId] = Alias(connection: id, registeredAt: at)
                spent[peerId] = nil
            }
        } else {
            // A reconnecting client takes its id over from its half-open old connection.
            peers[peerId] = id
            if connections[id]?.peerIds.contains(peerId) == false { connections[id]?.peerIds.append(peerId) }
        }
        return [.send(id, Registered(peerId: peerId).canonical, rule: nil)]
    }

    private mutating func route(_ message: SignalMessage, from id: ConnectionID, at: EpochMillis) -> [Action] {
        guard let sender = connections[id], let from = sender.peerIds.first else {
            return [error(id, .notRegistered, PairingRule.relayRouting)]
        }
        let forwarded = SignalMessage(to: message.to, from: from, payload: message.payload).canonical
        guard PeerID.aliasCode(message.to) != nil else {
            guard let target = peers[message.to] else {
                return [.send(id, PeerOffline(peerId: message.to).canonical, rule: PairingRule.relayRouting)]
            }
            return [.send(target, forwarded, rule: nil)]
        }
        // PAIR-SEC-004: a source that keeps missing aliases is guessing codes.
        let recent = (misses[sender.source] ?? []).filter { at - $0 <= policy.guessWindow }
        misses[sender.source] = recent
        if recent.count >= policy.maxGuesses {
            return [error(id, .rateLimited, PairingRule.guessLimit)]
        }
        guard let alias = aliases[message.to] else {
            misses[sender.source, default: []].append(at)
            if let registeredAt = spent[message.to], at - registeredAt <= policy.aliasLifetime {
                return [.send(id, PeerOffline(peerId: message.to).canonical, rule: PairingRule.aliasSingleUse)]
            }
            return [.send(id, PeerOffline(peerId: message.to).canonical, rule: PairingRule.relayRouting)]
        }
        // PAIR-SEC-002: an alias lives five minutes.
        if at - alias.registeredAt > policy.aliasLifetime {
            aliases[message.to] = nil
            return [error(id, .aliasExpired, PairingRule.aliasLifetime)]
        }
        // PAIR-SEC-003: one delivery per alias; the code is spent.
        aliases[message.to] = nil
        spent[message.to] = alias.registeredAt
        return [.send(alias.connection, forwarded, rule: nil)]
    }

    private mutating func expireAliases(at: EpochMillis) {
        aliases = aliases.filter { at - $0.value.registeredAt <= policy.aliasLifetime }
        spent = spent.filter { at - $0.value <= policy.aliasLifetime }
    }

    /// Errors carry no human text: clients act on the code (PAIR-SIG-003), and the same input
    /// gives byte-identical answers on every relay.
    private func error(_ id: ConnectionID, _ code: RelayError.Code, _ rule: RuleID) -> Action {
        .send(id, RelayError(code: code).canonical, rule: rule)
    }
}
