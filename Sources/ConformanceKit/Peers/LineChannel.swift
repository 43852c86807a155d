import Foundation

/// Reads newline-terminated lines from a file handle on a background thread, so the runner
/// can wait for one with a timeout (a hung testee must not hang the run).
final class LineChannel: @unchecked Sendable {
    private let condition = NSCondition()
    private var buffer: [UInt8] = []
    private var closed = false
    /// A line longer than this is a garbled answer, not a reason to grow without bound.
    let maxLineBytes: Int

    enum ReadResult {
        case line([UInt8])
        case endOfFile
        case timedOut
        case tooLong
    }

    init(handle: FileHandle, maxLineBytes: Int = 64 << 20) {
        self.maxLineBytes = maxLineBytes
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                condition.lock()
                if chunk.isEmpty {
                    closed = true
                } else {
                    buffer.append(contentsOf: chunk)
                }
                condition.broadcast()
                condition.unlock()
                if chunk.isEmpty { return }
            }
        }
        thread.start()
    }

    /// The next line; waits at most `timeout` seconds, or forever when it is nil.
    func readLine(timeout: TimeInterval?) -> ReadResult {
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            if buffer.count > maxLineBytes { return .tooLong }
            if closed { return .endOfFile }
            if let deadline {
                if !condition.wait(until: deadline) { return .timedOut }
            } else {
                condition.wait()
            }
        }
    }
}
