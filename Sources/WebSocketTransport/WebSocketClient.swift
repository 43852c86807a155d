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
    public static func connect(
        to url: String, maxFrameSize: Int, simulatedLatency: TimeAmount? = nil, localAddress: String? = nil, trust: TLSClientTrust = .system
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
        let upgrade: EventLoopFuture<Upgrade>
        do {
            var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            if let localAddress { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: localAddress, port: 0)) }
            upgrade = try await bootstrap
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
                        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
                    }
                }
        } catch {
            throw WebSocketError("cannot connect to \(host):\(port): \(error)")
        }
        let result: Upgrade
        do {
            result = try await upgrade.get()
        } catch {
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
