import NIOConcurrencyHelpers
import NIOCore
import WireCore

/// The server answered the upgrade request with something other than 101: it is there, and
/// it said no. Its status line is kept (escaped) because it is the only cause a user sees.
public struct WebSocketUpgradeRefused: Error, CustomStringConvertible, Sendable {
    public var url: String
    /// The server's first line, e.g. `HTTP/1.1 400 Bad Request`, escaped to one printable line.
    public var statusLine: String

    /// The HTTP status code, when the line has one.
    public var status: Int? {
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    /// Whether asking again can change the answer: a 5xx (a server busy or starting), 408 and
    /// 429 can; any other answer (400, 403, 404, ...) is the same the next time.
    public var isPermanent: Bool {
        guard let status else { return false }
        return !(status >= 500 || status == 408 || status == 429)
    }

    public var description: String {
        "\(url) refused the WebSocket upgrade" + (statusLine.isEmpty ? "" : ": it answered \(statusLine)")
    }
}

/// Keeps the first line the server sends (its status line), before the HTTP decoder reads it,
/// then leaves the pipeline.
final class StatusLineRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let line: NIOLockedValueBox<String?>

    init(_ line: NIOLockedValueBox<String?>) { self.line = line }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let head = buffer.readableBytesView.prefix(200).prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        // Peer text reaching a terminal (Spec security.md).
        line.withLockedValue { $0 = TerminalText.escaped(String(decoding: head, as: UTF8.self)) }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }
}
