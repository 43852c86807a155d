import Foundation
import Pairing
import PairingPeer
import WireCore

/// Everything the runner's relay saw, connection by connection, for the pairing roles' checks:
/// recorded synchronously as it happens (so in order), read by polling.
final class RelayObserver: @unchecked Sendable {
    struct Frame: Sendable {
        var at: ContinuousClock.Instant
        var text: String
        /// What it is, read through the kind table, when it is JSON.
        var classified: PairingFrame?
        var json: JSONValue?
    }

    struct Connection: Sendable {
        var id: Int
        var opened: ContinuousClock.Instant
        var frames: [Frame] = []
        /// The ids of its `register` frames, in order.
        var registered: [String] = []
        /// Ping frames and `{type:"ping"}` text frames.
        var keepalives: [ContinuousClock.Instant] = []
        var closed: ContinuousClock.Instant?
    }

    /// One HTTP upgrade request: when, and for which path.
    struct Attempt: Sendable {
        var at: ContinuousClock.Instant
        var path: String
    }

    /// The path of the runner's "LAN" URL, whose every attempt is refused (PAIR-FLOWB-001).
    static let lanPath = "/lan"

    /// Every frame the runner's relay saw or sent, for the case being played.
    let wire = WireRecorder()
    private let lock = NSLock()
    private var connections: [Int: Connection] = [:]
    private var attempts: [Attempt] = []
    private var refusals = 0
    /// The ids the runner's own counterpart registers: its connections are not judged.
    private var own: Set<ByteString> = []

    /// The listener's gate: records the attempt; refuses the LAN path always and the next
    /// `refuseNext` attempts on any other.
    func admit(_ path: String) -> Bool {
        lock.withLock {
            var admitted = !path.bytesEqual(Self.lanPath) && !path.hasBytePrefix(Self.lanPath + "?")
            if admitted && refusals > 0 {
                refusals -= 1
                admitted = false
            }
            attempts.append(Attempt(at: .now, path: path))
            return admitted
        }
    }

    func refuseNext(_ count: Int) { lock.withLock { refusals = count } }

    func claim(_ id: String) { _ = lock.withLock { own.insert(ByteString(id)) } }

    func tap(_ event: RelayTapEvent) {
        wire.record(Watcher.event(event))
        let now = ContinuousClock.now
        lock.withLock {
            switch event {
            case .connected(let id, _, _):
                connections[id] = Connection(id: id, opened: now)
            case .text(let id, let text):
                let json = try? JSONParser.parse(Array(text.utf8))
                let classified = json.map(PairingFrame.init)
                connections[id]?.frames.append(Frame(at: now, text: text, classified: classified, json: json))
                if classified?.documentKind == .register, let peerId = json?["peerId"]?.stringValue { connections[id]?.registered.append(peerId) }
                if classified?.documentKind == .ping { connections[id]?.keepalives.append(now) }
            case .binary(let id, let bytes):
                connections[id]?.frames.append(Frame(at: now, text: "a binary frame of \(bytes.count) bytes"))
            case .ping(let id):
                connections[id]?.keepalives.append(now)
            case .closed(let id, _):
                connections[id]?.closed = now
            case .sent, .pong:
                break
            }
        }
    }

    /// The connections of the peer under test opened after `since` (by id), in order: not the
    /// runner's own (whose first registered id is the runner's), nor strangers'.
    func peerConnections(after since: Int = 0) -> [Connection] {
        lock.withLock { attributed(after: since).peer }
    }

    /// Connections after `since` that registered only ids unrelated to the scenario: another
    /// client on the runner's relay (a second device, a scanner on the LAN). Their frames are not
    /// the peer's, and are noted rather than judged (issue 24.8).
    func strangerConnections(after since: Int = 0) -> [Connection] {
        lock.withLock { attributed(after: since).strangers }
    }

    /// The peer under test's ids are what its first connection that speaks to the runner (a
    /// message to one of the runner's ids) registers, or before it has spoken, its first
    /// connection that registers a non-alias id; its other connections register one of them, an
    /// alias, or one of the runner's ids (the echo-loop trap, which is judged), or nothing yet. A
    /// connection registering only other ids is a stranger.
    private func attributed(after since: Int) -> (peer: [Connection], strangers: [Connection]) {
        let candidates = connections.values.filter { $0.id > since && !($0.registered.first.map { own.contains(ByteString($0)) } ?? false) }.sorted { $0.id < $1.id }
        let named = { (c: Connection) in c.registered.contains { PeerID.aliasCode($0) == nil } }
        // Registration order alone let a stranger that registered before the phone take its
        // place (2 runs in 6 of LiveRunTests.aStrangerOnTheRunnersRelayIsNotThePhone).
        let speaking = candidates.first { c in named(c) && c.frames.contains { $0.classified?.documentKind == .message && addressesRunner($0) } }
        // A desktop may register its code's alias on a connection of its own, and that one may
        // come first: its identity is the first id that is not an alias.
        guard let first = speaking ?? candidates.first(where: named) ?? candidates.first(where: { !$0.registered.isEmpty })
        else { return (candidates, []) }
        let peerIds = Set(first.registered.map(ByteString.init))
        var peer: [Connection] = []
        var strangers: [Connection] = []
        for c in candidates {
            let related = c.registered.isEmpty || c.registered.contains { peerIds.contains(ByteString($0)) || own.contains(ByteString($0)) || PeerID.aliasCode($0) != nil }
            if related { peer.append(c) } else { strangers.append(c) }
        }
        return (peer, strangers)
    }

    /// A message to one of the runner's ids, or to a code's alias (a phone that typed the code
    /// sends its ack there).
    private func addressesRunner(_ frame: Frame) -> Bool {
        guard let to = frame.json?["to"]?.stringValue else { return false }
        return own.contains(ByteString(to)) || PeerID.aliasCode(to) != nil
    }

    func connection(_ id: Int) -> Connection? { lock.withLock { connections[id] } }

    /// The highest connection id so far: a scenario judges only connections after it.
    var lastConnectionID: Int { lock.withLock { connections.keys.max() ?? 0 } }

    func attempts(since: ContinuousClock.Instant) -> [Attempt] { lock.withLock { attempts.filter { $0.at >= since } } }
}
