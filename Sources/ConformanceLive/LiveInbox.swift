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
    let writer: WebSocketWriter
    let inbox: WaitQueue<LiveFrame>
    private let task: Task<Void, Never>

    private init(writer: WebSocketWriter, inbox: WaitQueue<LiveFrame>, task: Task<Void, Never>) {
        self.writer = writer
        self.inbox = inbox
        self.task = task
    }

    static func open(_ url: String, from localAddress: String?, trust: TLSClientTrust) async throws -> LiveConnection {
        let connection = try await WebSocketClient.connect(to: url, maxFrameSize: 1 << 20, localAddress: localAddress, trust: trust)
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
                            case .text(let text): await inbox.push(.text(text))
                            case .binary(let bytes): await inbox.push(.binary(bytes.count))
                            }
                        }
                        await inbox.push(.closed(iterator.closeFrame.map { "closed by the peer with \($0)" } ?? "the connection ended without a close frame"))
                    } catch {
                        await inbox.push(.closed("the connection failed: \(error)"))
                    }
                }
            } catch {
                await inbox.push(.closed("the connection failed: \(error)"))
            }
            await inbox.finish()
        }
        var iterator = writers.makeAsyncIterator()
        guard let writer = await iterator.next() else { throw WebSocketError("\(url) closed at once") }
        return LiveConnection(writer: writer, inbox: inbox, task: task)
    }

    func close() async {
        await writer.close()
        task.cancel()
    }
}
