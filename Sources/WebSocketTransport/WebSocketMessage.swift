/// One WebSocket data message. The protocols here put JSON in text frames and their binary
/// formats (a `BackupChunk`) in binary frames; control frames never reach the caller.
public enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case binary([UInt8])
}

/// Why a connection could not be made or went wrong, for people and logs.
public struct WebSocketError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The peer sent a frame this side refuses to read (too large, malformed, fragments out of
/// order): the connection was closed with `closeCode`. The peer broke the framing rule of its
/// protocol (MIG-WS-001, PAIR-RELAY-001), which the reader names.
public struct WebSocketFrameRefused: Error, CustomStringConvertible, Sendable {
    public var closeCode: UInt16
    public var description: String
    public init(closeCode: UInt16, _ description: String) {
        self.closeCode = closeCode
        self.description = description
    }
}
