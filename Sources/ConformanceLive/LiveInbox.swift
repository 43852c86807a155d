import Foundation
import WebSocketTransport

/// One client connection the runner holds open to a peer under test: what arrives is buffered,
/// and read with a timeout, so a silent peer is reported, not waited for forever.
final class LiveConnection: Sendable {
    let writer: WebSocketWriter
    let inbox: Inbox
    private let task: Task<Void, Never>

    private init(writer: WebSocketWriter, inbox: Inbox, task: Task<Void, Never>) {
        self.writer = writer
        self.inbox = inbox
        self.task = task
    }

    static func open(_ url: String, from localAddress: String?) async throws -> LiveConnection {
        let connection = try await WebSocketClient.connect(to: url, maxFrameSize: 1 << 20, localAddress: localAddress)
        let inbox = Inbox()
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
                await inbox.close()
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

/// Text frames in arrival order; `next` waits at most `timeout`.
actor Inbox {
    private var buffer: [String] = []
    private var closed = false
    private var waiter: (id: UUID, continuation: CheckedContinuation<String?, Never>)?

    func push(_ text: String) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: text)
        } else {
            buffer.append(text)
        }
    }

    func close() {
        closed = true
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: nil)
        }
    }

    /// The next frame, or nil when none came within `timeout` or the connection closed.
    func next(timeout: Duration) async -> String? {
        if !buffer.isEmpty { return buffer.removeFirst() }
        if closed { return nil }
        let id = UUID()
        return await withCheckedContinuation { continuation in
            waiter = (id, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    /// Frames that arrived and were never read.
    func leftovers() -> [String] {
        defer { buffer.removeAll() }
        return buffer
    }

    private func expire(_ id: UUID) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}
