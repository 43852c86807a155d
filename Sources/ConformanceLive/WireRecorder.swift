import ConformanceKit
import Foundation
import MigrationPeer
import NIOCore
import WebSocketTransport

/// Collects a live case's wire log as its frames pass (from the runner's relay, or the runner's
/// own clients), for the reports: `begin` when a case starts, `take` when it ends. Frames
/// between cases are not kept; within one, `WireLog` keeps the first `WireLog.cap`.
final class WireRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var log: WireLog?
    /// The runner's migration peer's connections so far (a resume opens another).
    private var connections = 0

    func begin() {
        lock.withLock {
            log = WireLog()
            connections = 0
        }
    }

    /// A frame of the runner's own migration peer, which plays `runner` (the client when it
    /// connects to a sender under test, the server when a receiver under test connects to it).
    /// Binary frames keep their length, header and digest, not their bytes.
    func record(_ frame: PeerFrame, runner: WireEvent.Side) {
        let other: WireEvent.Side = runner == .client ? .server : .client
        let now = SystemClock().now()
        lock.withLock {
            let body: WireEvent.Body
            switch frame {
            case .connected:
                connections += 1
                body = .open(peer: other == .client ? "the receiver under test" : "the sender under test", path: "/")
            case .disconnected: body = .close(by: nil, code: nil)
            case .sent(.text(let text)): body = .text(from: runner, text)
            case .sent(.binary(let bytes)): body = .binary(from: runner, .init(bytes, cap: 0))
            case .sentChunk(let buffer): body = .binary(from: runner, .init(Array(buffer.readableBytesView), cap: 0))
            case .received(.text(let text)): body = .text(from: other, text)
            case .received(.binary(let bytes)): body = .binary(from: other, .init(bytes, cap: 0))
            }
            log?.append(WireEvent(at: now, connection: max(1, connections), body))
        }
    }

    func record(_ event: WireEvent) { lock.withLock { log?.append(event) } }

    func take() -> WireLog? {
        lock.withLock {
            defer { log = nil }
            return log
        }
    }
}
