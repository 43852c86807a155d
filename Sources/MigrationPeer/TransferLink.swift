import Foundation
import Migration
import NIOCore
import WebSocketTransport
import WireCore

/// The one connection a migration peer talks on: which connection is current, what its events
/// mean, and how a control message goes out (each logged through `hooks.frame`).
struct TransferLink {
    /// A second connection while one is current: the sender turns it away (one receiver at a
    /// time, Spec migration.md §5.4); the receiver's own new connection replaces the old.
    let oneAtATime: Bool
    let log: @Sendable (PeerFrame) -> Void
    /// A send waiting longer than this is the other side gone (MIG-XFER-005): the loop is not held.
    let stallLimit: TimeAmount
    private(set) var current: (writer: WebSocketWriter, id: UUID)?

    init(oneAtATime: Bool, stallLimit: TimeAmount, log: @escaping @Sendable (PeerFrame) -> Void) {
        self.oneAtATime = oneAtATime
        self.stallLimit = stallLimit
        self.log = log
    }

    /// What reached the current connection.
    enum Arrival {
        case opened
        /// A text frame, parsed as a control message or refused with its violation.
        case control(Result<JSONValue, Violation>)
        case binary([UInt8])
        /// The connection refused a frame (MIG-WS-001); `closed` follows.
        case refused(Violation)
        case closed(String?)
    }

    /// `event` as the current connection's arrival; nil when it is another connection's.
    mutating func arrival(_ event: ConnectionEvent) async -> Arrival? {
        switch event {
        case .connected(let writer, let id):
            if oneAtATime, current != nil {
                await writer.close(code: .policyViolation)
                return nil
            }
            current = (writer, id)
            log(.connected)
            return .opened
        case .received(let message, let id):
            guard current?.id == id else { return nil }
            log(.received(message))
            switch message {
            case .text(let text): return .control(ControlFrame.parse(text))
            case .binary(let bytes): return .binary(bytes)
            }
        case .frameRefused(let id, let refused):
            guard current?.id == id else { return nil }
            return .refused(ControlFrame.refused(refused.description))
        case .disconnected(let id, let error):
            guard current?.id == id else { return nil }
            current = nil
            log(.disconnected)
            return .closed(error)
        }
    }

    func send(_ message: ControlMessage) async {
        let text = ControlFrame.encode(message)
        log(.sent(.text(text)))
        try? await current?.writer.send(text: text, stallLimit: stallLimit)
    }

    func close() async { await current?.writer.close() }

    func abort() { current?.writer.abort() }
}
