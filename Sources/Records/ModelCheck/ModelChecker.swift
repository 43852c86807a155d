import WireCore

/// Checks a Core Data model (described as JSON) for what CloudKit mirroring forbids (seed 003
/// "Core Data 模型要求", "不支持的特性"), and a new version against the previous one for what
/// CloudKit schemas cannot evolve through (seed 003 "模型迁移"). Unlike documents, a model gets
/// every finding, in model order: a team fixes them all at once.
public enum ModelChecker {
    /// Attribute types CloudKit mirroring stores (seed 003 §3).
    public static let supportedTypes = ["String", "Integer16", "Integer32", "Integer64", "Double", "Boolean", "Date", "Binary", "UUID", "URI", "Transformable"]

    struct Attribute {
        var name: String
        var type: String
        var optional: Bool
        var hasDefault: Bool
        var renamingIdentifier: String?
        var path: JSONPointer
    }

    struct Entity {
        var name: String
        var attributes: [Attribute]
        var path: JSONPointer
    }

    public static func check(_ model: JSONValue, previous: JSONValue? = nil) throws(Violation) -> [Violation] {
        var findings: [Violation] = []
        let entities = try readEntities(model, findings: &findings)
        if let previous {
            var ignored: [Violation] = []
            let before = try readEntities(previous, findings: &ignored)
            findings += evolution(from: before, to: entities)
        }
        return findings
    }

    /// Reads the entities and records every CloudKit incompatibility on the way (REC-MODEL-*).
    static func readEntities(_ model: JSONValue, findings: inout [Violation]) throws(Violation) -> [Entity] {
        let root = try ObjectReader(document: model)
        let synced = (try root.optional("cloudKit").map { _ throws(Violation) in try root.bool("cloudKit") }) ?? true
        var entities: [Entity] = []
        for (i, value) in try root.array("entities").enumerated() {
            let e = try ObjectReader(document: value, path: root.pointer("entities") / i)
            let name = try e.string("name")
            var attributes: [Attribute] = []
            for (j, c) in (try e.optionalArray("uniquenessConstraints") ?? []).enumerated() where synced {
                findings.append(Violation(
                    rule: RecordRule.uniqueConstraint, path: e.pointer("uniquenessConstraints") / j,
                    expected: "no uniqueness constraint (CloudKit cannot enforce one across devices)", found: c.brief))
            }
            for (j, a) in (try e.optionalArray("attributes") ?? []).enumerated() {
                let r = try ObjectReader(document: a, path: e.pointer("attributes") / j)
                let attribute = Attribute(
                    name: try r.string("name"), type: try r.string("type"), optional: (try r.optional("optional").map { _ throws(Violation) in try r.bool("optional") }) ?? true,
                    hasDefault: r.optional("defaultValue") != nil, renamingIdentifier: try r.optionalString("renamingIdentifier"), path: r.path)
                attributes.append(attribute)
                guard synced else { continue }
                if (try r.optional("unique").map { _ throws(Violation) in try r.bool("unique") }) == true {
                    findings.append(Violation(
                        rule: RecordRule.uniqueConstraint, path: r.pointer("unique"),
                        expected: "no unique attribute (@Attribute(.unique) is a uniqueness constraint)", found: "true"))
                }
                if (try r.optional("derived").map { _ throws(Violation) in try r.bool("derived") }) == true {
                    findings.append(Violation(rule: RecordRule.derived, path: r.pointer("derived"), expected: "no derived attribute", found: "true"))
                }
                if !supportedTypes.contains(attribute.type) {
                    findings.append(Violation(
                        rule: RecordRule.attributeType, path: r.pointer("type"), expected: "one of " + supportedTypes.joined(separator: ", "),
                        found: JSONSerializer.quoted(attribute.type)))
                } else if attribute.type == "Transformable", try r.optionalString("valueTransformerName") != "NSSecureUnarchiveFromDataTransformer" {
                    findings.append(Violation(
                        rule: RecordRule.attributeType, path: r.pointer("valueTransformerName"),
                        expected: "NSSecureUnarchiveFromDataTransformer for a Transformable", found: r.optional("valueTransformerName")?.brief ?? "absent"))
                }
                if !attribute.optional && !attribute.hasDefault {
                    findings.append(Violation(
                        rule: RecordRule.requiredDefault, path: r.pointer("optional"),
                        expected: "optional, or a default value (a record from another device may lack the field)", found: "required without default"))
                }
            }
            for (j, rel) in (try e.optionalArray("relationships") ?? []).enumerated() where synced {
                let r = try ObjectReader(document: rel, path: e.pointer("relationships") / j)
                _ = try r.string("name")
                if (try r.optional("optional").map { _ throws(Violation) in try r.bool("optional") }) == false {
                    findings.append(Violation(rule: RecordRule.optionalRelationship, path: r.pointer("optional"), expected: "an optional relationship", found: "required"))
                }
                if (try r.optional("ordered").map { _ throws(Violation) in try r.bool("ordered") }) == true {
                    findings.append(Violation(rule: RecordRule.optionalRelationship, path: r.pointer("ordered"), expected: "an unordered relationship", found: "ordered"))
                }
                if try r.optionalString("inverse") == nil {
                    findings.append(Violation(rule: RecordRule.inverse, path: r.pointer("inverse"), expected: "an inverse relationship", found: "none"))
                }
                if try r.optionalString("deleteRule") == "Deny" {
                    findings.append(Violation(rule: RecordRule.denyRule, path: r.pointer("deleteRule"), expected: "Nullify, Cascade or No Action", found: "\"Deny\""))
                }
            }
            entities.append(Entity(name: name, attributes: attributes, path: e.path))
        }
        return entities
    }

    /// REC-EVOL-*: only new optional attributes (or with defaults) and new entities may appear.
    static func evolution(from before: [Entity], to after: [Entity]) -> [Violation] {
        var findings: [Violation] = []
        for entity in after {
            guard let old = before.first(where: { $0.name == entity.name }) else { continue }
            for attribute in entity.attributes {
                if let previous = old.attributes.first(where: { $0.name == attribute.name }) {
                    if previous.type != attribute.type {
                        findings.append(Violation(
                            rule: RecordRule.typeChanged, path: attribute.path / "type", expected: "the previous type \(previous.type)", found: attribute.type))
                    }
                } else if let from = attribute.renamingIdentifier, old.attributes.contains(where: { $0.name == from }) {
                    findings.append(Violation(
                        rule: RecordRule.renamed, path: attribute.path / "name", expected: "the previous name \(from) (CloudKit cannot rename a field)", found: attribute.name))
                } else if !attribute.optional && !attribute.hasDefault {
                    findings.append(Violation(
                        rule: RecordRule.newRequired, path: attribute.path / "optional", expected: "a new attribute optional or with a default", found: "required without default"))
                }
            }
            for previous in old.attributes where !entity.attributes.contains(where: { $0.name == previous.name || $0.renamingIdentifier == previous.name }) {
                findings.append(Violation(
                    rule: RecordRule.removed, path: entity.path / "attributes", expected: "the attribute \(previous.name) kept", found: "removed"))
            }
        }
        for old in before where !after.contains(where: { $0.name == old.name }) {
            findings.append(Violation(rule: RecordRule.removed, path: .root / "entities", expected: "the entity \(old.name) kept", found: "removed"))
        }
        return findings
    }
}
