import WireCore

/// The WebRTC exchange after pairing (Spec pairing.md 4.6, PAIR-RTC-006): the phone offers, the
/// desktop answers, both trickle candidates through the relay, to and from the paired peer only.
/// `idle → negotiating(session, described, remoteCandidates) → negotiated | failed(reason)`.
public struct WebRTCNegotiationMachine: TimedMachine {
    public enum Role: String, Sendable, Hashable {
        case offerer, answerer
    }

    public enum State: Sendable, Hashable {
        case idle
        /// `described`: the other side's description (answer or offer) was taken.
        case negotiating(Session, described: Bool, remoteCandidates: Int)
        case negotiated
        case failed(FailureReason)
    }

    /// The exchange `start` began: with whom, through which relay, sending what, since when.
    public struct Session: Sendable, Hashable {
        public var role: Role
        public var peerId: String
        public var url: String
        public var local: Local
        public var startedAt: EpochMillis
    }

    /// What this side sends: its description and its candidate attributes.
    public struct Local: Sendable, Hashable {
        public var sdp: String
        public var candidates: [String]
        public init(sdp: String, candidates: [String]) {
            self.sdp = sdp
            self.candidates = candidates
        }
    }

    public enum Event: Sendable, Hashable {
        case start(role: Role, peerId: String, url: String, local: Local, at: EpochMillis)
        /// A `message` the relay delivered, whole (with its `from`).
        case signal(document: JSONValue, at: EpochMillis)
        /// The relay's `peer-offline`, naming the target it could not reach.
        case peerOffline(peerId: String, at: EpochMillis)
        case tick(at: EpochMillis)

        var time: EpochMillis {
            switch self {
            case .start(_, _, _, _, let at), .signal(_, let at), .peerOffline(_, let at), .tick(let at): return at
            }
        }
    }

    /// How long the exchange may take from `start` (iOS waits 30 s for its answer).
    public static let seedTimeout: EpochMillis = 30_000
    /// The Spec's 30000 ms; test builds of an edge may shorten it.
    public let timeout: EpochMillis

    public private(set) var state: State = .idle
    /// This side's own id (the context's `localPeerId`): a signal from it is an echo (PAIR-RTC-004).
    public let localPeerId: String

    public init(localPeerId: String, timeout: EpochMillis = seedTimeout) {
        self.localPeerId = localPeerId
        self.timeout = max(1, timeout)
    }

    /// When the machine next needs a `tick`: the exchange's deadline while it is under way.
    public var nextDeadline: EpochMillis? {
        guard case .negotiating(let session, _, _) = state else { return nil }
        return session.startedAt + timeout + 1
    }

    public static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    public mutating func step(_ event: Event) -> Step<PairingAction> {
        switch (state, event) {
        case (.idle, .start(let role, let peerId, let url, let local, let at)):
            let session = Session(role: role, peerId: peerId, url: url, local: local, startedAt: at)
            state = .negotiating(session, described: false, remoteCandidates: 0)
            return role == .offerer ? Step(describe(.offer(sdp: local.sdp), in: session)) : []
        case (.idle, .signal), (.idle, .peerOffline), (.idle, .tick):
            return .ignored("no exchange started")
        case (.negotiating, .start):
            return .ignored("an exchange is already under way")
        case (.negotiating(let session, let described, let candidates), _):
            return negotiate(event, session, described: described, candidates: candidates)
        case (.negotiated, _), (.failed, _):
            return .ignored("the exchange is over")
        }
    }

    private mutating func negotiate(_ event: Event, _ session: Session, described: Bool, candidates: Int) -> Step<PairingAction> {
        // PAIR-RTC-006: past the deadline every event finds a failed exchange.
        if event.time > session.startedAt + timeout {
            state = .failed(FailureReason(rule: PairingRule.rtcNegotiation, detail: "the exchange did not complete within \(timeout) ms"))
            if case .signal = event { return [.drop(FailureReason(rule: PairingRule.rtcNegotiation, detail: "a signal after the exchange's deadline"))] }
            return []
        }
        switch event {
        case .start:
            return .ignored("an exchange is already under way")
        case .tick:
            return .ignored("before the deadline")
        case .peerOffline(let peerId, _):
            // Another target on the same connection is not the paired peer.
            guard peerId.bytesEqual(session.peerId) else { return .ignored("another peer is offline") }
            state = .failed(FailureReason(rule: PairingRule.rtcNegotiation, detail: "the paired peer is offline"))
            return []
        case .signal(let document, _):
            // Another machine's message (a confirmation, an opaque payload): not this one's to judge.
            guard case .signal = PairingFrame.payload(document["payload"]) else { return .ignored("not a WebRTC signal") }
            // A delivery names its sender (PAIR-RELAY-001); one without cannot be the paired peer's,
            // and read as a client's message it would be judged by a `to` that names this side.
            guard document["from"] != nil else {
                return [.drop(FailureReason(rule: PairingRule.rtcNegotiation, path: .root / "from", detail: "a delivery without from"))]
            }
            let message: SignalMessage
            do throws(Violation) {
                message = try SignalMessage.decode(document, context: PairingContext(now: event.time, localPeerId: localPeerId))
            } catch {
                return [.drop(FailureReason(error))]
            }
            guard let from = message.from, from.bytesEqual(session.peerId) else {
                return [
                    .drop(
                        FailureReason(
                            rule: PairingRule.rtcNegotiation, path: .root / "from",
                            detail: "a signal from \(message.from.map(JSONSerializer.quoted) ?? "nobody named"), not the paired peer \(JSONSerializer.quoted(session.peerId))"))
                ]
            }
            guard case .webRTC(let signal) = message.payload else { return .ignored("not a WebRTC signal") }
            return Step(take(signal, session, described: described, candidates: candidates))
        }
    }

    private mutating func take(_ signal: WebRTCSignal, _ session: Session, described: Bool, candidates: Int) -> [PairingAction] {
        let wrongKind = { (detail: String) in [PairingAction.drop(FailureReason(rule: PairingRule.rtcNegotiation, path: .root / "payload" / "type", detail: detail))] }
        var actions: [PairingAction] = []
        var described = described
        var candidates = candidates
        switch (session.role, signal) {
        case (_, .iceCandidate):
            candidates += 1
        case (.offerer, .answer), (.answerer, .offer):
            guard !described else { return wrongKind("a second description of the peer") }
            described = true
            if session.role == .answerer { actions = describe(.answer(sdp: session.local.sdp), in: session) }
        case (.offerer, .offer):
            return wrongKind("an offer at the offerer (no glare handling)")
        case (.answerer, .answer):
            return wrongKind("an answer at the answerer, which sent no offer")
        }
        if described && candidates > 0 {
            state = .negotiated
            return actions
        }
        state = .negotiating(session, described: described, remoteCandidates: candidates)
        return actions
    }

    /// This side's description, then each of its candidates, one per message, to the paired peer.
    private func describe(_ description: WebRTCSignal, in session: Session) -> [PairingAction] {
        let signals = [description] + session.local.candidates.map { WebRTCSignal.iceCandidate(candidate: $0, sdpMid: "0", sdpMLineIndex: 0) }
        return signals.map { .send(url: session.url, message: SignalMessage(to: session.peerId, payload: .webRTC($0))) }
    }
}
