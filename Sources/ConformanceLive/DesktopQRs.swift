import Foundation
import PairingPeer
import Pairing

/// The desktop under test's QR texts, scenario after scenario. A desktop shows a new code once a
/// pairing is done; a code nobody paired with stays live for 300,000 ms (PAIR-DESK-001) and a
/// conforming desktop keeps showing it, writing no new QR. So after a scenario that ended without
/// pairing, the next one takes a new QR if the desktop writes one within `grace`, and otherwise
/// pairs with the code still shown, instead of waiting for a QR that never comes.
final class DesktopQRs: @unchecked Sendable {
    private let lock = NSLock()
    /// The last QR taken, while no pairing has used it.
    private var unused: (text: String, taken: ContinuousClock.Instant)?

    /// How long before its end a code is no longer worth reusing: a scenario needs about this long.
    static let margin: Duration = .seconds(60)

    /// The QR text for the next scenario, and whether it is the previous scenario's unused one.
    func take(from file: URL, grace: Duration, within limit: Duration) async throws -> (text: String, reused: Bool) {
        let previous = lock.withLock { unused }
        if let previous, previous.taken.duration(to: .now) < .milliseconds(PairingTimeouts.validity) - Self.margin {
            if let text = try await HandoffFile.take(file, within: grace) {
                remember(text)
                return (text, false)
            }
            return (previous.text, true)
        }
        guard let text = try await HandoffFile.take(file, within: limit) else {
            throw LiveError("no QR text from the desktop under test in \(file.path) within \(limit)")
        }
        remember(text)
        return (text, false)
    }

    /// The runner's phone paired: the code is used up and the desktop shows a new one.
    func used() { lock.withLock { unused = nil } }

    private func remember(_ text: String) { lock.withLock { unused = (text, .now) } }
}
