import Pairing
import WireCore

/// When to play each event of a relay case that depends on the relay's clock (alias lifetime,
/// guess window), in real milliseconds from the case's start. Exact boundaries (a message at
/// 300,000 ms is in time, at 300,001 ms too late) cannot be hit over a network, so the schedule
/// keeps, for every pair of events, the side of the window they are on, with a margin:
/// events a window apart are played at least `window + margin` apart, events within a window at
/// most `window − margin` apart, and otherwise as close to the vector's own times (scaled to the
/// relay's window) as those bounds allow. Events are placed greedily, earliest first; a case this
/// cannot place is skipped with that reason (none of the vectors' cases is such a case).
struct RelaySchedule: Sendable, Equatable {
    /// Real offsets, one per event, in milliseconds.
    var offsets: [Int64]
    var margin: Int64

    var duration: Int64 { offsets.last ?? 0 }

    /// - Parameters:
    ///   - times: the events' `at` in vector milliseconds, in order.
    ///   - vectorWindow: the window the vectors assume (PAIR-SEC-002, PAIR-SEC-004).
    ///   - liveWindow: the relay's window in real milliseconds.
    /// - Returns: nil when no schedule keeps every pair on its side with the margin.
    static func make(times: [EpochMillis], vectorWindow: EpochMillis, liveWindow: Int64) -> RelaySchedule? {
        guard let first = times.first else { return RelaySchedule(offsets: [], margin: 0) }
        // The margin is what a loaded machine or a network may delay one frame more than another:
        // a 25th of the window (240 ms at 6 s, 12 s at the Spec's 5 minutes). At a 75th (53 ms at
        // 4 s) a relay that registered an alias late still delivered a message the runner sent
        // after its expiry (a fresh-clone CI run, the four live suites side by side). Events at
        // different vector times are at least a step apart, and the sliding guess window needs
        // two margins between neighbours: the step is a tenth of the window.
        let step = max(liveWindow / 10, 1)
        let margin = max(step * 2 / 5, 1)
        var offsets: [Int64] = []
        for (j, t) in times.enumerated() {
            guard j > 0 else {
                offsets.append(0)
                continue
            }
            let target = Int64((Double(t - first) * Double(liveWindow) / Double(vectorWindow)).rounded())
            var low = offsets[j - 1] + (t > times[j - 1] ? step : 0)
            var high = Int64.max
            for i in 0..<j {
                if t - times[i] > vectorWindow {
                    low = max(low, offsets[i] + liveWindow + margin)
                } else if t > times[i] {
                    high = min(high, offsets[i] + liveWindow - margin)
                }
            }
            guard low <= high else { return nil }
            offsets.append(min(max(target, low), high))
        }
        return RelaySchedule(offsets: offsets, margin: margin)
    }
}
