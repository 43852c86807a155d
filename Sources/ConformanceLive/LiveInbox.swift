import Foundation
import WebSocketTransport

/// One client connection the runner holds open to a peer under test: what arrives is buffered,
/// and read with a timeout, so a silent peer is reported, not waited for forever.
final class LiveConnection: Sendable {
    let writer: WebSocketWriter
    /// Text frames in arrival order (binary ones described), read with a timeout.
    let inbox: WaitQueue<String>
    private let task: Task<Void, Never>

    private init(writer: WebSocketWriter, inbox: WaitQueue<String>, task: Task<Void, Never>) {
        self.writer = writer
        self.inbox = inbox
        self.task = task
    }

    static func open(_ url: String, from localAddress: String?) async throws -> LiveConnection {
        let connection = try await WebSocketClient.connect(to: url, maxFrameSize: 1 << 20, localAddress: localAddress)
        let inbox = WaitQueue<String>()
        let (writers, continuation) = AsyncStream.makeStream(of: WebSocketWriter.self)
        let task = Task<Void, Never> {
            _ = try? await connection.run { inbound, writer in
                continuation.yield(writer)
                continuation.finish()
                do {
                    for try await message in inbound {
                        switch message {
                        case .text(let text): await inbox.push(text)
                        case .binary(let bytes): await inbox.push("<binary frame of \(bytes.count) bytes>")
                        }
                    }
                } catch {}
                await inbox.finish()
            }
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
