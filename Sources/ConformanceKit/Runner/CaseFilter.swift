/// Which cases to run: a family, any of several id globs, none of the excluded globs.
public struct CaseFilter: Sendable {
    public var family: String?
    /// Shell-style globs over case ids (`*` any run of characters, `?` one character); a case
    /// runs when it matches any of them (all cases when there is none).
    public var globs: [String]
    public var excludes: [String]

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
        if !globs.isEmpty, !globs.contains(where: { Self.matches(pattern: $0, id: vector.id) }) { return false }
        return !excludes.contains { Self.matches(pattern: $0, id: vector.id) }
    }

    /// A case id against a pattern: a glob, or a whole kind (`pairing/flow-a` names every
    /// `pairing/flow-a/...` case).
    public static func matches(pattern: String, id: String) -> Bool {
        if !pattern.contains("*") && !pattern.contains("?") { return id == pattern || id.hasPrefix(pattern + "/") }
        return glob(pattern, id)
    }

    static func glob(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern)
        let t = Array(text)
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
