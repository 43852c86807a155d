/// Several checks of one document that do not depend on each other: every violation is kept,
/// in document order, instead of stopping at the first, so a user fixes all of them in one
/// round (Spec/core.md, "Order of checks"). Within one check the first failure still ends it.
public struct IndependentChecks {
    public private(set) var violations: [Violation] = []

    public init() {}

    /// Runs one check: its value, or nil after its violation was recorded.
    public mutating func check<T>(_ body: () throws(Violation) -> T) -> T? {
        do {
            return try body()
        } catch {
            violations.append(error)
            return nil
        }
    }

    /// Records the violations a nested group of checks found.
    public mutating func add(_ found: [Violation]) { violations += found }

    /// Nothing failed: the value built from the checks' results.
    public func result<T>(_ build: () throws(Violation) -> T) -> Result<T, ViolationList> {
        guard violations.isEmpty else { return .failure(ViolationList(violations)) }
        do {
            return .success(try build())
        } catch {
            return .failure(ViolationList([error]))
        }
    }
}

/// Every violation independent checks of one document found, in document order (never empty).
public struct ViolationList: Error, Sendable, Hashable {
    public var all: [Violation]

    public init(_ all: [Violation]) { self.all = all }

    public var first: Violation { all[0] }
}
