import Foundation
import Pairing
import WebSocketTransport
import WireCore

/// What a relay saw on one connection, for an observer (the runner's live checks).
public enum RelayTapEvent: Sendable {
    /// A client connected from `source` (its host), from `port` when known.
    case connected(SignalingRelay.ConnectionID, source: String, port: Int?)
    case text(SignalingRelay.ConnectionID, String)
    case binary(SignalingRelay.ConnectionID, [UInt8])
    /// A WebSocket ping frame (answered by the transport; a keepalive all the same).
    case ping(SignalingRelay.ConnectionID)
    /// The transport's pong to that ping frame, sent as soon as it arrived: the relay's answer
    /// that keeps the client from taking the connection for dead (PAIR-RELAY-002, PAIR-CONN-003).
    case pong(SignalingRelay.ConnectionID)
    /// The connection ended: `byClient` when the client sent its close frame, false when it
    /// was dropped (an error, a reset) or the relay closed it.
    case closed(SignalingRelay.ConnectionID, byClient: Bool)
    /// A text frame the relay sent on the connection.
    case sent(SignalingRelay.ConnectionID, String)
}

/// The signaling relay on the network (seed 002 §4.2; Spec pairing.md §5): a WebSocket server
/// whose every text frame goes through a `SignalingRelay` machine, and whose every action becomes
/// a frame on a connection. Rate limits count per client IP address.
public actor RelayServer {
    /// Frames up to this size are read, so one over 64 KiB is answered `too-large` (Spec
    /// pairing.md PAIR-RELAY-001); a larger one closes the connection unread.
    public static let maxFrameSize = 1 << 20

    private var relay: SignalingRelay
    private var writers: [SignalingRelay.ConnectionID: WebSocketWriter] = [:]
    private var nextID = 0
    private let clock: @Sendable () -> EpochMillis
    private let log: @Sendable (String) -> Void
    private let tap: (@Sendable (RelayTapEvent) -> Void)?
    /// A fault, for testing the kit: deliveries carry the `from` the client wrote, as the deployed
    /// ChainlessChain relay's do (server.js lines 119-121), not the sender's registered id.
    private let copiesClientFrom: Bool
    private let silenced = SilencedConnections()

    /// `tap` hears of every connection, frame and close, before the relay acts on it.
    public init(
        policy: SignalingRelay.Policy = .init(), clock: @escaping @Sendable () -> EpochMillis, log: @escaping @Sendable (String) -> Void,
        tap: (@Sendable (RelayTapEvent) -> Void)? = nil, copiesClientFrom: Bool = false
    ) {
        relay = SignalingRelay(policy: policy)
        self.clock = clock
        self.log = log
        self.tap = tap
        self.copiesClientFrom = copiesClientFrom
    }

    /// Serves connections from `listener` until the task is cancelled.
    public func serve(_ listener: WebSocketListener) async throws {
        await listener.accept { connection in
            let source = Self.host(of: connection.remoteAddress)
            let port = connection.remotePort
            let id = await self.nextConnectionID()
            let tap = self.tap
            try? await connection.run(onPing: Self.pingHandler(tap, self.silenced, id)) { inbound, writer in
                await self.connected(id, writer, source: source, port: port)
                var byClient = false
                var iterator = inbound.makeAsyncIterator()
                do {
                    while let message = try await iterator.next() {
                        switch message {
                        case .text(let text):
                            tap?(.text(id, text))
                            await self.received(Array(text.utf8), on: id)
                        case .binary(let bytes):
                            tap?(.binary(id, bytes))
                            await self.received(bytes, on: id)
                        }
                    }
                    // A close frame: the client closed; the stream ending without one is a drop.
                    byClient = iterator.closeFrame != nil
                } catch {
                    self.log("connection \(id): \(error)")
                }
                await self.disconnected(id, byClient: byClient)
            }
        }
    }

    /// The peer ids registered now, sorted.
    public func registered() -> [String] { relay.registeredPeerIds }

    static func pingHandler(_ tap: (@Sendable (RelayTapEvent) -> Void)?, _ silenced: SilencedConnections, _ id: SignalingRelay.ConnectionID) -> @Sendable () -> Bool {
        {
            let answered = !silenced.contains(id)
            tap?(.ping(id))
            if answered { tap?(.pong(id)) }
            return answered
        }
    }

    /// Drops a connection without a closing handshake (a lost network, for reconnect tests).
    public func drop(_ id: SignalingRelay.ConnectionID) {
        writers[id]?.abort()
    }

    /// From now on nothing reaches connection `id`: no frame the relay would send, no pong to its
    /// pings. What a half-open TCP connection looks like to the client (a relay that vanished
    /// without a FIN): a client must take it for dead by its keepalives (PAIR-CONN-003).
    public func silence(_ id: SignalingRelay.ConnectionID) {
        silenced.insert(id)
    }

    func nextConnectionID() -> SignalingRelay.ConnectionID {
        nextID += 1
        return nextID
    }

    func connected(_ id: SignalingRelay.ConnectionID, _ writer: WebSocketWriter, source: String, port: Int?) {
        writers[id] = writer
        tap?(.connected(id, source: source, port: port))
        _ = relay.handle(.connected(id, source: source, at: clock()))
        log("connection \(id) from \(source)")
    }

    func received(_ text: [UInt8], on id: SignalingRelay.ConnectionID) async {
        let forged = copiesClientFrom ? (try? JSONParser.parse(text))?["from"] : nil
        for action in relay.handle(.received(id, text: text, at: clock())) {
            guard case .send(let target, var document, let rule) = action else { continue }
            if let forged, target != id, PairingFrame(document).documentKind == .message, let changed = (JSONPointer.root / "from").replacing(in: document, with: forged) {
                document = changed
            }
            let text = JSONSerializer.compact(document)
            if let rule { log("connection \(id): \(rule) → \(text)") }
            guard let writer = writers[target], !silenced.contains(target) else { continue }
            tap?(.sent(target, text))
            try? await writer.send(text: text)
        }
    }

    func disconnected(_ id: SignalingRelay.ConnectionID, byClient: Bool) {
        writers[id] = nil
        _ = relay.handle(.disconnected(id, at: clock()))
        tap?(.closed(id, byClient: byClient))
    }

    /// The IP address of `address` ("[IPv4]127.0.0.1/127.0.0.1:5000" in NIO's spelling): the unit
    /// the relay's rate limits count.
    static func host(of address: String) -> String {
        guard let slash = address.lastIndex(of: "/") else { return address }
        let rest = address[address.index(after: slash)...]
        guard let colon = rest.lastIndex(of: ":") else { return String(rest) }
        return String(rest[..<colon])
    }
}

/// The connections a relay went silent on (`RelayServer.silence`): read by the transport's ping
/// handler, off the actor, as each ping arrives.
final class SilencedConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: Set<SignalingRelay.ConnectionID> = []

    func insert(_ id: SignalingRelay.ConnectionID) { _ = lock.withLock { ids.insert(id) } }
    func contains(_ id: SignalingRelay.ConnectionID) -> Bool { lock.withLock { ids.contains(id) } }
}
