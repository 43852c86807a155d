/// Per-level agreement counts over a group of results: how many cases agreed, disagreed or did
/// not say at each level (verdict, diagnosis, canonical).
public struct GradeTally: Sendable, Hashable {
    public struct Counts: Sendable, Hashable {
        public var agreed = 0
        public var disagreed = 0
        public var notGiven = 0
    }

    public var levels: [Grade.Level: Counts] = [:]

    public init(_ results: [CaseResult]) {
        for level in Grade.Level.allCases { levels[level] = Counts() }
        for grade in results.compactMap(\.grade) {
            for level in Grade.Level.allCases {
                switch grade[level] {
                case .agreed: levels[level]?.agreed += 1
                case .disagreed: levels[level]?.disagreed += 1
                case .notGiven: levels[level]?.notGiven += 1
                case .notApplicable: break
                }
            }
        }
    }

    /// Whether every graded level agreed (nothing worth a line of its own).
    public var allAgreed: Bool { levels.values.allSatisfy { $0.disagreed == 0 && $0.notGiven == 0 } }

    /// `verdict 38/38 · diagnosis 20/20 (18 not given) · canonical 12/12`
    public var line: String {
        Grade.Level.allCases.compactMap { level -> String? in
            guard let c = levels[level], c.agreed + c.disagreed + c.notGiven > 0 else { return nil }
            let given = c.agreed + c.disagreed
            return "\(level.rawValue) \(c.agreed)/\(given)" + (c.notGiven > 0 ? " (\(c.notGiven) not given)" : "")
        }.joined(separator: " · ")
    }
}
