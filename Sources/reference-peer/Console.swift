import Foundation
import MigrationPeer
import Reference
import WireCore

/// What a peer shows its user on the terminal: log lines and violations on stderr, and a
/// progress bar (bytes, rate, ETA) when stderr is a terminal.
final class Console: @unchecked Sendable {
    let name: String
    private let lock = NSLock()
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var started: Date?
    /// The progress line last drawn, redrawn below each log line so the two never mix.
    private var bar: String?
    private var lastDraw = Date.distantPast

    init(_ name: String) { self.name = name }

    func report(_ event: PeerEvent) {
        lock.lock()
        defer { lock.unlock() }
        switch event {
        // A log line and a violation quote the other peer's frames: escaped, they stay one line
        // and steer nothing.
        case .log(let line): write("\(name): \(line.terminalSafe)\n")
        case .violation(let v): write("\(name): violation \(v.terminalSafe)\n  see \(v.section.terminalSafe)\n")
        case .progress(let p): draw(p)
        }
    }

    func say(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        write(line + "\n")
    }

    private func write(_ text: String) {
        // Erase the bar's line, write the log line there, and draw the bar again under it.
        FileHandle.standardError.write(Data(((bar == nil ? "" : "\r\u{1B}[2K") + text + (bar ?? "")).utf8))
    }

    private func draw(_ p: TransferProgress) {
        let now = Date()
        if started == nil { started = now }
        guard isTerminal, p.bytes == p.total || now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(started ?? now), 0.001)
        let rate = Double(p.bytes) / elapsed
        let fraction = p.total > 0 ? Double(p.bytes) / Double(p.total) : 1
        let filled = Int(fraction * 30)
        let eta = rate > 0 ? Double(p.total - p.bytes) / rate : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
        let line = "\r[\(bar)] \(Self.bytes(p.bytes)) / \(Self.bytes(p.total))  \(Self.bytes(Int64(rate)))/s  ETA \(Int(eta.rounded())) s "
        FileHandle.standardError.write(Data(line.utf8))
        self.bar = p.bytes == p.total ? nil : line
        if p.bytes == p.total { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// A line from the terminal, read off the cooperative thread pool.
    static func readLine(prompt: String) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                FileHandle.standardError.write(Data(prompt.utf8))
                continuation.resume(returning: Swift.readLine())
            }
        }
    }
}
