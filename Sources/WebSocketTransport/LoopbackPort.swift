import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP port on 127.0.0.1 that nothing listens on now: for a peer that must be told its port
/// on its command line before it starts (the matrix's cells, live tests). Another process may
/// take it in between; callers start the peer at once. It is drawn below the system's
/// ephemeral range (Linux's starts at 32768, macOS's at 49152), so a listener that asks for port
/// 0, or a connection's own end, is never given it meanwhile (two tests once met on one port:
/// a watch on port 0 took the port a runner was about to listen on), and never twice in one
/// process.
public enum LoopbackPort {
    static let range = 20_000..<32_768
    private static let handedOut = NIOLockedValueBox<Set<Int>>([])

    public static func free() throws -> Int {
        for _ in 0..<64 {
            let port = Int.random(in: range)
            guard handedOut.withLockedValue({ $0.insert(port).inserted }) else { continue }
            if (try? claim(port)) != nil { return port }
        }
        // Crowded: whatever the system gives.
        return try claim(0)
    }

    /// A free port from `allowed` (a CI runner's share), never one handed out before in this
    /// process; an error naming the range when none is left.
    public static func free(in allowed: ClosedRange<Int>) throws -> Int {
        for port in allowed.shuffled() {
            guard handedOut.withLockedValue({ $0.insert(port).inserted }) else { continue }
            if (try? claim(port)) != nil { return port }
        }
        throw WebSocketError("no free port left in \(allowed.lowerBound)-\(allowed.upperBound) (--ports)")
    }

    /// Binds `port` (0: any) on 127.0.0.1 and lets it go; the port bound.
    static func claim(_ port: Int) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw WebSocketError("cannot open a socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw WebSocketError("cannot find a free port on 127.0.0.1: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
