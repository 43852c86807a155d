import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening WebSocket endpoint (the migration sender and the signaling relay listen). It
/// accepts and upgrades connections from the moment it is bound until `close()`, and hands them
/// out in arrival order to whoever `accept`s, one consumer after another.
public struct WebSocketListener: Sendable {
    enum Upgrade: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused
    }

    let channel: any Channel
    let queue: WaitQueue<WebSocketConnection>
    /// The bound port (useful after binding port 0).
    public let port: Int

    /// Reads grow up to 1 MiB when the peer sends that fast: a 1 MiB chunk then costs a few
    /// reads instead of sixteen (NIO's default stops at 64 KiB).
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 1024, initial: 1 << 16, maximum: 1 << 20)

    /// What a listener bounds, whoever connects (with `--listen 0.0.0.0`, anyone on the LAN).
    public struct Limits: Sendable {
        /// A connection that has not completed its WebSocket upgrade (TLS included) by then is
        /// closed: a client that sends half a request must not hold a socket forever.
        public var upgradeTimeout: TimeAmount = .seconds(10)
        /// Connections open at once, upgraded or not; one more is closed as it arrives.
        public var maxConnections = 256

        public init() {}
    }

    /// Binds `host:port`. Frames over `maxFrameSize` bytes end the connection with close code 1009.
    /// `simulatedLatency` delays everything this side receives (benchmarks and fault tests).
    /// With `tls`, connections speak TLS with that identity first (`wss://`). `admit` sees every
    /// upgrade request's path as it arrives; one it refuses is answered HTTP 503 and closed (a
    /// server that is down, for clients' reconnect tests).
    public static func bind(
        host: String, port: Int, maxFrameSize: Int, simulatedLatency: TimeAmount? = nil, tls: TLSServerIdentity? = nil,
        limits: Limits = Limits(), admit: (@Sendable (_ path: String) -> Bool)? = nil
    ) async throws -> WebSocketListener {
        let context: ServerTLS? = try tls.map(ServerTLS.init)
        do {
            return try await listen(
                host: host, port: port, maxFrameSize: maxFrameSize, simulatedLatency: simulatedLatency, tls: context, limits: limits, admit: admit)
        } catch let error as IOError {
            // NIO's message names the system call, not the address the user asked for.
            throw WebSocketError("cannot listen on \(host):\(port): \(String(cString: strerror(error.errnoCode)))")
        }
    }

    static func listen(
        host: String, port: Int, maxFrameSize: Int, simulatedLatency: TimeAmount?, tls: ServerTLS?, limits: Limits,
        admit: (@Sendable (String) -> Bool)?
    ) async throws -> WebSocketListener {
        let refused = NIOLockedValueBox(Set<ObjectIdentifier>())
        let open = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.recvAllocator, value: WebSocketListener.receiveBuffers)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgraded = count(channel, open: open, limits: limits)
                    if let simulatedLatency { try channel.pipeline.syncOperations.addHandler(SimulatedLatency(delay: simulatedLatency), position: .first) }
                    if let tls { try tls.add(to: channel.pipeline.syncOperations) }
                    let upgrader = NIOTypedWebSocketServerUpgrader<Upgrade>(
                        maxFrameSize: maxFrameSize, enableAutomaticErrorHandling: false,
                        shouldUpgrade: { channel, head in
                            if let admit, !admit(head.uri) {
                                refused.withLockedValue { _ = $0.insert(ObjectIdentifier(channel)) }
                                return channel.eventLoop.makeSucceededFuture(nil)
                            }
                            return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
                        },
                        upgradePipelineHandler: { channel, _ in
                            upgraded.withLockedValue { $0 = true }
                            return channel.eventLoop.makeCompletedFuture {
                                .websocket(try ProtocolErrorCloser.configure(channel, maxFrameSize: maxFrameSize, masksFrames: false))
                            }
                        })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                        configuration: .init(
                            upgradeConfiguration: .init(
                                upgraders: [upgrader],
                                notUpgradingCompletionHandler: { channel in refuse(channel, refused: refused) })))
                }
            }
        guard let port = channel.channel.localAddress?.port else { throw WebSocketError("the listener has no port") }
        let queue = WaitQueue<WebSocketConnection>()
        // Accepting runs for the listener's lifetime, not a consumer's: a connection that
        // arrives while nobody accepts waits in the queue instead of hanging unread.
        Task {
            try? await withThrowingDiscardingTaskGroup { group in
                try await channel.executeThenClose { inbound in
                    for try await upgrade in inbound {
                        group.addTask {
                            guard case .websocket(let ws)? = try? await upgrade.get() else { return }
                            await queue.push(WebSocketConnection(channel: ws, masksFrames: false))
                        }
                    }
                }
            }
            await queue.finish()
        }
        return WebSocketListener(channel: channel.channel, queue: queue, port: port)
    }

    /// Counts `channel` from accept to close, and closes it when it does not upgrade in time; one
    /// over the cap is closed at once, before TLS or HTTP cost anything. Returns the flag the
    /// upgrade sets.
    private static func count(_ channel: any Channel, open: NIOLockedValueBox<Int>, limits: Limits) -> NIOLockedValueBox<Bool> {
        let upgraded = NIOLockedValueBox(false)
        let admitted = open.withLockedValue { count in
            guard count < limits.maxConnections else { return false }
            count += 1
            return true
        }
        guard admitted else {
            channel.close(promise: nil)
            return upgraded
        }
        let deadline = channel.eventLoop.scheduleTask(in: limits.upgradeTimeout) {
            if !upgraded.withLockedValue({ $0 }) { channel.close(promise: nil) }
        }
        channel.closeFuture.whenComplete { _ in
            deadline.cancel()
            open.withLockedValue { $0 -= 1 }
        }
        return upgraded
    }

    /// Answers a request that does not upgrade, then closes: 503 when `admit` refused it, 426
    /// when it is not a WebSocket request.
    private static func refuse(_ channel: any Channel, refused: NIOLockedValueBox<Set<ObjectIdentifier>>) -> EventLoopFuture<Upgrade> {
        let wasRefused = refused.withLockedValue { $0.remove(ObjectIdentifier(channel)) != nil }
        let head = HTTPResponseHead(
            version: .http1_1, status: wasRefused ? .serviceUnavailable : .upgradeRequired,
            headers: ["Connection": "close", "Content-Length": "0", "Upgrade": "websocket"])
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        return channel.writeAndFlush(HTTPServerResponsePart.end(nil)).flatMap { channel.close() }.map { Upgrade.refused }
    }

    /// Hands each connection to `handler` in its own child task until the calling task is
    /// cancelled (then waits for the handlers, which see the cancellation) or the listener closes.
    public func accept(_ handler: @escaping @Sendable (WebSocketConnection) async -> Void) async {
        await withDiscardingTaskGroup { group in
            while let connection = await queue.next() {
                group.addTask { await handler(connection) }
            }
        }
    }

    /// Whether an upgraded connection waits that nobody has accepted yet: the peer came back
    /// between two sessions.
    public func hasWaiting() async -> Bool {
        await queue.waiting > 0
    }

    /// Stops listening. Connections already handed out stay open.
    public func close() async {
        try? await channel.close()
    }
}
