import Foundation
import NIOCore
import WebSocketTransport
import WireCore

/// What a running peer tells its user interface: lines for a log, rule violations by the other
/// side, and progress.
public enum PeerEvent: Sendable {
    case log(String)
    /// The other side broke a rule (the machine's `reject` action).
    case violation(Violation)
    case progress(TransferProgress)
}

public struct TransferProgress: Sendable {
    public var bytes: Int64
    public var total: Int64
    public init(bytes: Int64, total: Int64) {
        self.bytes = bytes
        self.total = total
    }
}

/// A frame as a peer sent or received it on its current connection, for a wire log (the
/// conformance runner's reports keep one per live case).
public enum PeerFrame: Sendable {
    case connected
    case sent(WebSocketMessage)
    /// A chunk as the sender writes it (not copied out unless the hook reads it).
    case sentChunk(ByteBuffer)
    case received(WebSocketMessage)
    case disconnected
}

/// Why a peer stopped without finishing.
public struct TransferFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
