import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP server on loopback that accepts every connection and never sends a byte: the relay or
/// sender that takes the connection and never answers the WebSocket upgrade. Each accepted
/// connection is heard as `accepted N` (from 1) and held open until the server is closed.
package final class SilentServer: @unchecked Sendable {
    package let port: Int
    package let heard = Heard()
    private let fd: Int32

    package init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = fd
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else {
            _ = Glibc.close(fd)
            throw CocoaError(.fileWriteUnknown)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let heard = heard
        Thread {
            var held: [Int32] = []
            // Ends when `close` shuts the listening socket down (accept then fails).
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { break }
                held.append(client)
                heard.add("accepted \(held.count)")
            }
            held.forEach { _ = Glibc.close($0) }
        }.start()
    }

    package func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        _ = Glibc.close(fd)
    }
}
