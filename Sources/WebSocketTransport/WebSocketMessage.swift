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
