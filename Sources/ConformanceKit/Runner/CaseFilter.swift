/// Which cases to run: a family, any of several id globs, none of the excluded globs, and
/// optionally one shard of them.
public struct CaseFilter: Sendable {
    public var family: String?
    /// Shell-style globs over case ids (`*` any run of characters, `?` one character); a case
    /// runs when it matches any of them (all cases when there is none).
    public var globs: [String]
    public var excludes: [String]
    /// Shard `index` of `count` (1-based): a case belongs to one shard by a hash of its id alone,
    /// so the split is the same on every machine and a case stays in its shard when others are
    /// added.
    public var shard: (index: Int, count: Int)?

    public init(family: String? = nil, globs: [String] = [], excludes: [String] = []) {
        self.family = family
        self.globs = globs
        self.excludes = excludes
    }

    public init(family: String? = nil, glob: String?) {
        self.init(family: family, globs: glob.map { [$0] } ?? [])
    }

    public func matches(_ vector: VectorCase) -> Bool {
        if let family, vector.family != family { return false }
        if let shard, Self.shard(of: vector.id, among: shard.count) != shard.index { return false }
        if !globs.isEmpty, !globs.contains(where: { Self.matches(pattern: $0, id: vector.id) }) { return false }
        return !excludes.contains { Self.matches(pattern: $0, id: vector.id) }
    }

    /// The shard (1...count) a case id falls in: FNV-1a over its UTF-8 bytes.
    public static func shard(of id: String, among count: Int) -> Int {
        let hash = id.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
        return Int(hash % UInt64(max(1, count))) + 1
    }

    /// The most shards a selection is split into.
    public static let maxShards = 1000

    /// Reads `I/N` (1 <= I <= N <= `maxShards`, decimal digits only), as `--shard` takes it.
    public static func parseShard(_ text: String) -> (index: Int, count: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 4 && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let i = Int(parts[0]), let n = Int(parts[1]), (1...maxShards).contains(n), (1...n).contains(i)
        else { return nil }
        return (i, n)
    }

    /// A case id against a pattern: a glob, or a whole kind (`pairing/flow-a` names every
    /// `pairing/flow-a/...` case). Compared as Unicode scalars: a combining mark after `/` must
    /// not merge with it.
    public static func matches(pattern: String, id: String) -> Bool {
        if !pattern.unicodeScalars.contains("*") && !pattern.unicodeScalars.contains("?") {
            return id.utf8.elementsEqual(pattern.utf8) || id.utf8.starts(with: (pattern + "/").utf8)
        }
        return glob(pattern, id)
    }

    static func glob(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern.unicodeScalars)
        let t = Array(text.unicodeScalars)
        // Iterative wildcard match with backtracking to the last star: linear in practice.
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) {
                pi += 1
                ti += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
