import WireCore

/// Checks a Core Data model (described as JSON) for what CloudKit mirroring forbids (seed 003
/// "Core Data 模型要求", "不支持的特性"), and a new version against the previous one for what
/// CloudKit schemas cannot evolve through (seed 003 "模型迁移"). Unlike documents, a model gets
/// every finding, in model order: a team fixes them all at once.
public enum ModelChecker {
    /// Attribute types CloudKit mirroring stores: every Core Data type but Undefined and ObjectID
    /// (Apple, "Creating a Core Data Model for CloudKit"; seed 003 §3 listed fewer).
    public static let supportedTypes = [
        "String", "Integer16", "Integer32", "Integer64", "Decimal", "Double", "Float", "Boolean", "Date", "Binary", "UUID", "URI", "Transformable",
    ]
    /// Transformers that unarchive insecurely (any class): a Transformable needs a secure one.
    public static let insecureTransformers: Set<String> = ["NSKeyedUnarchiveFromData", "NSUnarchiveFromData"]
    /// Names a property cannot take: NSObject's and NSManagedObject's methods without
    /// parameters (Apple, NSPropertyDescription: "you cannot give a property the name
    /// description"). Xcode refuses such a model before CloudKit sees it.
    public static let reservedNames: Set<String> = [
        "description", "debugDescription", "hash", "class", "superclass", "self", "zone", "isProxy", "retainCount", "autorelease", "retain",
        "release", "copy", "mutableCopy", "init", "dealloc", "entity", "objectID", "managedObjectContext", "isInserted", "inserted",
        "isUpdated", "updated", "isDeleted", "deleted", "hasChanges", "hasPersistentChangedValues", "isFault", "fault", "faultingState",
        "changedValues", "changedValuesForCurrentEvent", "awakeFromFetch", "awakeFromInsert", "willSave", "didSave", "willTurnIntoFault",
        "didTurnIntoFault", "prepareForDeletion", "validateForDelete", "validateForInsert", "validateForUpdate",
    ]

    struct Attribute {
        var name: String
        var type: String
        var optional: Bool
        var hasDefault: Bool
        var renamingIdentifier: String?
        /// `allowsCloudEncryption`: CloudKit stores it in `encryptedValues`.
        var cloudEncrypted = false
        var path: JSONPointer
    }

    struct Relationship {
        var name: String
        var destination: String?
        var toMany: Bool
        /// The inverse's name (REC-MODEL-003 requires one; `CDMR` pairs by it, REC-CD-003).
        var inverse: String? = nil
        var renamingIdentifier: String?
        var path: JSONPointer
    }

    struct Entity {
        var name: String
        /// The entity it inherits from: CloudKit stores a hierarchy under its root's record type.
        var parent: String?
        var attributes: [Attribute]
        var relationships: [Relationship]
        var path: JSONPointer
        /// Mirrored to CloudKit (the model's flag, or membership of a CloudKit configuration).
        var synced: Bool
    }

    public static func check(_ model: JSONValue, previous: JSONValue? = nil) throws(Violation) -> [Violation] {
        var findings: [Violation] = []
        let entities = try readEntities(model, findings: &findings)
        if let previous {
            var ignored: [Violation] = []
            let before = try readEntities(previous, findings: &ignored)
            findings += evolution(from: before, to: entities)
        }
        return findings.map { named($0, in: model) }
    }

    /// A finding with the names its path points at: `Entity`, `Entity.attribute`,
    /// `Entity.relationship`, or a configuration's name, so a team with 30 entities need not
    /// count to the sixth.
    static func named(_ finding: Violation, in model: JSONValue) -> Violation {
        // A removed member names itself: the model it was removed from cannot.
        guard finding.names == nil else { return finding }
        let t = finding.path.tokens
        guard t.count >= 2, let i = Int(t[1]) else { return finding }
        let list = model[t[0]]?.arrayValue ?? []
        guard i >= 0, i < list.count, let name = list[i]["name"]?.stringValue else { return finding }
        var copy = finding
        copy.names = name
        if t[0] == "entities", t.count >= 4, ["attributes", "relationships"].contains(t[2]), let j = Int(t[3]),
            let members = list[i][t[2]]?.arrayValue, j >= 0, j < members.count, let member = members[j]["name"]?.stringValue
        {
            copy.names = name + "." + member
        }
        return copy
    }

    /// Reads the entities and records every CloudKit incompatibility on the way (REC-MODEL-*).
    static func readEntities(_ model: JSONValue, findings: inout [Violation]) throws(Violation) -> [Entity] {
        let root = try ObjectReader(document: model)
        let modelSynced = (try root.optional("cloudKit").map { _ throws(Violation) in try root.bool("cloudKit") }) ?? true
        // Configurations: when one is used with CloudKit, only its entities are mirrored.
        var cloudEntities: Set<String>?
        for (i, value) in (try root.optionalArray("configurations") ?? []).enumerated() {
            let c = try ObjectReader(document: value, path: root.pointer("configurations") / i)
            // Read whether used or not: a member of the wrong type is wrong in any configuration.
            let members = try (c.optionalArray("entities") ?? []).enumerated().map { j, member throws(Violation) in
                try asString(member, at: c.pointer("entities") / j)
            }
            guard try flag(c, "cloudKit") else { continue }
            cloudEntities = (cloudEntities ?? []).union(members)
        }
        let names = Set(
            try root.array("entities").enumerated().map { i, value throws(Violation) in
                try ObjectReader(document: value, path: root.pointer("entities") / i).string("name")
            })
        func isSynced(_ name: String) -> Bool { modelSynced && (cloudEntities?.contains(name) ?? true) }
        var entities: [Entity] = []
        for (i, value) in try root.array("entities").enumerated() {
            let e = try ObjectReader(document: value, path: root.pointer("entities") / i)
            let name = try e.string("name")
            let synced = isSynced(name)
            var attributes: [Attribute] = []
            for (j, c) in (try e.optionalArray("uniquenessConstraints") ?? []).enumerated() where synced {
                findings.append(Violation(
                    rule: RecordRule.uniqueConstraint, path: e.pointer("uniquenessConstraints") / j,
                    expected: "no uniqueness constraint (CloudKit cannot enforce one across devices)", found: c.brief))
            }
            for (j, a) in (try e.optionalArray("attributes") ?? []).enumerated() {
                attributes.append(try readAttribute(ObjectReader(document: a, path: e.pointer("attributes") / j), synced: synced, findings: &findings))
            }
            var relationships: [Relationship] = []
            for (j, rel) in (try e.optionalArray("relationships") ?? []).enumerated() {
                let r = try ObjectReader(document: rel, path: e.pointer("relationships") / j)
                relationships.append(try readRelationship(r, synced: synced, names: names, isSynced: isSynced, findings: &findings))
            }
            entities.append(Entity(name: name, parent: try e.optionalString("parent"), attributes: attributes, relationships: relationships, path: e.path, synced: synced))
        }
        return entities
    }

    /// One attribute of an entity, with what CloudKit refuses in it when the entity is mirrored.
    static func readAttribute(_ r: ObjectReader, synced: Bool, findings: inout [Violation]) throws(Violation) -> Attribute {
        // Core Data's default: required unless declared optional (the XML omits optional="NO").
        let attribute = Attribute(
            name: try r.string("name"), type: try r.string("type"), optional: try flag(r, "optional"),
            hasDefault: r.optional("defaultValue") != nil, renamingIdentifier: try r.optionalString("renamingIdentifier"),
            cloudEncrypted: try flag(r, "allowsCloudEncryption"), path: r.path)
        if reservedNames.contains(attribute.name) {
            findings.append(Violation(rule: RecordRule.reservedName, path: r.pointer("name"), expected: "a name no NSManagedObject method has", found: JSONSerializer.quoted(attribute.name)))
        }
        // Every member is read (and so type-checked) whether CloudKit mirrors the entity or not.
        let unique = try flag(r, "unique"), derived = try flag(r, "derived")
        let transformer = try r.optionalString("valueTransformerName")
        guard synced else { return attribute }
        if unique {
            findings.append(Violation(
                rule: RecordRule.uniqueConstraint, path: r.pointer("unique"),
                expected: "no unique attribute (@Attribute(.unique) is a uniqueness constraint)", found: "true"))
        }
        if derived {
            findings.append(Violation(rule: RecordRule.derived, path: r.pointer("derived"), expected: "no derived attribute", found: "true"))
        }
        if !supportedTypes.contains(attribute.type) {
            findings.append(Violation(
                rule: RecordRule.attributeType, path: r.pointer("type"), expected: "one of " + supportedTypes.joined(separator: ", "),
                found: JSONSerializer.quoted(attribute.type)))
        } else if attribute.type == "Transformable" {
            // Xcode writes NSSecureUnarchiveFromData; a custom secure subclass has its own name.
            if transformer == nil || insecureTransformers.contains(transformer ?? "") {
                findings.append(Violation(
                    rule: RecordRule.attributeType, path: r.pointer("valueTransformerName"),
                    expected: "a secure transformer (NSSecureUnarchiveFromData or a subclass of it) for a Transformable",
                    found: r.optional("valueTransformerName")?.brief ?? "absent: Core Data's default for none archives with NSCoding, not secure coding"))
            }
        }
        if !attribute.optional && !attribute.hasDefault {
            findings.append(Violation(
                rule: RecordRule.requiredDefault, path: r.pointer("optional"),
                expected: "optional, or a default value (a record from another device may lack the field)", found: "required without default"))
        }
        return attribute
    }

    /// One relationship of an entity, with what CloudKit refuses in it when the entity is mirrored.
    static func readRelationship(
        _ r: ObjectReader, synced: Bool, names: Set<String>, isSynced: (String) -> Bool, findings: inout [Violation]
    ) throws(Violation) -> Relationship {
        let relationship = Relationship(
            name: try r.string("name"), destination: try r.optionalString("destination"), toMany: try flag(r, "toMany"),
            inverse: try r.optionalString("inverse"), renamingIdentifier: try r.optionalString("renamingIdentifier"), path: r.path)
        if reservedNames.contains(relationship.name) {
            findings.append(Violation(rule: RecordRule.reservedName, path: r.pointer("name"), expected: "a name no NSManagedObject method has", found: JSONSerializer.quoted(relationship.name)))
        }
        let optional = try flag(r, "optional"), ordered = try flag(r, "ordered"), deleteRule = try r.optionalString("deleteRule")
        guard synced else { return relationship }
        // Apple: entities in a CloudKit configuration have no relationship out of it.
        if let destination = try r.optionalString("destination") {
            if !names.contains(destination) {
                findings.append(Violation(rule: RecordRule.configuration, path: r.pointer("destination"), expected: "an entity of the model", found: JSONSerializer.quoted(destination)))
            } else if !isSynced(destination) {
                findings.append(Violation(
                    rule: RecordRule.configuration, path: r.pointer("destination"), expected: "an entity CloudKit mirrors too",
                    found: "\(JSONSerializer.quoted(destination)), outside the CloudKit configuration"))
            }
        } else {
            findings.append(Violation(rule: RecordRule.configuration, path: r.pointer("destination"), expected: "an entity of the model", found: "absent"))
        }
        if !optional {
            findings.append(Violation(rule: RecordRule.optionalRelationship, path: r.pointer("optional"), expected: "an optional relationship", found: "required"))
        }
        if ordered {
            findings.append(Violation(rule: RecordRule.optionalRelationship, path: r.pointer("ordered"), expected: "an unordered relationship", found: "ordered"))
        }
        if try r.optionalString("inverse") == nil {
            findings.append(Violation(rule: RecordRule.inverse, path: r.pointer("inverse"), expected: "an inverse relationship", found: "none"))
        }
        if deleteRule == "Deny" {
            findings.append(Violation(rule: RecordRule.denyRule, path: r.pointer("deleteRule"), expected: "Nullify, Cascade or No Action", found: "\"Deny\""))
        }
        return relationship
    }

    /// A boolean member that is false when absent (Core Data's XML omits `NO`).
    static func flag(_ r: ObjectReader, _ key: String) throws(Violation) -> Bool {
        try r.optional(key).map { _ throws(Violation) in try r.bool(key) } ?? false
    }

    /// REC-EVOL-*: only new optional attributes (or with defaults) and new entities may appear.
    static func evolution(from before: [Entity], to after: [Entity]) -> [Violation] {
        var findings: [Violation] = []
        for entity in after {
            // A version that never reached CloudKit binds nothing (REC-EVOL-*).
            guard let old = before.first(where: { $0.name == entity.name }), old.synced else { continue }
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
                var v = Violation(rule: RecordRule.removed, path: entity.path / "attributes", expected: "the attribute \(previous.name) kept", found: "removed")
                v.names = "\(entity.name).\(previous.name)"
                findings.append(v)
            }
            // A to-one relationship is a field of the record (CD_<name>); removing any leaves
            // older devices writing what the schema no longer has.
            for relationship in entity.relationships where !old.relationships.contains(where: { $0.name == relationship.name }) {
                if let from = relationship.renamingIdentifier, old.relationships.contains(where: { $0.name == from }) {
                    findings.append(Violation(
                        rule: RecordRule.renamed, path: relationship.path / "name", expected: "the previous name \(from) (CloudKit cannot rename a field)", found: relationship.name))
                }
            }
            for previous in old.relationships where !entity.relationships.contains(where: { $0.name == previous.name || $0.renamingIdentifier == previous.name }) {
                var v = Violation(rule: RecordRule.removed, path: entity.path / "relationships", expected: "the relationship \(previous.name) kept", found: "removed")
                v.names = "\(entity.name).\(previous.name)"
                findings.append(v)
            }
        }
        for old in before where old.synced && !after.contains(where: { $0.name == old.name }) {
            var v = Violation(rule: RecordRule.removed, path: .root / "entities", expected: "the entity \(old.name) kept", found: "removed")
            v.names = old.name
            findings.append(v)
        }
        return findings
    }
}
