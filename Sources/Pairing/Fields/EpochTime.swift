import WireCore

/// Time members: epoch milliseconds (PAIR-TIME-001) and epoch seconds (PAIR-ICE-002).
public enum EpochTime {
    /// [10^12, 10^13): 2001-09-09 to 2286-11-20 in milliseconds.
    public static let millisRange: Range<Int64> = 1_000_000_000_000..<10_000_000_000_000
    /// [10^9, 10^11): the same era in seconds.
    public static let secondsRange: Range<Int64> = 1_000_000_000..<100_000_000_000

    public static func readMillis(_ reader: ObjectReader, _ key: String) throws(Violation) -> EpochMillis {
        let value = try reader.integer(key)
        guard millisRange.contains(value) else {
            throw Violation(
                rule: PairingRule.epochMillis, path: reader.pointer(key),
                expected: "epoch milliseconds in [10^12, 10^13)", found: "\(value)" + unitHint(value))
        }
        return value
    }

    /// `iceExpiry`: seconds, or 0 for "no ICE credentials, no expiry" (PAIR-ICE-002); required in
    /// the stored record, optional in the QR payload.
    public static func readSeconds(_ reader: ObjectReader, _ key: String, required: Bool) throws(Violation) -> Int64? {
        let value: Int64
        if required {
            value = try reader.integer(key)
        } else {
            guard let v = try reader.optionalInteger(key) else { return nil }
            value = v
        }
        guard secondsRange.contains(value) || value == 0 else {
            throw Violation(
                rule: PairingRule.iceExpiry, path: reader.pointer(key), expected: "epoch seconds in [10^9, 10^11) or 0", found: "\(value)" + unitHint(value))
        }
        return value
    }

    static func unitHint(_ value: Int64) -> String {
        if secondsRange.contains(value) { return " (looks like seconds)" }
        if millisRange.contains(value) { return " (looks like milliseconds)" }
        if value >= 1_000_000_000_000_000 && value < 10_000_000_000_000_000 { return " (looks like microseconds)" }
        return ""
    }
}
