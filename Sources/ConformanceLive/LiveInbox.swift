import ConformanceKit
import Foundation
import WebSocketTransport

/// What a live peer did on one connection, in arrival order.
enum LiveFrame: Sendable {
    case text(String)
    case binary(Int)
    /// The connection ended: how (the peer's close frame and its code, or no close frame).
    case closed(String)

    /// The frame quoted for a report.
    var quoted: String {
        switch self {
        case .text(let t): return FrameJudge.quote(t)
        case .binary(let n): return "a binary frame of \(n) bytes"
        case .closed(let how): return how
        }
    }
}

/// One client connection the runner holds open to a peer under test: what arrives is buffered,
/// and read with a timeout, so a silent peer is reported, not waited for forever.
final class LiveConnection: Sendable {
    /// What the runner's client sent and received, for the case's wire log (the runner is the
    /// client, the peer under test the server).
    typealias Tap = @Sendable (WireEvent.Body) -> Void

    private let writer: WebSocketWriter
    let inbox: WaitQueue<LiveFrame>
    private let task: Task<Void, Never>
    private let tap: Tap

    private init(writer: WebSocketWriter, inbox: WaitQueue<LiveFrame>, task: Task<Void, Never>, tap: @escaping Tap) {
        self.writer = writer
        self.inbox = inbox
        self.task = task
        self.tap = tap
    }

    static func open(_ url: String, from localAddress: String?, trust: TLSClientTrust, tap: @escaping Tap = { _ in }) async throws -> LiveConnection {
        let connection = try await WebSocketClient.connect(to: url, maxFrameSize: 1 << 20, localAddress: localAddress, trust: trust)
        tap(.open(peer: url, path: "/"))
        let inbox = WaitQueue<LiveFrame>()
        let (writers, continuation) = AsyncStream.makeStream(of: WebSocketWriter.self)
        let task = Task<Void, Never> {
            do {
                try await connection.run { inbound, writer in
                    continuation.yield(writer)
                    continuation.finish()
                    var iterator = inbound.makeAsyncIterator()
                    do {
                        while let message = try await iterator.next() {
                            switch message {
                            case .text(let text):
                                tap(.text(from: .server, text))
                                await inbox.push(.text(text))
                            case .binary(let bytes):
                                tap(.binary(from: .server, .init(bytes, cap: 0)))
                                await inbox.push(.binary(bytes.count))
                            }
                        }
                        tap(.close(by: iterator.closeFrame == nil ? nil : .server, code: iterator.closeFrame?.code.map { Int($0) }))
                        await inbox.push(.closed(iterator.closeFrame.map { "closed by the peer with \($0)" } ?? "the connection ended without a close frame"))
                    } catch {
                        tap(.close(by: nil, code: nil))
                        await inbox.push(.closed("the connection failed: \(error)"))
                    }
                }
            } catch {
                tap(.close(by: nil, code: nil))
                await inbox.push(.closed("the connection failed: \(error)"))
            }
            await inbox.finish()
        }
        var iterator = writers.makeAsyncIterator()
        guard let writer = await iterator.next() else { throw WebSocketError("\(url) closed at once") }
        return LiveConnection(writer: writer, inbox: inbox, task: task, tap: tap)
    }

    func send(text: String) async throws {
        tap(.text(from: .client, text))
        try await writer.send(text: text)
    }

    func close() async {
        tap(.close(by: .client, code: nil))
        await writer.close()
        task.cancel()
    }
}
