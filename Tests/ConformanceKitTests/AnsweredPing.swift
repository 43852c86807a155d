import ConformanceKit
import WireCore

/// A client's ping frame and the pong the watch's transport answers it with at once, as a
/// watch's log holds them (Conformance/session-log.md): a relay answers every keepalive
/// (PAIR-RELAY-002), and a client whose keepalives go unanswered must drop the connection
/// (PAIR-CONN-003).
func answeredPing(at: EpochMillis, on connection: Int) -> [(EpochMillis, Int, WireEvent.Body)] {
    [(at, connection, .ping(from: .client)), (at, connection, .pong(from: .server))]
}
