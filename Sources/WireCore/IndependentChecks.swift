/// Several checks of one document that do not depend on each other: every violation is kept,
/// in document order, instead of stopping at the first, so a user fixes all of them in one
/// round (Spec/core.md, "Order of checks"). Within one check the first failure still ends it.
/// At most `ViolationList.maxListed` are kept; the rest are only counted (a 4 MB export of two
/// million wrong elements would otherwise hold gigabytes of violations and reports).
public struct IndependentChecks {
    public private(set) var violations: [Violation] = []
    /// Violations found beyond the first `ViolationList.maxListed`.
    public private(set) var omitted = 0

    public init() {}

    /// Runs one check: its value, or nil after its violation was recorded.
    public mutating func check<T>(_ body: () throws(Violation) -> T) -> T? {
        do {
            return try body()
        } catch {
            add([error])
            return nil
        }
    }

    /// Records the violations a nested group of checks found.
    public mutating func add(_ found: [Violation], omitted more: Int = 0) {
        let room = max(0, ViolationList.maxListed - violations.count)
        violations += found.prefix(room)
        omitted += max(0, found.count - room) + more
    }

    /// Nothing failed: the value built from the checks' results.
    public func result<T>(_ build: () throws(Violation) -> T) -> Result<T, ViolationList> {
        guard violations.isEmpty else { return .failure(ViolationList(violations, omitted: omitted)) }
        do {
            return .success(try build())
        } catch {
            return .failure(ViolationList([error]))
        }
    }
}

/// Every violation independent checks of one document found, in document order (never empty).
public struct ViolationList: Error, Sendable, Hashable {
    /// The first violations, at most `maxListed`.
    public var all: [Violation]
    /// How many more were found and not kept.
    public var omitted: Int

    /// Violations kept per document: memory and reports stay bounded whatever the input.
    public static let maxListed = 1000

    public init(_ all: [Violation], omitted: Int = 0) {
        self.all = Array(all.prefix(Self.maxListed))
        self.omitted = omitted + max(0, all.count - Self.maxListed)
    }

    public var first: Violation { all[0] }
}
