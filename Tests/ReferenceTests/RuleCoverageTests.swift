import ConformanceKit
import Foundation
import Pairing
import Reference
import TestFixture
import Testing
import WireCore

/// Every rule lives in three places: the Spec (text with its id), the code, and vectors that
/// accept and reject on it. These tests fail the build when one of the three is missing.
@Suite("Rule coverage: Spec, code, vectors")
struct RuleCoverageTests {
    static let codeRules = Set(CoreRule.all + Families.all.flatMap(\.rules))

    @Test func vectorsAndCatalogLoad() throws {
        #expect(try Fixture.loadedCases.get().count > 0)
        #expect(try Fixture.loadedCatalog.get().rules.count > 0)
    }

    @Test func catalogListsExactlyTheRulesTheCodeDefines() {
        let catalog = Set(Fixture.catalog.rules.map(\.id))
        #expect(catalog.subtracting(Self.codeRules).sorted() == [], "in the catalog, unknown to the code")
        #expect(Self.codeRules.subtracting(catalog).sorted() == [], "in the code, missing from the catalog")
        #expect(Fixture.catalog.rules.count == catalog.count, "an id is listed twice")
    }

    @Test func everyRuleHasItsTextInTheSpec() throws {
        for rule in Fixture.catalog.rules {
            let chapter = Fixture.root.appendingPathComponent("Spec/\(rule.chapter).md")
            let text = try String(contentsOf: chapter, encoding: .utf8)
            #expect(text.contains("<a id=\"\(rule.id)\"></a>"), "\(rule.id) has no anchor in Spec/\(rule.chapter).md")
            #expect(text.contains("**\(rule.id)**"), "\(rule.id) has no rule text in Spec/\(rule.chapter).md")
            #expect(rule.id.section == "Spec/\(rule.chapter).md#\(rule.id)")
        }
    }

    @Test func everyRuleHasAnAcceptingAndARejectingVector() {
        let accepting = Set(Fixture.cases.flatMap(\.acceptingRules))
        let rejecting = Set(Fixture.cases.flatMap(\.rejectingRules))
        let rules = Fixture.catalog.rules.map(\.id)
        let acceptingOnly = Set(Fixture.catalog.rules.filter { $0.vectors == "accepting-only" }.map(\.id))
        #expect(rules.filter { !accepting.contains($0) } == [], "rules without an accepting vector")
        #expect(rules.filter { !rejecting.contains($0) && !acceptingOnly.contains($0) } == [], "rules without a rejecting vector")
        // A rule may go without rejecting vectors only when its Spec text says why.
        for rule in acceptingOnly {
            let text = (try? String(contentsOf: Fixture.root.appendingPathComponent("Spec/\(Fixture.catalog.rule(rule)?.chapter ?? "").md"), encoding: .utf8)) ?? ""
            #expect(text.contains("accepting vectors only"), "\(rule) is accepting-only without saying so in the Spec")
        }
    }

    @Test func vectorsNameOnlyCatalogRules() {
        let known = Set(Fixture.catalog.rules.map(\.id))
        for c in Fixture.cases {
            let named = Set(c.rules + c.triggers + c.rejectingRules)
            #expect(named.subtracting(known).isEmpty, "\(c.id) names unknown rules \(named.subtracting(known))")
            #expect(!c.rules.isEmpty || !c.rejectingRules.isEmpty, "\(c.id) names no rule at all")
        }
    }

    @Test func machineTriggersAppearInTheExpectedTrace() {
        for c in Fixture.cases {
            guard case .machine(_, _, let steps) = c.body else { continue }
            let text = steps.map { JSONSerializer.compact($0.json) }.joined()
            for rule in c.triggers {
                #expect(text.contains("\"\(rule)\""), "\(c.id) lists \(rule) as a trigger but its trace never names it")
            }
        }
    }

    @Test func caseIDsFollowTheirFile() {
        for c in Fixture.cases {
            let slug = c.subject.replacingOccurrences(of: ":", with: "-")
            #expect(c.id.hasPrefix("\(c.family)/\(slug)/"), "\(c.id) is not under \(c.family)/\(slug)/")
        }
    }
}
