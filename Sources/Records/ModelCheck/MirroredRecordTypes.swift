import WireCore

/// The record types `NSPersistentCloudKitContainer` writes for an app's own Core Data model
/// (Apple, "Reading CloudKit Records for Core Data"; Spec records.md 3, REC-CD-002). Unlike the
/// Spec's built-in types they are closed: a field the model does not have is reported.
public enum MirroredRecordTypes {
    /// The CloudKit field types an attribute type travels as; nil for Undefined and ObjectID,
    /// which the model checker refuses (REC-MODEL-006).
    static func fieldTypes(_ attributeType: String) -> [FieldType]? {
        switch attributeType {
        case "String", "UUID", "URI": return [.string]
        // Apple does not document Decimal's field type: its string form and a DOUBLE are both seen.
        case "Decimal": return [.string, .double]
        case "Integer16", "Integer32", "Integer64", "Boolean": return [.int64]
        case "Double", "Float": return [.double]
        case "Date": return [.timestamp]
        case "Binary", "Transformable": return [.bytes]
        default: return nil
        }
    }

    /// Values that can outgrow a record, which Core Data then moves into `CD_<name>_ckAsset`
    /// (Apple lists String, Binary Data and Transformable; Core Data's serializer spills URI too).
    static let externalizable: Set<String> = ["String", "URI", "Binary", "Transformable"]

    /// The fields of Core Data's many-to-many link records (REC-CD-003).
    static let linkFields = ["CD_entityNames", "CD_recordNames", "CD_relationships"]

    /// One record type per inheritance root among the entities CloudKit mirrors: `CD_<root>`,
    /// holding every attribute and to-one relationship of the hierarchy, with `CD_entityName`
    /// naming the entity of each record. Throws only when the model is not in the JSON form.
    public static func derive(from model: JSONValue) throws(Violation) -> [RecordModel] {
        var ignored: [Violation] = []
        let entities = try ModelChecker.readEntities(model, findings: &ignored)
        return entityTypes(entities) + (linkType(entities).map { [$0] } ?? [])
    }

    /// The entities by name (the first of a name): a parent is looked up, not searched for (a
    /// chain of 2000 subentities, each walked to its root by scans, was cubic).
    static func byName(_ entities: [ModelChecker.Entity]) -> [String: ModelChecker.Entity] {
        Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func entityTypes(_ entities: [ModelChecker.Entity]) -> [RecordModel] {
        let named = byName(entities)
        var roots: [String: String] = [:]
        func root(of entity: ModelChecker.Entity) -> String {
            var path = [entity.name]
            var seen: Set<String> = [entity.name]
            var name = entity.name
            while roots[name] == nil, let parent = named[name]?.parent {
                // A cycle (a model error reported elsewhere) ends where it closes, as it is
                // walked from this entity: not remembered for the others on it.
                guard seen.insert(parent).inserted else { return name }
                name = parent
                path.append(name)
            }
            let found = roots[name] ?? name
            for n in path { roots[n] = found }
            return found
        }
        var order: [String] = []
        var hierarchies: [String: [ModelChecker.Entity]] = [:]
        for entity in entities where entity.synced {
            let name = root(of: entity)
            if hierarchies[name] == nil { order.append(name) }
            hierarchies[name, default: []].append(entity)
        }
        return order.map { rootName in
            let hierarchy = hierarchies[rootName] ?? []
            let names = hierarchy.map(\.name)
            var fields = [
                FieldSpec("CD_entityName", .string) { value, path throws(Violation) in
                    guard names.contains(value.string ?? "") else {
                        throw Violation(
                            rule: RecordRule.mirrored, path: path / "value", expected: names.map(JSONSerializer.quoted).joined(separator: " or "), found: value.value.brief)
                    }
                }
            ]
            for entity in hierarchy {
                for attribute in entity.attributes {
                    guard let types = fieldTypes(attribute.type), !fields.contains(where: { $0.name == "CD_" + attribute.name }) else { continue }
                    // Only the root's attributes are on every record of the hierarchy.
                    var spec = FieldSpec(
                        "CD_" + attribute.name, types[0], required: entity.name == rootName && !attribute.optional && !attribute.hasDefault)
                    spec.alternativeTypes = Array(types.dropFirst())
                    spec.cloudEncrypted = attribute.cloudEncrypted
                    spec.assetAlternative = externalizable.contains(attribute.type)
                    fields.append(spec)
                }
                // A to-one relationship is the related record's name; a to-many one lives on the
                // other side (or in CDMR records, for many-to-many).
                for relationship in entity.relationships where !relationship.toMany && !fields.contains(where: { $0.name == "CD_" + relationship.name }) {
                    fields.append(FieldSpec("CD_" + relationship.name, .string, required: false) { value, path throws(Violation) in
                        try checkRecordName(value.string ?? "", at: path / "value")
                    })
                }
            }
            // Core Data's zone-move receipt, written on any entity's type.
            var receipt = FieldSpec("CD_moveReceipt", .bytes, required: false)
            receipt.assetAlternative = true
            fields.append(receipt)
            var model = RecordModel("CD_" + rootName, fields: fields)
            model.closed = true
            // Names no version of this hierarchy writes: a to-many relationship has no field, a
            // fixed-size value never spills into an asset.
            var never = Set(linkFields)
            for entity in hierarchy {
                for relationship in entity.relationships {
                    if relationship.toMany { never.insert("CD_" + relationship.name) }
                    never.insert("CD_" + relationship.name + "_ckAsset")
                }
                for attribute in entity.attributes where !externalizable.contains(attribute.type) { never.insert("CD_" + attribute.name + "_ckAsset") }
            }
            model.neverWritten = never
            return model
        }
    }

    /// `CDMR`, when the model has a to-many relationship whose inverse is to-many between
    /// mirrored entities (REC-CD-003): three STRING fields of two parts each, entity i owning
    /// relationship i and record i; the order of the parts is not checked.
    static func linkType(_ entities: [ModelChecker.Entity]) -> RecordModel? {
        let synced = entities.filter(\.synced)
        let named = byName(entities), syncedNamed = byName(synced)
        @Sendable func entity(_ name: String) -> ModelChecker.Entity? { syncedNamed[name] }
        /// Relationships of `name` and of the entities it inherits from.
        @Sendable func relationships(of name: String) -> [ModelChecker.Relationship] {
            var out: [ModelChecker.Relationship] = []
            var seen: Set<String> = []
            var next: String? = name
            while let n = next, seen.insert(n).inserted, let e = named[n] {
                out += e.relationships
                next = e.parent
            }
            return out
        }
        let manyToMany = synced.contains { e in
            e.relationships.contains { r in
                r.toMany && r.destination.map { relationships(of: $0).contains { $0.name == r.inverse && $0.toMany } } == true
            }
        }
        guard manyToMany else { return nil }
        @Sendable func parts(_ value: FieldValue, _ path: JSONPointer) throws(Violation) -> (String, String) {
            let text = value.string ?? ""
            let split = text.split(separator: ":", omittingEmptySubsequences: false)
            guard split.count == 2, !split[0].isEmpty, !split[1].isEmpty else {
                throw Violation(rule: RecordRule.manyToMany, path: path / "value", expected: "two non-empty parts joined by one \":\"", found: JSONSerializer.quoted(text))
            }
            return (String(split[0]), String(split[1]))
        }
        let fields = [
            FieldSpec("CD_entityNames", .string) { value, path throws(Violation) in
                let (a, b) = try parts(value, path)
                for name in [a, b] where entity(name) == nil {
                    throw Violation(
                        rule: RecordRule.manyToMany, path: path / "value", expected: "entities CloudKit mirrors: " + synced.map(\.name).joined(separator: ", "),
                        found: JSONSerializer.quoted(name))
                }
            },
            FieldSpec("CD_recordNames", .string) { value, path throws(Violation) in
                let (a, b) = try parts(value, path)
                try checkRecordName(a, at: path / "value")
                try checkRecordName(b, at: path / "value")
            },
            FieldSpec("CD_relationships", .string) { value, path throws(Violation) in _ = try parts(value, path) },
        ]
        var model = RecordModel("CDMR", fields: fields) { record throws(Violation) in
            // Relationship i belongs to entity i, and the second is the first one's inverse.
            guard let names = record.fields["CD_entityNames"]?.string?.split(separator: ":").map(String.init),
                let pair = record.fields["CD_relationships"]?.string?.split(separator: ":").map(String.init), names.count == 2, pair.count == 2
            else { return }
            let first = relationships(of: names[0]).first { $0.name == pair[0] && $0.toMany }
            let second = relationships(of: names[1]).first { $0.name == pair[1] && $0.toMany }
            guard let first, second != nil, first.inverse == pair[1] else {
                throw Violation(
                    rule: RecordRule.manyToMany, path: .root / "fields" / "CD_relationships" / "value",
                    expected: "a to-many relationship of \(names[0]), then its to-many inverse on \(names[1])", found: JSONSerializer.quoted(pair.joined(separator: ":")))
            }
        }
        model.closed = true
        model.newerVersionsAddFields = false
        return model
    }
}
