import Foundation
import WireCore

/// A record in the shape of CloudKit Web Services JSON: `recordName`, `recordType`,
/// `recordChangeTag`, `fields` of `{value, type}`, `created` / `modified`, `deleted`, `zoneID`.
/// Checked against its record type's model; the first failing check is reported.
public struct CloudRecord: Sendable {
    public var decoded: DecodedRecord
    public var canonical: JSONValue

    /// What a record is checked against: its record types (the Spec's, or those derived from an
    /// app's Core Data model) and, when known, the writer's time zone.
    public struct Context: Sendable {
        public var models: [RecordModel]
        public var timeZone: TimeZone?
        /// The model is the writer's newest: a `CD_` field it lacks is reported, not taken for a
        /// newer version's (REC-CD-002).
        public var strictFields = false

        public init(models: [RecordModel] = Models.all, timeZone: TimeZone? = nil, strictFields: Bool = false) {
            self.models = models
            self.timeZone = timeZone
            self.strictFields = strictFields
        }

        public static let spec = Context()
    }

    /// Throws the first violation; `check` reports them all.
    public static func decode(_ document: JSONValue, as expectedType: String? = nil, in context: Context = .spec) throws(Violation) -> CloudRecord {
        switch check(document, as: expectedType, in: context) {
        case .success(let record): return record
        case .failure(let list): throw list.first
        }
    }

    /// The record's name and type come first (without a known type nothing else can be read);
    /// then the change tag, each timestamp, the zone and each field are checked on their own,
    /// so one run reports every independent violation; the model's cross-field rules run when
    /// every field passed.
    public static func check(_ document: JSONValue, as expectedType: String? = nil, in context: Context = .spec) -> Result<CloudRecord, ViolationList> {
        let r: ObjectReader
        let recordName: String
        let recordType: String
        let model: RecordModel
        do throws(Violation) {
            (r, recordName, recordType, model) = try identity(document, as: expectedType, in: context)
        } catch {
            return .failure(ViolationList([error]))
        }
        var checks = IndependentChecks()
        var canonical = JSONObject(["recordName": .string(recordName), "recordType": .string(recordType)])
        canonical.members.reserveCapacity(8)
        let tag = checks.check { () throws(Violation) -> String? in
            let tag = try r.optionalString("recordChangeTag")
            if let tag, tag.isEmpty || tag.utf8.count > 256 || tag.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value > 0x7E }) {
                throw Violation(rule: RecordRule.changeTag, path: r.pointer("recordChangeTag"), expected: "1 to 256 printable ASCII characters", found: JSONSerializer.quoted(tag))
            }
            return tag
        } ?? nil
        if let tag { canonical["recordChangeTag"] = .string(tag) }
        let created = stamp("created", of: r, &checks, &canonical)
        let modified = stamp("modified", of: r, &checks, &canonical)
        if let created, let modified, modified < created {
            checks.add([Violation(rule: RecordRule.stamps, path: r.pointer("modified") / "timestamp", expected: "at or after created \(created)", found: "\(modified)")])
        }
        let deleted = checks.check { () throws(Violation) in try r.optional("deleted").map { _ throws(Violation) in try r.bool("deleted") } ?? false } ?? false
        if deleted { canonical["deleted"] = .bool(true) }
        if let zone = checks.check({ () throws(Violation) in try zone(of: r) }) ?? nil { canonical["zoneID"] = zone }
        // A deleted record (a tombstone in a change feed) carries no fields.
        guard let fieldsReader = checks.check({ () throws(Violation) in deleted ? try r.optionalObjectReader("fields") : try r.objectReader("fields") }) else {
            return .failure(ViolationList(checks.violations, omitted: checks.omitted))
        }
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(model.fields.count)
        var canonicalFields = JSONObject()
        canonicalFields.members.reserveCapacity(model.fields.count)
        // Read in place: an Array's subscript hands out a copy, which retains each of the spec's
        // members for every field of every record (a twentieth of `bench --records`).
        model.fields.withUnsafeBufferPointer { specs in
            for i in specs.indices {
                declaredField(specs[i], of: fieldsReader, deleted: deleted, &checks, &fields, &canonicalFields)
            }
        }
        if model.closed, let fieldsReader { checks.add(undeclared(fieldsReader, of: model, in: context)) }
        var decoded = DecodedRecord(recordName: recordName, recordType: recordType, recordChangeTag: tag, fields: fields, deleted: deleted)
        decoded.timeZone = context.timeZone
        let hasFields = fieldsReader != nil
        let done = canonical
        return checks.result { () throws(Violation) -> CloudRecord in
            if !deleted { try model.check(decoded) }
            var canonical = done
            if hasFields || !deleted { canonical["fields"] = .object(canonicalFields) }
            return CloudRecord(decoded: decoded, canonical: .object(canonical))
        }
    }
}

extension CloudRecord {
    /// The record's name, its type (the one expected, if any) and the model of that type: without
    /// them nothing else can be read. Types compare byte for byte.
    static func identity(_ document: JSONValue, as expectedType: String?, in context: Context) throws(Violation) -> (ObjectReader, String, String, RecordModel) {
        let r = try ObjectReader(document: document)
        let recordName = try r.string("recordName")
        try checkRecordName(recordName, at: r.pointer("recordName"))
        let recordType = try r.string("recordType")
        if let expectedType, !recordType.bytesEqual(expectedType) {
            throw Violation(rule: RecordRule.recordType, path: r.pointer("recordType"), expected: JSONSerializer.quoted(expectedType), found: JSONSerializer.quoted(recordType))
        }
        guard let model = context.models.first(where: { $0.recordType.bytesEqual(recordType) }) else {
            throw Violation(
                rule: RecordRule.recordType, path: r.pointer("recordType"),
                expected: "a record type of " + (context.models.allSatisfy(\.closed) ? "the model: " : "the Spec: ") + context.models.map(\.recordType).joined(separator: ", "),
                found: JSONSerializer.quoted(recordType))
        }
        return (r, recordName, recordType, model)
    }

    /// One declared field: its value, its asset form or its default, into `fields` and the
    /// canonical form; a violation goes to `checks`.
    static func declaredField(
        _ spec: FieldSpec, of fieldsReader: ObjectReader?, deleted: Bool, _ checks: inout IndependentChecks, _ fields: inout [String: FieldValue], _ canonicalFields: inout JSONObject
    ) {
        let path = spec.pointer
        let assetName = spec.assetName
        let asset = spec.assetAlternative ? fieldsReader?.optional(assetName) : nil
        let value = checks.check { () throws(Violation) -> FieldValue? in
            guard let raw = fieldsReader?.optional(spec.name) else {
                if let asset {
                    return try assetField(asset, at: .root / "fields" / assetName)
                }
                if spec.required && !deleted {
                    throw Violation(rule: RecordRule.requiredField, path: path, expected: "the \(spec.typeDescription) field \(spec.name)", found: "absent")
                }
                return nil
            }
            // Both forms (Apple's fully materialized record): the plain one is what Core Data
            // imports, so it is the one checked; the asset must still be an asset.
            if let asset { _ = try assetField(asset, at: .root / "fields" / assetName) }
            return try field(raw, as: spec, at: path)
        }
        switch value {
        case .some(.some(let value)):
            let name = value.type == .assetID && spec.type != .assetID ? assetName : spec.name
            fields[name] = value
            canonicalFields[name] = value.json
            if !name.bytesEqual(assetName), let asset, let both = try? assetField(asset, at: .root) { canonicalFields[assetName] = both.json }
        case .some(.none):
            if let value = spec.defaultValue, !deleted { canonicalFields[spec.name] = FieldValue(type: spec.type, value: value, cloudEncrypted: spec.cloudEncrypted).json }
        case .none:
            return
        }
    }

    /// `zoneID`, if given: its canonical form.
    static func zone(of r: ObjectReader) throws(Violation) -> JSONValue? {
        guard let zone = try r.optionalObjectReader("zoneID") else { return nil }
        let name = try zone.string("zoneName")
        guard !name.isEmpty, name.utf8.count <= 255 else {
            throw Violation(rule: RecordRule.zone, path: zone.pointer("zoneName"), expected: "1 to 255 bytes", found: JSONSerializer.quoted(name))
        }
        _ = try zone.optionalString("ownerRecordName")
        return zone.givenMembers(["zoneName", "ownerRecordName"])
    }

    /// A type derived from the app's own model knows every field it has; a CD_ field it lacks
    /// may be a newer version's (dropped, unless strict), anything Core Data never writes is reported.
    static func undeclared(_ fieldsReader: ObjectReader, of model: RecordModel, in context: Context) -> [Violation] {
        let declared = model.declaredNames
        var found: [Violation] = []
        // A null field is an absent one (CORE-TYPE-002): nothing to report.
        for name in fieldsReader.object.keys where !declared.contains(ByteString(name)) && fieldsReader.optional(name) != nil {
            let newer = model.newerVersionsAddFields && name.hasBytePrefix("CD_") && !model.neverWritten.contains(name)
            if newer && !context.strictFields { continue }
            found.append(
                Violation(
                    rule: RecordRule.derivedFields, path: .root / "fields" / name, expected: "a field the model gives \(model.recordType)",
                    found: newer ? "a field this model does not have (strict: no newer version writes it)" : "a field Core Data never writes on \(model.recordType)"))
        }
        return found
    }

    /// `created` or `modified`, if given: its time in epoch milliseconds, its canonical form put
    /// in `canonical`; a violation goes to `checks`.
    static func stamp(_ key: String, of r: ObjectReader, _ checks: inout IndependentChecks, _ canonical: inout JSONObject) -> Int64? {
        let stamp = checks.check { () throws(Violation) -> (Int64, JSONValue)? in
            guard let stamp = try r.optionalObjectReader(key) else { return nil }
            let ms = try stamp.integer("timestamp")
            guard (1_000_000_000_000..<10_000_000_000_000).contains(ms) else {
                throw Violation(rule: RecordRule.timestamp, path: stamp.pointer("timestamp"), expected: "epoch milliseconds in [10^12, 10^13)", found: "\(ms)")
            }
            _ = try stamp.optionalString("userRecordName")
            _ = try stamp.optionalString("deviceID")
            return (ms, stamp.givenMembers(["timestamp", "userRecordName", "deviceID"]))
        }
        guard let (ms, value) = stamp ?? nil else { return nil }
        canonical[key] = value
        return ms
    }

    /// One field against its declaration: ciphertext sent as text first (the leak REC-ENC-001
    /// exists for), then the type, CloudKit encryption, ciphertext size and the field's own rules.
    static func field(_ raw: JSONValue, as spec: FieldSpec, at path: JSONPointer) throws(Violation) -> FieldValue {
        if spec.encrypted, case .string(let type)? = raw["type"], !type.hasByteSuffix(FieldType.bytes.rawValue) {
            throw Violation(rule: RecordRule.encrypted, path: path / "type", expected: "BYTES (ciphertext)", found: JSONSerializer.quoted(type))
        }
        let value = try FieldValue.decode(raw, at: path)
        guard value.type == spec.type || spec.alternativeTypes.contains(value.type) else {
            throw Violation(rule: RecordRule.fieldType, path: path / "type", expected: spec.typeDescription, found: value.typeName)
        }
        if spec.cloudEncrypted && !value.cloudEncrypted {
            throw Violation(
                rule: RecordRule.cloudEncrypted, path: path / "type", expected: "ENCRYPTED_\(value.type.rawValue) (the model encrypts this attribute)", found: value.typeName)
        }
        if !spec.cloudEncrypted && value.cloudEncrypted {
            throw Violation(rule: RecordRule.fieldType, path: path / "type", expected: spec.typeDescription, found: value.typeName)
        }
        if spec.encrypted, (value.bytes?.count ?? 0) < 28 {
            throw Violation(rule: RecordRule.encrypted, path: path / "value", expected: "ciphertext of at least 28 bytes (12-byte nonce, 16-byte tag)", found: "\(value.bytes?.count ?? 0) bytes")
        }
        try spec.check(value, path)
        return value
    }

    /// A large value Core Data moved into an asset: `<name>_ckAsset`, an ASSETID.
    static func assetField(_ raw: JSONValue, at path: JSONPointer) throws(Violation) -> FieldValue {
        let value = try FieldValue.decode(raw, at: path)
        guard value.type == .assetID else {
            throw Violation(rule: RecordRule.fieldType, path: path / "type", expected: FieldType.assetID.rawValue, found: value.typeName)
        }
        return value
    }
}

extension FieldSpec {
    /// The declared type as a reader sees it: `ENCRYPTED_BYTES`, `STRING or DOUBLE`.
    var typeDescription: String {
        ([type] + alternativeTypes).map { (cloudEncrypted ? "ENCRYPTED_" : "") + $0.rawValue }.joined(separator: " or ")
    }
}

extension RecordModel {
    /// This type's fields' names, and the asset form of those that have one.
    var declaredNames: Set<ByteString> {
        Set(fields.flatMap { [ByteString($0.name)] + ($0.assetAlternative ? [ByteString($0.name + "_ckAsset")] : []) })
    }
}
