import WireCore

/// WebSocket frames as the machines see them (MIG-WS-001): a text frame is one JSON control
/// message, a binary frame one `BackupChunk`. The edge hands frames here; vectors play them with
/// the `text` and `binary` events.
public enum ControlFrame {
    /// Control messages are small: 64 KiB bounds what a peer must buffer before parsing.
    public static let limits = JSONLimits(maxBytes: 64 << 10, maxDepth: 16)

    public static func encode(_ message: ControlMessage) -> String { JSONSerializer.compact(message.json) }

    /// The parsed document, or the JSON rule the text broke.
    public static func parse(_ text: String) -> Result<JSONValue, Violation> {
        do throws(Violation) {
            return .success(try JSONParser.parse(Array(text.utf8), limits: limits))
        } catch {
            return .failure(error)
        }
    }

    /// What a binary frame sent to the sender is: it receives control messages only.
    public static func binaryToSender(length: Int) -> Violation {
        Violation(rule: MigrationRule.frames, path: .root, expected: "control messages in text frames", found: "a binary frame of \(length) bytes")
    }

    /// What a frame the connection refused to read is (over the size limit, malformed): the
    /// edge closed the connection, and the machine ends the session on it as on any break of
    /// MIG-WS-001. `why` is the edge's account, e.g. "a frame over 65536 bytes".
    public static func refused(_ why: String) -> Violation {
        Violation(rule: MigrationRule.frames, path: .root, expected: "frames within MIG-WS-001's limits", found: why)
    }
}
