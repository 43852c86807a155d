import NIOCore
import NIOWebSocket

/// Answers a WebSocket protocol error (a frame or a fragmented message over the size limit, a
/// malformed control frame, fragments out of order) with a close frame carrying its code (1009,
/// 1002), then closes the connection.
///
/// NIO's own `WebSocketProtocolErrorHandler` closes first and passes the error on afterwards, so
/// the reader saw a clean end and never learnt why; this one passes the error on first, and the
/// reader's `for try await` throws it as a `WebSocketFrameRefused`.
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
        guard let refusal = refusal(of: error) else {
            context.fireErrorCaught(error)
            return
        }
        context.fireErrorCaught(refusal)
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: Int(refusal.closeCode)))
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: masksFrames ? .random() : nil, data: data)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in bound.value.close(promise: nil) }
    }

    /// The frame-level errors NIO's decoder and aggregator raise, as the close they get.
    private func refusal(of error: any Error) -> WebSocketFrameRefused? {
        switch error {
        case NIOWebSocketError.invalidFrameLength:
            return WebSocketFrameRefused(closeCode: 1009, "a frame over \(maxFrameSize) bytes: closed with 1009 (message too big) before it was read")
        case NIOWebSocketError.fragmentedControlFrame, NIOWebSocketError.multiByteControlFrameLength:
            return WebSocketFrameRefused(closeCode: 1002, "a malformed control frame (\(error)): closed with 1002 (protocol error)")
        case NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            return WebSocketFrameRefused(closeCode: 1009, "a message over \(maxFrameSize) bytes in fragments: closed with 1009 (message too big)")
        case NIOWebSocketFrameAggregator.Error.tooManyFragments:
            return WebSocketFrameRefused(closeCode: 1009, "a message in more than \(Self.maxFragments) fragments: closed with 1009 (message too big)")
        case let error as NIOWebSocketFrameAggregator.Error:
            return WebSocketFrameRefused(closeCode: 1002, "fragments out of order (\(error)): closed with 1002 (protocol error)")
        default:
            return nil
        }
    }

    static let maxFragments = 1 << 16

    /// The handlers after a successful upgrade: fragments reassembled up to `maxFrameSize`,
    /// protocol errors answered, frames handed to async code.
    static func configure(_ channel: any Channel, maxFrameSize: Int, masksFrames: Bool) throws -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame> {
        try channel.pipeline.syncOperations.addHandler(
            NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: maxFragments, maxAccumulatedFrameSize: maxFrameSize))
        try channel.pipeline.syncOperations.addHandler(ProtocolErrorCloser(masksFrames: masksFrames, maxFrameSize: maxFrameSize))
        return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
    }
}
