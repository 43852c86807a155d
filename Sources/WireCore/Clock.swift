/// Milliseconds since the Unix epoch, the one time unit pure targets exchange.
public typealias EpochMillis = Int64

/// Where a pure target gets "now". Production passes the system clock from the edge;
/// tests and vectors pass a fixed or stepping one.
public protocol Clock: Sendable {
    func now() -> EpochMillis
}

/// A clock that always answers the same instant.
public struct FixedClock: Clock {
    public let instant: EpochMillis
    public init(_ instant: EpochMillis) { self.instant = instant }
    public func now() -> EpochMillis { instant }
}
