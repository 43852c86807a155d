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
