import Foundation

/// What a connection's pump tells its peer's loop, each tagged with the connection it came from
/// (a frame from a connection already replaced is not the current one's).
public enum ConnectionEvent: Sendable {
    case connected(WebSocketWriter, UUID)
    case received(WebSocketMessage, UUID)
    /// The connection refused a frame (MIG-WS-001) and closed; `disconnected` follows.
    case frameRefused(UUID, WebSocketFrameRefused)
    /// The connection ended, with the error that ended it if any.
    case disconnected(UUID, String?)
}

extension WebSocketConnection {
    /// Reads the connection to its end, posting each event: one `connected` first, one
    /// `disconnected` last.
    public func pump(_ post: @escaping @Sendable (ConnectionEvent) -> Void) async {
        try? await run { inbound, writer in
            let id = UUID()
            post(.connected(writer, id))
            do {
                for try await message in inbound { post(.received(message, id)) }
                post(.disconnected(id, nil))
            } catch let refused as WebSocketFrameRefused {
                post(.frameRefused(id, refused))
                post(.disconnected(id, "\(refused)"))
            } catch {
                post(.disconnected(id, "\(error)"))
            }
        }
    }
}
