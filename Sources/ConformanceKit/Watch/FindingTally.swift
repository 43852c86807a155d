import WireCore

/// A watch's violations, each counted once per connection, rule, path and cause (its
/// `expected`), the relay's once for the relay: a repeat adds to the first one's count and moves
/// its last frame. A sender over its window broke MIG-XFER-001 once, not once per chunk (257
/// lines for one fault). At most `ViolationList.maxListed` distinct ones are kept; the rest are
/// counted.
struct FindingTally: Sendable {
    struct Key: Hashable {
        var connection: Int?
        var rule: String
        var path: String
        var expected: String
    }

    private var list = CappedList<WatchFinding>(limit: ViolationList.maxListed)
    private var index: [Key: Int] = [:]

    var kept: [WatchFinding] { list.kept }
    var omitted: Int { list.omitted }

    /// `f`'s side is `relay` for the relay's findings (one relay), any other for a connection's.
    mutating func add(_ f: WatchFinding) {
        let key = Key(connection: f.side == "relay" ? nil : f.connection, rule: f.violation.rule.rawValue, path: f.violation.path.description, expected: f.violation.expected)
        if let i = index[key] {
            list.update(at: i) { kept in
                kept.count += 1
                if f.at >= (kept.last?.at ?? kept.at) { kept.last = WatchFinding.Last(at: f.at, frame: f.frame) }
            }
            return
        }
        if !list.isFull { index[key] = list.kept.count }
        list.append(f)
    }
}
