import NIOCore
import NIOWebSocket

/// Answers a WebSocket protocol error (a frame over the size limit, a malformed control frame)
/// with a close frame carrying its code (1009, 1002), then closes the connection.
///
/// NIO's own `WebSocketProtocolErrorHandler` closes first and passes the error on afterwards, so
/// the reader saw a clean end and never learnt why; this one passes the error on first, and the
/// reader's `for try await` throws it with the code named.
final class ProtocolErrorCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let masksFrames: Bool
    private let maxFrameSize: Int

    init(masksFrames: Bool, maxFrameSize: Int) {
        self.masksFrames = masksFrames
        self.maxFrameSize = maxFrameSize
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? NIOWebSocketError else {
            context.fireErrorCaught(error)
            return
        }
        let code: WebSocketErrorCode
        let why: String
        switch error {
        case .invalidFrameLength:
            (code, why) = (.messageTooLarge, "a frame over \(maxFrameSize) bytes: closed with 1009 (message too big) before it was read")
        case .fragmentedControlFrame, .multiByteControlFrameLength:
            (code, why) = (.protocolError, "a malformed control frame (\(error)): closed with 1002 (protocol error)")
        }
        context.fireErrorCaught(WebSocketError(why))
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: masksFrames ? .random() : nil, data: data)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in bound.value.close(promise: nil) }
    }

    /// The handlers after a successful upgrade: fragments reassembled up to `maxFrameSize`,
    /// protocol errors answered, frames handed to async code.
    static func configure(_ channel: any Channel, maxFrameSize: Int, masksFrames: Bool) throws -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame> {
        try channel.pipeline.syncOperations.addHandler(
            NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16, maxAccumulatedFrameSize: maxFrameSize))
        try channel.pipeline.syncOperations.addHandler(ProtocolErrorCloser(masksFrames: masksFrames, maxFrameSize: maxFrameSize))
        return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
    }
}
