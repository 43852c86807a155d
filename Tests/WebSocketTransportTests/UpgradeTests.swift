import Crypto
import Foundation
import Testing
import WebSocketTransport

#if canImport(Glibc)
import Glibc
#endif

/// The client's side of the opening handshake (RFC 6455 §4).
@Suite("WebSocket client upgrade")
struct UpgradeTests {
    /// A server may send its first frame at once: in the same TCP segment as the 101 response it
    /// arrives in the same read, and must reach the reader (NIO's default dropped it). A raw
    /// socket server writes both in one call, so the case happens every time.
    @Test(.timeLimit(.minutes(1))) func aFrameInTheSameReadAsThe101Arrives() async throws {
        let server = try RawServer()
        let serving = Thread { server.serveOnce(firstFrame: [0x81, 5] + Array("hello".utf8)) }
        serving.start()
        let connection = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/", maxFrameSize: 1 << 16)
        let first: WebSocketMessage? = try await connection.run { inbound, writer in
            var iterator = inbound.makeAsyncIterator()
            let message = try await iterator.next()
            await writer.close()
            return message
        }
        #expect(first == .text("hello"))
    }
}

/// One-connection HTTP/1.1 server on a plain socket: answers the upgrade and the first frame
/// with a single write.
final class RawServer: @unchecked Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw CocoaError(.fileWriteUnknown) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    func serveOnce(firstFrame: [UInt8]) {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
            let n = read(client, &buffer, buffer.count)
            guard n > 0 else { return }
            request += buffer[0..<n]
        }
        let key = String(decoding: request, as: UTF8.self).split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        let accept = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
        let bytes = Array(response.utf8) + firstFrame
        _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        // Until the client closes.
        while read(client, &buffer, buffer.count) > 0 {}
    }
}
