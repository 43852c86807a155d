import Foundation

/// The files through which QR texts and codes pass between the runner and a peer under test.
enum HandoffFile {
    /// Reads and removes `file` once it has content; nil when none came within `limit`.
    static func take(_ file: URL, within limit: Duration) async throws -> String? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let data = FileManager.default.contents(atPath: file.path), !data.isEmpty, let text = String(validating: data, as: UTF8.self) {
                try? FileManager.default.removeItem(at: file)
                return text
            }
            guard ContinuousClock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(25))
        }
    }
}
