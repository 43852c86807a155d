import Foundation
import WireCore

/// The wall clock, read at the edge and handed to the pure machines as events' `at`: the one
/// place the peers, the runner and the watch read "now" (the pure targets never do).
public struct SystemClock: Clock {
    public init() {}
    public func now() -> EpochMillis { EpochMillis((Date().timeIntervalSince1970 * 1000).rounded()) }
}
