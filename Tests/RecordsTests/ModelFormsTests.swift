import Records
import Testing
import WireCore

/// The same model written as Xcode's XML and as the JSON form gives the same findings: the XML
/// reader and the JSON reader agree on Core Data's defaults (optional, types, configurations).
@Suite("Core Data models read two ways")
struct ModelFormsTests {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let types = [("String", "String"), ("Integer 16", "Integer16"), ("Integer 64", "Integer64"), ("Float", "Float"), ("Decimal", "Decimal"),
                        ("Date", "Date"), ("Undefined", "Undefined"), ("Object ID", "ObjectID"), ("Transformable", "Transformable")]

    @Test(arguments: 0..<40)
    func sameFindingsFromXMLAndJSON(seed: UInt64) throws {
        var random = Generator(state: seed)
        let entityNames = ["A", "B", "C"]
        let cloud = entityNames.filter { _ in Bool.random(using: &random) }
        var xml = #"<?xml version="1.0" encoding="UTF-8"?><model type="com.apple.IDECoreDataModeler.DataModel">"#
        var entities: [JSONValue] = []
        for name in entityNames {
            xml += #"<entity name="\#(name)" syncable="YES">"#
            var attributes: [JSONValue] = []
            for i in 0..<Int.random(in: 0...4, using: &random) {
                let (xmlType, jsonType) = Self.types.randomElement(using: &random)!
                let optional = Bool.random(using: &random), withDefault = Bool.random(using: &random), derived = Int.random(in: 0..<6, using: &random) == 0
                let secure = Bool.random(using: &random)
                xml += #"<attribute name="a\#(i)""# + (optional ? #" optional="YES""# : "") + #" attributeType="\#(xmlType)""#
                    + (withDefault ? #" defaultValueString="0""# : "") + (derived ? #" derived="YES""# : "")
                    + (xmlType == "Transformable" && secure ? #" valueTransformerName="NSSecureUnarchiveFromData""# : "") + "/>"
                var a = JSONObject(["name": .string("a\(i)"), "type": .string(jsonType), "optional": .bool(optional)])
                if withDefault { a["defaultValue"] = "0" }
                if derived { a["derived"] = true }
                if xmlType == "Transformable" && secure { a["valueTransformerName"] = "NSSecureUnarchiveFromData" }
                attributes.append(.object(a))
            }
            var relationships: [JSONValue] = []
            if Bool.random(using: &random) {
                let destination = (entityNames + ["Gone"]).randomElement(using: &random)!
                let optional = Bool.random(using: &random), inverse = Bool.random(using: &random)
                xml += #"<relationship name="r" destinationEntity="\#(destination)""# + (optional ? #" optional="YES""# : "") + #" deletionRule="Nullify""#
                    + (inverse ? #" inverseName="back""# : "") + "/>"
                relationships.append([
                    "name": "r", "destination": .string(destination), "optional": .bool(optional), "deleteRule": "Nullify",
                    "inverse": inverse ? "back" : .null,
                ])
            }
            var e = JSONObject(["name": .string(name), "attributes": .array(attributes)])
            if !relationships.isEmpty { e["relationships"] = .array(relationships) }
            if Bool.random(using: &random) {
                xml += #"<uniquenessConstraints><uniquenessConstraint><constraint value="a0"/></uniquenessConstraint></uniquenessConstraints>"#
                e["uniquenessConstraints"] = [["a0"]]
            }
            xml += "</entity>"
            entities.append(.object(e))
        }
        xml += #"<configuration name="Cloud" usedWithCloudKit="YES">"# + cloud.map { #"<memberEntity name="\#($0)"/>"# }.joined() + "</configuration></model>"
        let json: JSONValue = ["entities": .array(entities), "configurations": [["name": "Cloud", "cloudKit": true, "entities": .array(cloud.map { .string($0) })]]]
        let fromXML = try ModelChecker.check(try CoreDataModelXML.read(Array(xml.utf8)))
        let fromJSON = try ModelChecker.check(json)
        #expect(fromXML.map { "\($0.rule) \($0.path)" } == fromJSON.map { "\($0.rule) \($0.path)" }, "\(xml)")
    }
}

extension ModelFormsTests {
    /// Findings name what their path points at, in the model's words: a team with many entities
    /// reads `Solve.date`, not the sixth entity's second attribute.
    @Test func findingsNameTheEntityAndMember() throws {
        let xml = #"""
            <?xml version="1.0" encoding="UTF-8"?><model type="com.apple.IDECoreDataModeler.DataModel">
            <entity name="Puzzle" syncable="YES"><attribute name="title" optional="YES" attributeType="String"/></entity>
            <entity name="Solve" syncable="YES"><attribute name="time" attributeType="Double" defaultValueString="0"/><attribute name="date" attributeType="Date"/>
            <relationship name="puzzle" maxCount="1" deletionRule="Nullify" destinationEntity="Puzzle"/></entity>
            <entity name="Dated" syncable="YES"><attribute name="at" attributeType="Date" defaultDateTimeInterval="-595929600"/></entity>
            </model>
            """#
        let findings = try ModelChecker.check(try CoreDataModelXML.read(Array(xml.utf8)))
        #expect(findings.map(\.path.description) == ["/entities/1/attributes/1/optional", "/entities/1/relationships/0/optional", "/entities/1/relationships/0/inverse"])
        #expect(findings.map(\.names) == ["Solve.date", "Solve.puzzle", "Solve.puzzle"])
        // A Date's default written as defaultDateTimeInterval is a default: Dated.at is not among them.
        #expect(findings.first?.description.contains(#"at "/entities/1/attributes/1/optional" (Solve.date)"#) == true)
    }

    /// A removed member names itself, the entity and the member (issue 41, case 5): the model
    /// it left cannot point at it, and a baseline line of two removals is one per member.
    @Test func aRemovedMemberNamesItself() throws {
        let before: JSONValue = ["entities": [["name": "Solve", "attributes": [["name": "date", "type": "Date", "optional": true], ["name": "time", "type": "Double", "optional": true]], "relationships": [["name": "puzzle", "destination": "Puzzle", "optional": true, "inverse": "solves"]]], ["name": "Puzzle", "attributes": [], "relationships": [["name": "solves", "destination": "Solve", "toMany": true, "optional": true, "inverse": "puzzle"]]], ["name": "Tag", "attributes": []]]]
        let after: JSONValue = ["entities": [["name": "Solve", "attributes": [], "relationships": []], ["name": "Puzzle", "attributes": [], "relationships": []]]]
        let findings = try ModelChecker.check(after, previous: before).filter { $0.rule == "REC-EVOL-001" }
        #expect(findings.map { $0.names ?? "-" } == ["Solve.date", "Solve.time", "Solve.puzzle", "Puzzle.solves", "Tag"], "\(findings)")
    }
}
