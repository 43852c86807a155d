/// Bounds applied before and while a document is parsed (CORE-JSON-004, CORE-JSON-005).
public struct JSONLimits: Sendable, Hashable {
    /// Largest accepted document, in bytes.
    public var maxBytes: Int
    /// Deepest accepted nesting of arrays and objects; the root container is depth 1.
    public var maxDepth: Int

    public init(maxBytes: Int = 1 << 20, maxDepth: Int = 64) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    /// The limits every family uses unless its chapter says otherwise.
    public static let standard = JSONLimits()
}
