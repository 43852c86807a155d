import Foundation
import NIOCore
import NIOWebSocket

/// An upgraded WebSocket connection. Use it inside `run`: the connection closes when the body
/// returns or throws.
public struct WebSocketConnection: Sendable {
    let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
    /// RFC 6455 §5.3: a client masks every frame it sends, a server never does.
    let masksFrames: Bool

    /// The peer's address, for logs.
    public var remoteAddress: String { channel.channel.remoteAddress?.description ?? "?" }

    /// The peer's port, when it has one (with the local port, what names the socket to the system).
    public var remotePort: Int? { channel.channel.remoteAddress?.port }

    /// The peer's IP address alone (a relay's unit of rate limiting), when it has one.
    public var remoteIP: String? { channel.channel.remoteAddress?.ipAddress }

    /// `onPing` hears of every ping frame the peer sends, and says whether the transport answers
    /// it with a pong (without it, every one is answered): a keepalive counts for the pairing
    /// rules though it never reaches `inbound`, and a relay gone silent on purpose answers none.
    public func run<Result: Sendable>(
        onPing: (@Sendable () -> Bool)? = nil, _ body: (_ inbound: WebSocketInbound, _ outbound: WebSocketWriter) async throws -> Result
    ) async throws -> Result {
        try await channel.executeThenClose { inbound, outbound in
            let writer = WebSocketWriter(outbound: outbound, channel: channel.channel, masksFrames: masksFrames)
            return try await body(WebSocketInbound(frames: inbound, writer: writer, onPing: onPing), writer)
        }
    }
}

/// Sends data messages and closes. Safe to share between tasks.
public struct WebSocketWriter: Sendable {
    let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    let channel: any Channel
    let masksFrames: Bool

    public func send(_ message: WebSocketMessage) async throws {
        switch message {
        case .text(let text): try await send(opcode: .text, ByteBuffer(string: text))
        case .binary(let bytes): try await send(opcode: .binary, ByteBuffer(bytes: bytes))
        }
    }

    /// With `stallLimit`, a frame that waits that long for room (the peer stopped reading) drops
    /// the connection: the reader then ends with the reason, and the caller's loop is not held.
    public func send(text: String, stallLimit: TimeAmount? = nil) async throws {
        try await send(opcode: .text, ByteBuffer(string: text), stallLimit: stallLimit)
    }

    /// `stallLimit` as for `send(text:stallLimit:)`.
    public func send(binary: ByteBuffer, stallLimit: TimeAmount? = nil) async throws {
        try await send(opcode: .binary, binary, stallLimit: stallLimit)
    }

    /// Several binary frames written and flushed together, so they leave back to back (a
    /// duplicate a fault sends must not wait for the peer's answer to the first copy).
    /// `stallLimit` as for `send(text:stallLimit:)`.
    public func send(binaries: [ByteBuffer], stallLimit: TimeAmount? = nil) async throws {
        let frames = binaries.map { WebSocketFrame(fin: true, opcode: .binary, maskKey: masksFrames ? .random() : nil, data: $0) }
        try await guarded(stallLimit) { try await outbound.write(contentsOf: frames) }
    }

    func send(opcode: WebSocketOpcode, _ data: ByteBuffer, stallLimit: TimeAmount? = nil) async throws {
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: masksFrames ? .random() : nil, data: data)
        try await guarded(stallLimit) { try await outbound.write(frame) }
    }

    /// Runs `write`, dropping the connection when it waits longer than `stallLimit`.
    private func guarded(_ stallLimit: TimeAmount?, _ write: () async throws -> Void) async throws {
        // Armed for every frame: the writer's backpressure lags `isWritable`, so a frame let
        // through as writable could still wait. A scheduled task on the loop is cheap.
        guard let stallLimit else { return try await write() }
        let channel = self.channel
        let stalled = channel.eventLoop.scheduleTask(in: stallLimit) {
            channel.pipeline.fireErrorCaught(
                WebSocketError("the peer read nothing for \(stallLimit.nanoseconds / 1_000_000) ms while a frame waited to be sent: connection dropped"))
            channel.close(promise: nil)
        }
        defer { stalled.cancel() }
        try await write()
    }

    /// The closing handshake (RFC 6455 §7): a close frame, then nothing more is sent.
    public func close(code: WebSocketErrorCode = .normalClosure) async {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        try? await send(opcode: .connectionClose, data)
        outbound.finish()
    }

    /// Drops the TCP connection without a closing handshake (what a lost network looks like).
    public func abort() {
        channel.close(promise: nil)
    }

    /// A ping frame (RFC 6455 §5.5.2): the keepalive iOS's `sendPing` sends.
    public func ping() async throws {
        try await send(opcode: .ping, ByteBuffer())
    }
}

/// The data messages a peer sends. Pings are answered, a close frame is answered and ends the
/// sequence; a protocol error (an oversized or malformed frame) is thrown.
public struct WebSocketInbound: AsyncSequence, Sendable {
    public typealias Element = WebSocketMessage
    let frames: NIOAsyncChannelInboundStream<WebSocketFrame>
    let writer: WebSocketWriter
    let onPing: (@Sendable () -> Bool)?

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(frames: frames.makeAsyncIterator(), writer: writer, onPing: onPing) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var frames: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
        let writer: WebSocketWriter
        let onPing: (@Sendable () -> Bool)?
        /// The peer's close frame, once `next()` returned nil because of it: its status code
        /// (nil when the frame carried none) and reason. Nil when the connection just ended.
        public private(set) var closeFrame: WebSocketClose?

        public mutating func next() async throws -> WebSocketMessage? {
            while let frame = try await frames.next() {
                switch frame.opcode {
                case .text:
                    // Validated, not repaired (NIO's readString would), and kept whole: Foundation's
                    // decoder also drops a leading byte order mark, which CORE-JSON-001 refuses.
                    guard let text = String(validating: frame.unmaskedData.readableBytesView, as: UTF8.self) else {
                        await writer.close(code: .dataInconsistentWithMessage)
                        throw WebSocketError("a text frame that is not UTF-8")
                    }
                    return .text(text)
                case .binary:
                    var data = frame.unmaskedData
                    return .binary(data.readBytes(length: data.readableBytes) ?? [])
                case .ping:
                    if onPing?() ?? true { try? await writer.send(opcode: .pong, frame.unmaskedData) }
                case .connectionClose:
                    var data = frame.unmaskedData
                    let code = data.readInteger(as: UInt16.self)
                    let reason = data.readString(length: data.readableBytes) ?? ""
                    closeFrame = WebSocketClose(code: code, reason: reason)
                    await writer.close()
                    return nil
                default:
                    continue
                }
            }
            return nil
        }
    }
}

/// A close frame as the peer sent it (RFC 6455 §5.5.1).
public struct WebSocketClose: Sendable, Hashable, CustomStringConvertible {
    public var code: UInt16?
    public var reason: String

    public var description: String {
        guard let code else { return "a close frame without a status code" }
        return "close code \(code)" + (reason.isEmpty ? "" : " (\(reason))")
    }
}
