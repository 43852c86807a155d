/// Where a pure target gets random bytes. The edge passes a CSPRNG; vectors pass the
/// exact bytes so that every implementation derives the same values from them.
public protocol RandomByteSource {
    /// The next `count` bytes, or nil when the source is exhausted.
    mutating func next(_ count: Int) -> [UInt8]?
}

/// Replays a fixed byte string (vectors, tests).
public struct ScriptedBytes: RandomByteSource, Sendable {
    public private(set) var remaining: [UInt8]
    public init(_ bytes: [UInt8]) { remaining = bytes }
    public mutating func next(_ count: Int) -> [UInt8]? {
        guard remaining.count >= count else { return nil }
        defer { remaining.removeFirst(count) }
        return Array(remaining.prefix(count))
    }
}

/// Any `RandomNumberGenerator` (e.g. `SystemRandomNumberGenerator`, a CSPRNG) as a byte source.
public struct GeneratorBytes<G: RandomNumberGenerator>: RandomByteSource {
    public var generator: G
    public init(_ generator: G) { self.generator = generator }
    public mutating func next(_ count: Int) -> [UInt8]? {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
