import Foundation

/// Which implementation a watched connection belongs to, where the kit started the programs
/// itself (issue 38.4): the process that holds the client's socket, not the id it registers
/// (any client can register any id). Linux only (`/proc`); elsewhere nothing is bound and the
/// labels stay claims.
public enum SocketOwner {
    /// The process holding the client end of the loopback connection from `clientPort` to
    /// `serverPort`, then its parent, grandparent and so on up to init; empty when not found.
    /// Read while the connection is open (a closed socket has no holder).
    public static func processes(clientPort: Int, serverPort: Int) -> [Int32] {
        #if os(Linux)
        guard let inode = socketInode(localPort: clientPort, remotePort: serverPort), let holder = holder(of: inode) else { return [] }
        var chain: [Int32] = [holder]
        // A parent cycle cannot happen, but a bound keeps a bad read from looping.
        while chain.count < 64, let parent = parent(of: chain[chain.count - 1]), parent > 1, !chain.contains(parent) {
            chain.append(parent)
        }
        return chain
        #else
        return []
        #endif
    }

    /// The label of the first `PID LABEL` line of `owners` whose PID is in `chain`; a last line
    /// without its line feed is still being written, and not read.
    public static func label(in owners: String, for chain: [Int32]) -> String? {
        for line in owners.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let pid = Int32(parts[0]), chain.contains(pid) else { continue }
            return String(parts[1]).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The label `owners` (lines `PID LABEL`, which the matrix appends as it starts each
    /// program) gives the process chain of this connection, waiting up to `patience` for the
    /// line: a program connects as soon as it starts, maybe before its line is written.
    public static func label(owners: URL, chain: [Int32], patience: Duration = .seconds(5)) async -> String? {
        guard !chain.isEmpty else { return nil }
        let deadline = ContinuousClock.now + patience
        while true {
            if let text = try? String(contentsOf: owners, encoding: .utf8), let label = label(in: text, for: chain) { return label }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    #if os(Linux)
    /// A /proc file read to its end: it says its size is 0, and Foundation's readers stopped
    /// after the first block, so a socket table longer than that lost the socket asked for.
    static func readAll(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += block[..<n]
            // A table of every socket on a busy machine is a few MB at most; past 64 MB, stop.
            if bytes.count > 64 << 20 { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The inode of the TCP socket from `localPort` to `remotePort` (IPv4 or IPv6 table).
    static func socketInode(localPort: Int, remotePort: Int) -> String? {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = readAll(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, port(fields[1]) == localPort, port(fields[2]) == remotePort, fields[9] != "0" else { continue }
                return String(fields[9])
            }
        }
        return nil
    }

    /// The port of an `ADDRESS:PORT` field, the port in hexadecimal.
    static func port(_ field: Substring) -> Int? {
        guard let colon = field.lastIndex(of: ":") else { return nil }
        return Int(field[field.index(after: colon)...], radix: 16)
    }

    /// A process with a descriptor on `socket:[inode]`.
    static func holder(of inode: String) -> Int32? {
        let target = "socket:[\(inode)]"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = Int32(entry), let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(entry)/fd") else { continue }
            for fd in fds where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/fd/\(fd)")) == target {
                return pid
            }
        }
        return nil
    }

    /// The parent process, from `/proc/PID/stat` (the field after the name, which may hold
    /// spaces and parentheses: read after its last `)`).
    static func parent(of pid: Int32) -> Int32? {
        guard let stat = readAll("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }
    #endif
}
