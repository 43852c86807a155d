import Foundation
import WireCore

/// The PIN handed from the receiver's side to the sender's through a file, for scripts and the
/// conformance runner: the reader takes a PIN once it appears and removes the file, so a retry
/// (or the next session) waits for a new one; a writer of several PINs waits until the previous
/// one was taken.
public enum PINFile {
    /// The next six-character PIN written to `file`, which is then removed.
    public static func read(_ file: URL) async throws -> String {
        while true {
            try Task.checkCancellation()
            if let text = try? String(contentsOf: file, encoding: .utf8) {
                let pin = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if SixDigitCode.isValid(pin) {
                    try? FileManager.default.removeItem(at: file)
                    return pin
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Writes `pins` one after another, each once the previous one was taken.
    public static func write(_ pins: [String], to file: URL) async {
        for pin in pins {
            while FileManager.default.fileExists(atPath: file.path) { try? await Task.sleep(for: .milliseconds(50)) }
            try? Data((pin + "\n").utf8).write(to: file, options: .atomic)
        }
    }

    /// A PIN that is not `pin`: one more, modulo a million (what a mistyping user sends).
    public static func wrong(_ pin: String) -> String {
        let n = ((Int(pin) ?? 0) + 1) % 1_000_000
        let text = String(n)
        return String(repeating: "0", count: 6 - text.count) + text
    }
}
