import ConformanceKit
import Foundation
import Migration
import MigrationPeer
import WireCore

/// MIG-XFER-003 as the runner's sender sees it when it dropped the connection itself: the
/// receiver under test kept its journal (nothing restarted it), so the connection that comes
/// back must resume. One that greets and sends no `ResumeTransfer` before it closes began a new
/// session where a resume was due; its Handshake is the frame that shows it.
final class ResumeWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var connections = 0
    private var greeting: String?
    private var resumed = false
    private var found: String?
    private var onFound: (@Sendable () -> Void)?

    /// Calls `action` once a connection came back without resuming.
    func whenFound(_ action: @escaping @Sendable () -> Void) { lock.withLock { onFound = action } }

    /// The Handshake of the first connection that came back and did not resume.
    var newSession: String? { lock.withLock { found } }

    func observe(_ frame: PeerFrame) {
        let action: (@Sendable () -> Void)? = lock.withLock {
            switch frame {
            case .connected:
                connections += 1
                (greeting, resumed) = (nil, false)
            case .received(.text(let text)) where connections > 1:
                guard let value = try? JSONParser.parse(Array(text.utf8)), let message = try? ControlMessage.decode(value) else { return nil }
                switch message {
                case .handshake: greeting = greeting ?? text
                case .resumeTransfer: resumed = true
                default: break
                }
            case .disconnected:
                if connections > 1, !resumed, let greeting, found == nil {
                    found = greeting
                    return onFound
                }
            case .received, .sent, .sentChunk:
                break
            }
            return nil
        }
        action?()
    }

    /// The violation, when a connection came back without resuming.
    func violation() -> Violation? {
        newSession.map { handshake in
            Violation(
                rule: MigrationRule.resume, path: .root,
                expected: "a ResumeTransfer after the Handshake on the connection that came back (the runner dropped the last one; the receiver holds acknowledged chunks)",
                found: "a Handshake and no ResumeTransfer: a new session (\(FrameJudge.quote(handshake, limit: 160)))", subject: "the receiver under test")
        }
    }
}
