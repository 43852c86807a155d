import Foundation
import TestFixture
import WebSocketTransport
import WireCore

/// A WebSocket man in the middle for tests: it accepts clients, connects each to `upstream`
/// from the client's own IP address (so a relay still sees one source per simulated client),
/// and passes every message through a rewriter per direction. Rewriters change, add, drop or
/// hold frames; what a correct runner must tolerate and what it must catch is decided by the tests.
final class FaultProxy: Sendable {
    let url: String
    private let listener: WebSocketListener
    private let task: Task<Void, Never>

    /// Rewrites one direction of one connection; called in arrival order, one message at a time.
    typealias Rewriter = @Sendable (WebSocketMessage, Forwarder) async -> Void

    private init(url: String, listener: WebSocketListener, task: Task<Void, Never>) {
        self.url = url
        self.listener = listener
        self.task = task
    }

    /// - Parameter rewriters: makes, per client connection, the rewriter toward the client and the
    ///   one toward the upstream server.
    ///   - overtaken: counts held messages that a later one overtook (proof that a reorder happened).
    static func start(
        upstream: String, overtaken: Counter = Counter(), rewriters: @escaping @Sendable () -> (toClient: Rewriter, toServer: Rewriter)
    ) async throws -> FaultProxy {
        let listener = try await WebSocketListener.bind(host: "127.0.0.1", port: 0, maxFrameSize: 1 << 21)
        let task = Task {
            await listener.accept { client in
                // The server may not listen yet (a receiver under test connects first): retry.
                guard let server = await Fixture.first(within: 10, { try? await WebSocketClient.connect(to: upstream, maxFrameSize: 1 << 21, localAddress: client.remoteIP) }) else { return }
                let (toClient, toServer) = rewriters()
                try? await client.run { clientInbound, clientWriter in
                    try await server.run { serverInbound, serverWriter in
                        await withTaskGroup(of: Void.self) { group in
                            group.addTask {
                                let forward = Forwarder(clientWriter, overtaken: overtaken)
                                do { for try await m in serverInbound { await toClient(m, forward) } } catch {}
                                await forward.flush()
                                await clientWriter.close()
                            }
                            group.addTask {
                                let forward = Forwarder(serverWriter, overtaken: overtaken)
                                do { for try await m in clientInbound { await toServer(m, forward) } } catch {}
                                await forward.flush()
                                await serverWriter.close()
                            }
                            // Either side ending ends both.
                            await group.next()
                            group.cancelAll()
                        }
                    }
                }
            }
        }
        return FaultProxy(url: "ws://127.0.0.1:\(listener.port)", listener: listener, task: task)
    }

    func close() async {
        task.cancel()
        await listener.close()
    }

    /// Passes every message on unchanged.
    static let passThrough: Rewriter = { message, forward in await forward.send(message) }

    /// Every JSON object text frame with `change` applied; other frames unchanged.
    static func rewritingJSON(_ change: @escaping @Sendable (JSONObject) -> JSONObject) -> Rewriter {
        { message, forward in
            guard case .text(let text) = message, case .object(let object)? = try? JSONParser.parse(Array(text.utf8)) else {
                await forward.send(message)
                return
            }
            await forward.send(.text(JSONSerializer.compact(.object(change(object)))))
        }
    }
}

/// Sends on one direction, and can hold one message back to let the next one overtake it.
actor Forwarder {
    private let writer: WebSocketWriter
    private var held: WebSocketMessage?
    private var holds = 0
    private let overtaken: Counter

    init(_ writer: WebSocketWriter, overtaken: Counter) {
        self.writer = writer
        self.overtaken = overtaken
    }

    func send(_ message: WebSocketMessage) async {
        try? await writer.send(message)
        if let held {
            self.held = nil
            overtaken.add()
            try? await writer.send(held)
        }
    }

    /// Holds `message` until the next one has been sent, or `limit` passes (a peer that waits
    /// for it before sending more must not deadlock).
    /// When one is already held, `message` overtakes it instead (pairs are swapped).
    func hold(_ message: WebSocketMessage, limit: Duration = .milliseconds(100)) async {
        if held != nil {
            await send(message)
            return
        }
        held = message
        holds += 1
        let mine = holds
        Task {
            try? await Task.sleep(for: limit)
            await self.release(mine)
        }
    }

    private func release(_ which: Int) async {
        guard which == holds, let held else { return }
        self.held = nil
        try? await writer.send(held)
    }

    /// Drops this side's TCP connection without a closing handshake (a lost network).
    func drop() {
        writer.abort()
    }

    func flush() async {
        if let held {
            self.held = nil
            try? await writer.send(held)
        }
    }
}

/// Counts across connections (for tests that must see a fault really happen).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add(_ k: Int = 1) { lock.withLock { n += k } }
    var value: Int { lock.withLock { n } }
}
