import ConformanceKit
import Foundation
import WebSocketTransport
import WireCore

/// The watch's session log on disk (Conformance/session-log.md), bounded: a line that would take
/// it past its limit ends it there with an end line, and what comes after is judged but not kept.
final class SessionLogFile {
    private let handle: FileHandle?
    private let limit: Int
    private var written = 0
    /// Where the log was cut at its limit, if it was.
    private(set) var cutAt: EpochMillis?

    /// No file when `url` is nil: every call does nothing.
    init(_ url: URL?, limit: Int) throws {
        self.limit = limit
        handle = try url.map { url in
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw WebSocketError("cannot write the log \(url.path)") }
            return try FileHandle(forWritingTo: url)
        }
    }

    /// A line of the log, unless it would pass the limit: then the log ends there.
    func append(_ line: String, at: EpochMillis) {
        guard let handle, cutAt == nil else { return }
        let end = SessionLog.endLine(at: at) + "\n"
        guard written + line.utf8.count + 1 + end.utf8.count <= limit else {
            handle.write(Data(end.utf8))
            cutAt = at
            return
        }
        handle.write(Data((line + "\n").utf8))
        written += line.utf8.count + 1
    }

    /// The end line, unless the limit already wrote one.
    func end(at: EpochMillis) {
        guard cutAt == nil else { return }
        handle?.write(Data((SessionLog.endLine(at: at) + "\n").utf8))
    }

    func close() { try? handle?.close() }
}
