import Testing
import WireCore

@Suite("Typed members: CORE-TYPE rules")
struct ObjectReaderTests {
    let reader = try! ObjectReader(
        document: try! JSONParser.parse(#"{"s":"x","n":null,"i":42,"f":42.0,"e":4.2e1,"big":9007199254740993,"str":"42"}"#))

    func rule(_ body: () throws(Violation) -> Void) -> (RuleID, String)? {
        do throws(Violation) {
            try body()
            return nil
        } catch {
            return (error.rule, error.path.description)
        }
    }

    @Test func missingNullAndWrongType() {
        #expect(rule { () throws(Violation) in _ = try reader.string("absent") }! == (CoreRule.required, "/absent"))
        #expect(rule { () throws(Violation) in _ = try reader.string("n") }! == (CoreRule.notNull, "/n"))
        #expect(rule { () throws(Violation) in _ = try reader.string("i") }! == (CoreRule.type, "/i"))
        #expect(rule { () throws(Violation) in _ = try reader.integer("str") }! == (CoreRule.type, "/str"))
    }

    @Test func integersAreLiteralsWithinTheSafeRange() {
        #expect(rule { () throws(Violation) in _ = try reader.integer("i") } == nil)
        #expect(rule { () throws(Violation) in _ = try reader.integer("f") }! == (CoreRule.integer, "/f"))
        #expect(rule { () throws(Violation) in _ = try reader.integer("e") }! == (CoreRule.integer, "/e"))
        #expect(rule { () throws(Violation) in _ = try reader.integer("big") }! == (CoreRule.integer, "/big"))
    }

    @Test func optionalMembersTreatNullAsAbsent() throws {
        #expect(try reader.optionalString("n") == nil)
        #expect(try reader.optionalString("absent") == nil)
        #expect(try reader.optionalString("s") == "x")
    }
}

@Suite("Independent checks keep at most a thousand violations")
struct IndependentChecksCapTests {
    @Test func theRestAreCounted() {
        var checks = IndependentChecks()
        for i in 0..<2500 {
            _ = checks.check { () throws(Violation) -> Int in
                throw Violation(rule: CoreRule.type, path: .root / i, expected: "object", found: "integer")
            }
        }
        checks.add([Violation(rule: CoreRule.type, path: .root, expected: "x", found: "y")], omitted: 10)
        #expect(checks.violations.count == ViolationList.maxListed)
        #expect(checks.violations.last?.path == .root / 999)
        #expect(checks.omitted == 1511)
        guard case .failure(let list) = checks.result({ () throws(Violation) in 0 }) else {
            Issue.record("violations were found")
            return
        }
        #expect(list.all.count == 1000)
        #expect(list.omitted == 1511)
    }
}
