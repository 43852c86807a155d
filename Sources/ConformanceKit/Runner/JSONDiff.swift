import WireCore

/// Member-by-member comparison of an expected and a found JSON value.
public enum JSONDiff {
    public struct Difference: Sendable, Hashable {
        public var path: JSONPointer
        public var expected: String
        public var found: String
    }

    /// Every place where `found` differs from `expected`. Objects compare by member name
    /// (order is not significant), arrays by position, numbers by value.
    public static func differences(expected: JSONValue, found: JSONValue, at path: JSONPointer = .root) -> [Difference] {
        switch (expected, found) {
        case (.object(let e), .object(let f)):
            var result: [Difference] = []
            for member in e.members {
                if let other = f[member.key] {
                    result += differences(expected: member.value, found: other, at: path / member.key)
                } else {
                    result.append(Difference(path: path / member.key, expected: member.value.brief, found: "absent"))
                }
            }
            for member in f.members where e[member.key] == nil {
                result.append(Difference(path: path / member.key, expected: "absent", found: member.value.brief))
            }
            return result
        case (.array(let e), .array(let f)):
            var result: [Difference] = []
            for i in 0..<max(e.count, f.count) {
                switch (i < e.count ? Optional(e[i]) : nil, i < f.count ? Optional(f[i]) : nil) {
                case (let x?, let y?): result += differences(expected: x, found: y, at: path / i)
                case (let x?, nil): result.append(Difference(path: path / i, expected: x.brief, found: "absent"))
                case (nil, let y?): result.append(Difference(path: path / i, expected: "absent", found: y.brief))
                case (nil, nil): break
                }
            }
            return result
        case (.number(let e), .number(let f)):
            let same: Bool
            if let x = e.int64, let y = f.int64 { same = x == y } else { same = e.double != nil && e.double == f.double }
            if same { return [] }
            return [Difference(path: path, expected: e.literal, found: f.literal)]
        default:
            return expected == found ? [] : [Difference(path: path, expected: expected.brief, found: found.brief)]
        }
    }
}
