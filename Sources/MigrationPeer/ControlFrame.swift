import Migration
import WireCore

/// Control messages on the wire: one JSON document per text frame (Spec migration.md §5.1).
enum ControlFrame {
    static let limits = JSONLimits(maxBytes: 64 << 10, maxDepth: 16)

    static func encode(_ message: ControlMessage) -> String { JSONSerializer.compact(message.json) }

    /// The parsed document, or the violation that a non-JSON text is.
    static func parse(_ text: String) -> Result<JSONValue, Violation> {
        do throws(Violation) {
            return .success(try JSONParser.parse(Array(text.utf8), limits: limits))
        } catch {
            return .failure(error)
        }
    }
}
