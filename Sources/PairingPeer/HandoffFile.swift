import Foundation

/// The files through which QR texts and codes pass between the runner and a peer under test
/// (`--handoff-file`/`--handoff-out`, `--qr-file`, `--scan-file`/`--scan-out`): both ends poll,
/// since the other side may be any program.
public enum HandoffFile {
    /// Reads and removes `file` once it has content; nil when none came within `limit` (no
    /// limit: waits until it comes or the task is cancelled).
    public static func take(_ file: URL, within limit: Duration?) async throws -> String? {
        let deadline = limit.map { ContinuousClock.now + $0 }
        while true {
            if let data = FileManager.default.contents(atPath: file.path), !data.isEmpty, let text = String(validating: data, as: UTF8.self) {
                try? FileManager.default.removeItem(at: file)
                return text
            }
            if let deadline, ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(25))
        }
    }
}
