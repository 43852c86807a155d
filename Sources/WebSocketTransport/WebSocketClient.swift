import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Connects to a `ws://` or `wss://` URL (the migration receiver and the pairing devices connect).
public enum WebSocketClient {
    enum Upgrade: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused
    }

    /// Frames over `maxFrameSize` bytes end the connection with close code 1009.
    /// `simulatedLatency` delays everything this side receives (benchmarks and fault tests).
    /// `localAddress` binds the client's end (e.g. one loopback address per simulated client).
    /// `trust` decides whom a `wss://` connection accepts; a refusal is a `TLSFailure` naming why.
    /// `handshakeTimeout` bounds the attempt from its first packet to the `101` (TCP, TLS and the
    /// upgrade): a server that accepts and never answers would otherwise hold a client in its
    /// attempt for good, where it neither sends nor reconnects. 10 s is OkHttp's default
    /// connect and read timeout, the Android app's.
    public static func connect(
        to url: String, maxFrameSize: Int, simulatedLatency: TimeAmount? = nil, localAddress: String? = nil, trust: TLSClientTrust = .system,
        handshakeTimeout: TimeAmount = .seconds(10)
    ) async throws -> WebSocketConnection {
        guard let components = URLComponents(string: url), components.scheme == "ws" || components.scheme == "wss",
            let named = components.host, !named.isEmpty
        else {
            throw WebSocketError("\(url) is not a ws:// or wss:// URL")
        }
        let host = named.hasPrefix("[") && named.hasSuffix("]") ? String(named.dropFirst().dropLast()) : named
        let secure = components.scheme == "wss"
        let port = components.port ?? (secure ? 443 : 80)
        #if !TLS
        if secure { throw WebSocketError.tlsNotBuilt }
        #endif

        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let answer = NIOLockedValueBox<String?>(nil)
        let timedOut = NIOLockedValueBox(false)
        let attempt = NIOLockedValueBox<Channel?>(nil)
        let upgrade: EventLoopFuture<Upgrade>
        do {
            var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            if let localAddress { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: localAddress, port: 0)) }
            upgrade = try await bootstrap
                .connectTimeout(handshakeTimeout)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelOption(.recvAllocator, value: WebSocketListener.receiveBuffers)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let simulatedLatency {
                            try channel.pipeline.syncOperations.addHandler(SimulatedLatency(delay: simulatedLatency), position: .first)
                        }
                        #if TLS
                        if secure { try trust.add(to: channel.pipeline.syncOperations, host: host) }
                        #endif
                        try channel.pipeline.syncOperations.addHandler(StatusLineRecorder(answer))
                        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                            maxFrameSize: maxFrameSize, enableAutomaticErrorHandling: false,
                            upgradePipelineHandler: { channel, _ in
                                channel.eventLoop.makeCompletedFuture {
                                    .websocket(try ProtocolErrorCloser.configure(channel, maxFrameSize: maxFrameSize, masksFrames: true))
                                }
                            })
                        // No Content-Length: a GET has no body, and servers such as Python's
                        // websockets 12 refuse an upgrade request that declares one (measured: a
                        // sender written with it refused every reference receiver with HTTP 400).
                        var headers = HTTPHeaders()
                        headers.add(name: "Host", value: "\(host):\(port)")
                        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                        var configuration = NIOUpgradableHTTPClientPipelineConfiguration<Upgrade>(
                            upgradeConfiguration: .init(
                                upgradeRequestHead: head, upgraders: [upgrader],
                                notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(.refused) }))
                        // A frame the server sends at once can arrive in the same read as its 101
                        // response; NIO's default drops such bytes with the HTTP decoder.
                        configuration.leftOverBytesStrategy = .forwardBytes
                        attempt.withLockedValue { $0 = channel }
                        let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
                        let giveUp = channel.eventLoop.scheduleTask(in: handshakeTimeout) {
                            timedOut.withLockedValue { $0 = true }
                            channel.close(promise: nil)
                        }
                        upgraded.whenComplete { _ in giveUp.cancel() }
                        return upgraded
                    }
                }
        } catch {
            throw WebSocketError("cannot connect to \(host):\(port): \(error)")
        }
        let result: Upgrade
        do {
            // A cancelled caller (a client that stops) does not wait for the timeout: the
            // attempt's channel is closed, which fails the upgrade at once.
            result = try await withTaskCancellationHandler {
                try await upgrade.get()
            } onCancel: {
                attempt.withLockedValue { $0 }?.close(promise: nil)
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            if timedOut.withLockedValue({ $0 }) {
                throw WebSocketError("\(host):\(port) did not answer the WebSocket handshake within \(handshakeTimeout.nanoseconds / 1_000_000) ms")
            }
            #if TLS
            if secure { throw await TLSFailure.diagnose(host: host, port: port, trust: trust, error: error) }
            #endif
            throw error
        }
        guard case .websocket(let ws) = result else {
            throw WebSocketUpgradeRefused(url: url, statusLine: answer.withLockedValue { $0 } ?? "")
        }
        return WebSocketConnection(channel: ws, masksFrames: true)
    }
}
