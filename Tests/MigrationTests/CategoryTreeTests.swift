@testable import Migration
import Testing
import WireCore

/// MIG-PKG-004 over hostile category lists: each category is walked once, and the first
/// category in order that breaks the forest is the one reported.
struct CategoryTreeTests {
    static func id(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return "3f2c6a1e-9b7d-4c2e-8f10-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    static func index(_ categories: [CategoryRecord]) -> [String: Int] {
        Dictionary(categories.enumerated().map { ($1.id.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// One chain of 200,000 categories, each the child of the one before: a walk from every
    /// category to the root was 2·10^10 steps (the receiver held for hours); once each, it is
    /// judged a valid tree.
    @Test(.timeLimit(.minutes(1))) func aLongChainIsWalkedOnce() throws {
        let n = 200_000
        let chain = (0..<n).map { CategoryRecord(id: Self.id($0), level: Int64($0 + 1), parentId: $0 == 0 ? nil : Self.id($0 - 1)) }
        try PackageConsistency.tree(chain, Self.index(chain))
        #expect(PackageConsistency.reachesCycle(chain, Self.index(chain)).allSatisfy { !$0 })
    }

    /// Category 0 leads into the cycle 2 → 3 → 2; 1 is a root: 0, 2 and 3 reach a cycle, and 0,
    /// first in order, is reported at its parentId.
    @Test func aCategoryLeadingIntoACycleIsReportedFirst() {
        let categories = [
            CategoryRecord(id: Self.id(0), level: 2, parentId: Self.id(2)),
            CategoryRecord(id: Self.id(1), level: 1, parentId: nil),
            CategoryRecord(id: Self.id(2), level: 2, parentId: Self.id(3)),
            CategoryRecord(id: Self.id(3), level: 3, parentId: Self.id(2)),
        ]
        #expect(PackageConsistency.reachesCycle(categories, Self.index(categories)) == [true, false, true, true])
        #expect(throws: Violation.self) { try PackageConsistency.tree(categories, Self.index(categories)) }
        do {
            try PackageConsistency.tree(categories, Self.index(categories))
        } catch {
            #expect(error.rule == MigrationRule.categoryTree)
            #expect(error.path.description == "/coredata/categories.json/0/parentId")
        }
    }
}
