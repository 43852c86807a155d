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

    /// Values that can outgrow a record, which Core Data then moves into `CD_<name>_ckAsset`.
    static let externalizable: Set<String> = ["String", "Binary", "Transformable"]

    /// One record type per inheritance root among the entities CloudKit mirrors: `CD_<root>`,
    /// holding every attribute and to-one relationship of the hierarchy, with `CD_entityName`
    /// naming the entity of each record. Throws only when the model is not in the JSON form.
    public static func derive(from model: JSONValue) throws(Violation) -> [RecordModel] {
        var ignored: [Violation] = []
        let entities = try ModelChecker.readEntities(model, findings: &ignored)
        func root(of entity: ModelChecker.Entity) -> String {
            var name = entity.name
            var seen: Set<String> = [name]
            while let parent = entities.first(where: { $0.name == name })?.parent, seen.insert(parent).inserted {
                name = parent
            }
            return name
        }
        var roots: [String] = []
        var hierarchies: [String: [ModelChecker.Entity]] = [:]
        for entity in entities where entity.synced {
            let name = root(of: entity)
            if hierarchies[name] == nil { roots.append(name) }
            hierarchies[name, default: []].append(entity)
        }
        return roots.map { rootName in
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
            var model = RecordModel("CD_" + rootName, fields: fields)
            model.closed = true
            return model
        }
    }
}
