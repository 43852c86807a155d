import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file descriptor on a thread of its own and hands each chunk to `deliver` (nil at end
/// of file). The thread polls, so `stop()` ends it within about 200 ms even when a process that
/// escaped the testee's group still holds the pipe open.
public final class PipeReader: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false

    /// `deliver` returns false to stop reading.
    public init(fd: Int32, ownsDescriptor: Bool, deliver: @escaping @Sendable ([UInt8]?) -> Bool) {
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while !lock.withLock({ stopped }) {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&p, 1, 200)
                if ready == 0 || (ready < 0 && errno == EINTR) { continue }
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 || !deliver(Array(chunk[..<n])) { break }
            }
            _ = deliver(nil)
            if ownsDescriptor { close(fd) }
        }
        thread.start()
    }

    public func stop() { lock.withLock { stopped = true } }
}

/// Reads newline-terminated lines from a file descriptor, so the runner can wait for one with
/// a timeout (a hung testee must not hang the run).
public final class LineChannel: @unchecked Sendable {
    private let condition = NSCondition()
    /// Bytes read; those before `head` were handed out as lines already.
    private var buffer: [UInt8] = []
    private var head = 0
    /// Bytes from `head` on already searched for a newline: a long line is scanned once, not
    /// again with every chunk (a 12 MiB line took 24 s when each chunk rescanned the buffer).
    private var scanned = 0
    private var closed = false
    private var reader: PipeReader?
    /// A line longer than this is a garbled answer, not a reason to grow without bound.
    public let maxLineBytes: Int

    public enum ReadResult: Equatable {
        case line([UInt8])
        case endOfFile
        case timedOut
        case tooLong
    }

    /// Reads `fd` until end of file or `stop()`, then closes it when `ownsDescriptor`.
    public init(fd: Int32, ownsDescriptor: Bool = true, maxLineBytes: Int = 64 << 20) {
        self.maxLineBytes = maxLineBytes
        reader = PipeReader(fd: fd, ownsDescriptor: ownsDescriptor) { [self] chunk in
            condition.lock()
            defer {
                condition.broadcast()
                condition.unlock()
            }
            guard let chunk else {
                closed = true
                return false
            }
            buffer.append(contentsOf: chunk)
            return buffer.count - head <= maxLineBytes
        }
    }

    /// The next line; waits at most `timeout` seconds, or forever when it is nil.
    public func readLine(timeout: TimeInterval?) -> ReadResult {
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let newline = buffer[(head + scanned)...].firstIndex(of: 0x0A) {
                let line = Array(buffer[head..<newline])
                head = newline + 1
                scanned = 0
                // Lines taken are dropped in bulk: removing each from the front was quadratic
                // for a testee that writes many short lines.
                if head >= 1 << 20 && head * 2 >= buffer.count {
                    buffer.removeFirst(head)
                    head = 0
                }
                return .line(line)
            }
            scanned = buffer.count - head
            if scanned > maxLineBytes { return .tooLong }
            if closed { return .endOfFile }
            if let deadline {
                if !condition.wait(until: deadline) { return .timedOut }
            } else {
                condition.wait()
            }
        }
    }

    /// What arrived after the last full line (for reports), without waiting.
    public var pending: [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        return Array(buffer[head...])
    }

    /// Ends the reading thread within about 200 ms.
    public func stop() { reader?.stop() }
}
