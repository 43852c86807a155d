import WireCore

/// A client's connection to one signaling server (seed 002 §6.2; Spec pairing.md 4.4): it
/// reconnects after a drop with back-off, registers again every id it holds, keeps the socket
/// alive, and takes a connection on which its keepalive went unanswered for dropped.
/// `idle → connecting → open ⇄ waiting → … → closed`. Sans-I/O: the edge opens sockets and
/// reads the clock.
public struct SignalingConnectionMachine: TimedMachine {
    /// The timing of PAIR-CONN-002 and PAIR-CONN-003.
    public struct Policy: Sendable, Hashable {
        /// The delay before the n-th attempt in a row (after a drop or a failed attempt); the
        /// last one repeats for every further attempt.
        public var backoff: [EpochMillis]
        public var keepaliveInterval: EpochMillis
        /// Keepalives in a row that may go unanswered: at the next one the connection is dropped
        /// instead (PAIR-CONN-003). The reference's is 1, OkHttp's ping interval.
        public var unansweredLimit = 1

        /// The seed's schedule (§6.2), which the reference follows.
        public static let seed = Policy(backoff: [500, 1000, 2000, 5000], keepaliveInterval: 30_000)
        /// What PAIR-CONN-002 and PAIR-CONN-003 allow an implementation to choose.
        public static let delayBounds: ClosedRange<EpochMillis> = 500...60_000
        public static let keepaliveBounds: ClosedRange<EpochMillis> = 5_000...30_000
        public static let unansweredBounds: ClosedRange<Int> = 1...3

        public init(backoff: [EpochMillis], keepaliveInterval: EpochMillis) {
            self.backoff = backoff
            self.keepaliveInterval = keepaliveInterval
        }

        /// Why this policy is outside what the Spec allows, or nil when it is within.
        public var problem: String? {
            if backoff.isEmpty { return "the back-off needs at least one delay" }
            if let d = backoff.first(where: { !Self.delayBounds.contains($0) }) { return "back-off delay \(d) ms is outside 500...60000 ms" }
            if zip(backoff, backoff.dropFirst()).contains(where: { $0 > $1 }) { return "back-off delays must not decrease" }
            if !Self.keepaliveBounds.contains(keepaliveInterval) { return "keepalive interval \(keepaliveInterval) ms is outside 5000...30000 ms" }
            if !Self.unansweredBounds.contains(unansweredLimit) { return "unanswered keepalives \(unansweredLimit) is outside 1...3" }
            return nil
        }

        /// The delay before the next attempt after `failures` (1 or more) in a row.
        public func delay(afterFailures failures: Int) -> EpochMillis {
            backoff[min(max(failures, 1), backoff.count) - 1]
        }
    }

    public enum State: Sendable, Hashable {
        case idle
        /// An attempt is under way; `failures` attempts in a row failed before it.
        case connecting(failures: Int)
        /// `unanswered`: keepalives sent since anything last arrived (PAIR-CONN-003).
        case open(nextPingAt: EpochMillis, unanswered: Int)
        /// The next attempt is due at `until`.
        case waiting(failures: Int, until: EpochMillis)
        case closed
    }

    public enum Event: Sendable, Hashable {
        case start(at: EpochMillis)
        /// Hold `peerId`: registered now when open, and again after every reconnect.
        case register(peerId: String, at: EpochMillis)
        /// Stop holding `peerId` (a spent or expired alias: registering it again would make a
        /// used code live again).
        case release(peerId: String, at: EpochMillis)
        /// The WebSocket handshake completed.
        case opened(at: EpochMillis)
        /// The attempt failed, or the open connection dropped.
        case failed(at: EpochMillis)
        /// A frame arrived on the open connection (the relay's `pong` among them).
        case heard(at: EpochMillis)
        case tick(at: EpochMillis)
        case stop(at: EpochMillis)
    }

    public enum Action: Sendable, Hashable {
        /// An attempt; `rule` is PAIR-CONN-002 when it comes after a back-off.
        case connect(rule: RuleID?)
        /// A `register` frame; `rule` is PAIR-CONN-001 when it is sent again after a (re)connection.
        case sendRegister(peerId: String, rule: RuleID?)
        /// A keepalive: a WebSocket ping frame or a `{type:"ping"}` text frame (PAIR-RELAY-002).
        case ping
        /// Cut the open connection without a closing handshake: `unansweredLimit` keepalives
        /// went unanswered (PAIR-CONN-003); the back-off follows as after a drop.
        case drop(rule: RuleID)
        case close
    }

    public private(set) var state: State = .idle
    /// The ids registered after every (re)connection, in the order they were first asked for.
    public private(set) var held: [String] = []
    public let policy: Policy

    public init(policy: Policy = .seed) {
        self.policy = policy
    }

    /// The next attempt after the back-off (PAIR-CONN-002) or the next keepalive (PAIR-CONN-003).
    public var nextDeadline: EpochMillis? {
        switch state {
        case .open(let next, _): return next
        case .waiting(_, let until): return until
        case .idle, .connecting, .closed: return nil
        }
    }

    public static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    public mutating func step(_ event: Event) -> Step<Action> {
        switch (state, event) {
        case (.idle, .start):
            state = .connecting(failures: 0)
            return [.connect(rule: nil)]
        case (.closed, _):
            return .ignored("stopped")
        case (_, .start):
            return .ignored("already started")
        case (_, .stop):
            state = .closed
            return [.close]
        case (_, .register(let peerId, _)):
            // Idempotent (§6.1 ensureRegistered): an id already held is not sent again.
            guard !held.contains(where: { $0.bytesEqual(peerId) }) else { return .ignored("the id is held already") }
            held.append(peerId)
            if case .open = state { return [.sendRegister(peerId: peerId, rule: nil)] }
            return []
        case (_, .release(let peerId, _)):
            held.removeAll { $0.bytesEqual(peerId) }
            return []
        case (.connecting, .opened(let at)):
            // A connection that opened resets the back-off (PAIR-CONN-002).
            state = .open(nextPingAt: at + policy.keepaliveInterval, unanswered: 0)
            return Step(held.map { .sendRegister(peerId: $0, rule: PairingRule.reRegister) })
        case (.connecting(let failures), .failed(let at)):
            return Step(wait(failures: failures + 1, at: at))
        case (.open, .failed(let at)):
            return Step(wait(failures: 1, at: at))
        case (.open(let next, let unanswered), .tick(let at)) where at >= next:
            // Keepalives unanswered for whole intervals (the relay answers every one,
            // PAIR-RELAY-002): the connection is dead though no close came (a half-open TCP
            // connection), and the client reconnects (OkHttp's ping interval, at the limit 1).
            if unanswered >= policy.unansweredLimit {
                return Step([.drop(rule: PairingRule.keepaliveInterval)] + wait(failures: 1, at: at))
            }
            state = .open(nextPingAt: at + policy.keepaliveInterval, unanswered: unanswered + 1)
            return [.ping]
        case (.open(let next, _), .heard):
            state = .open(nextPingAt: next, unanswered: 0)
            return []
        case (.waiting(let failures, let until), .tick(let at)) where at >= until:
            state = .connecting(failures: failures)
            return [.connect(rule: PairingRule.backoff)]
        // Ignored (4.4): nothing connects before start; a tick before its time (a stale timer);
        // an opened or failed report with no attempt under way.
        case (.idle, .opened), (.idle, .failed), (.idle, .tick):
            return .ignored("not started")
        case (.idle, .heard), (.connecting, .heard), (.waiting, .heard):
            return .ignored("no open connection")
        case (.connecting, .tick), (.open, .tick), (.waiting, .tick):
            return .ignored("before its time")
        case (.open, .opened), (.waiting, .opened), (.waiting, .failed):
            return .ignored("no connection attempt under way")
        }
    }

    private mutating func wait(failures: Int, at time: EpochMillis) -> [Action] {
        let until = time + policy.delay(afterFailures: failures)
        state = .waiting(failures: failures, until: until)
        return []
    }
}
