import Foundation
import WireCore

/// One declared field of a record type.
public struct FieldSpec: Sendable {
    public var name: String {
        didSet { derive() }
    }
    /// `/fields/<name>` and `<name>_ckAsset`, made once: validation needs them for every field
    /// of every record (building them there cost `bench --records` about 15 % of its speed).
    public private(set) var pointer: JSONPointer = .root
    public private(set) var assetName = ""
    public var type: FieldType
    public var required: Bool
    /// The value when the field is absent (seed 004: `maxCheckInCount` defaults to 5); it
    /// appears in the canonical form.
    public var defaultValue: JSONValue?
    /// Holds ciphertext (seed 003): BYTES of at least a nonce and a tag (REC-ENC-001).
    public var encrypted: Bool
    /// Travels as `ENCRYPTED_<type>` (Core Data's `allowsCloudEncryption`, REC-ENC-002).
    public var cloudEncrypted = false
    /// Other types a writer may use for this field (Core Data's Decimal, REC-CD-002).
    public var alternativeTypes: [FieldType] = []
    /// May arrive instead as `<name>_ckAsset`, an ASSETID: Core Data moves a large value into
    /// an asset (REC-CD-002).
    public var assetAlternative = false
    /// The field's own rules, after its type has been checked.
    public var check: @Sendable (FieldValue, JSONPointer) throws(Violation) -> Void

    public init(
        _ name: String, _ type: FieldType, required: Bool = true, defaultValue: JSONValue? = nil, encrypted: Bool = false,
        check: @escaping @Sendable (FieldValue, JSONPointer) throws(Violation) -> Void = { _, _ throws(Violation) in }
    ) {
        self.name = name
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
        self.encrypted = encrypted
        self.check = check
        derive()
    }

    private mutating func derive() {
        pointer = .root / "fields" / name
        assetName = name + "_ckAsset"
    }
}

extension FieldSpec {
    /// The same field, which Core Data may move into `<name>_ckAsset` when it outgrows the record.
    func externalizable() -> FieldSpec {
        var copy = self
        copy.assetAlternative = true
        return copy
    }
}

/// A record type: its fields and the rules that span fields.
public struct RecordModel: Sendable {
    public var recordType: String
    public var fields: [FieldSpec]
    /// Every field is declared: one the model does not have is reported (REC-CD-002). The
    /// Spec's own types list only the fields it rules on and pass others through.
    public var closed = false
    /// Of a closed type: names Core Data never writes on it (a to-many relationship's, an asset of
    /// a fixed-size property, the `CDMR` fields), reported even where a newer model version's
    /// fields are let through (REC-CD-002).
    public var neverWritten: Set<String> = []
    /// Of a closed type: whether a newer app version can add fields to it (an entity's type can;
    /// Core Data's `CDMR` link record has exactly its three fields in every version).
    public var newerVersionsAddFields = true
    /// Rules across fields (and the record name), run after every field passed.
    public var check: @Sendable (DecodedRecord) throws(Violation) -> Void

    public init(_ recordType: String, fields: [FieldSpec], check: @escaping @Sendable (DecodedRecord) throws(Violation) -> Void = { _ throws(Violation) in }) {
        self.recordType = recordType
        self.fields = fields
        self.check = check
    }

    /// The Core Data mirroring of this model (seed 003): record type and fields prefixed `CD_`,
    /// plus `CD_entityName` naming the entity (REC-CD-001).
    public func mirrored() -> RecordModel {
        let entity = recordType
        let original = self
        var fields = [
            FieldSpec("CD_entityName", .string) { value, path throws(Violation) in
                guard value.string == entity else {
                    throw Violation(rule: RecordRule.mirrored, path: path / "value", expected: JSONSerializer.quoted(entity), found: value.value.brief)
                }
            }
        ]
        fields += self.fields.map { spec in
            var copy = spec
            copy.name = "CD_" + spec.name
            return copy
        }
        return RecordModel("CD_" + recordType, fields: fields) { record throws(Violation) in
            // The cross-field rules read the unprefixed names.
            var plain = record
            plain.fields = Dictionary(uniqueKeysWithValues: record.fields.compactMap { key, value in
                key.hasPrefix("CD_") ? (String(key.dropFirst(3)), value) : nil
            })
            plain.fieldPrefix = "CD_"
            try original.check(plain)
        }
    }
}

/// A record after its fields passed: what cross-field rules read.
public struct DecodedRecord: Sendable {
    public var recordName: String
    public var recordType: String
    public var recordChangeTag: String?
    public var fields: [String: FieldValue]
    public var deleted: Bool
    /// `CD_` when cross-field rules see a mirrored record under its plain names.
    public var fieldPrefix = ""
    /// The writer's time zone, when the caller knows it (REC-HLOG-002).
    public var timeZone: TimeZone?

    public func path(_ field: String) -> JSONPointer { .root / "fields" / (fieldPrefix + field) }
}

/// Field rules shared by the models.
enum FieldRules {
    static func nonBlank(max: Int, rule: RuleID) -> @Sendable (FieldValue, JSONPointer) throws(Violation) -> Void {
        { value, path throws(Violation) in
            let text = value.string ?? ""
            // An ASCII letter or digit first (the usual case) settles it without Unicode tables.
            let first = text.utf8.first ?? 0
            let plainlyNonBlank = first > 0x20 && first < 0x7F
            if !plainlyNonBlank && text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
                throw Violation(rule: rule, path: path / "value", expected: "a non-blank string", found: JSONSerializer.quoted(text))
            }
            try maxLength(max)(value, path)
        }
    }

    static func maxLength(_ max: Int) -> @Sendable (FieldValue, JSONPointer) throws(Violation) -> Void {
        { value, path throws(Violation) in
            let text = value.string ?? ""
            // Every scalar takes at least one byte: counting scalars is needed only beyond `max` bytes.
            guard text.utf8.count > max else { return }
            let length = scalarLength(text)
            guard length <= max else {
                throw Violation(rule: RecordRule.length, path: path / "value", expected: "at most \(max) Unicode scalar values", found: "\(length)")
            }
        }
    }

    static func oneOf(_ allowed: [Int64], rule: RuleID) -> @Sendable (FieldValue, JSONPointer) throws(Violation) -> Void {
        { value, path throws(Violation) in
            guard let v = value.int64, allowed.contains(v) else {
                throw Violation(rule: rule, path: path / "value", expected: "one of \(allowed)", found: value.value.brief)
            }
        }
    }

    static func atLeast(_ minimum: Int64, rule: RuleID) -> @Sendable (FieldValue, JSONPointer) throws(Violation) -> Void {
        { value, path throws(Violation) in
            guard let v = value.int64, v >= minimum else {
                throw Violation(rule: rule, path: path / "value", expected: "≥ \(minimum)", found: value.value.brief)
            }
        }
    }

    static func uuid(rule: RuleID) -> @Sendable (FieldValue, JSONPointer) throws(Violation) -> Void {
        { value, path throws(Violation) in
            let text = value.string ?? ""
            guard isUUIDText(text) else {
                throw Violation(rule: rule, path: path / "value", expected: "a UUID", found: JSONSerializer.quoted(text))
            }
        }
    }

    /// `updatedAt` (or any later time) not before `createdAt`.
    static func notBefore(_ later: String, _ earlier: String, rule: RuleID, in record: DecodedRecord) throws(Violation) {
        guard let a = record.fields[later]?.int64, let b = record.fields[earlier]?.int64 else { return }
        guard a >= b else {
            throw Violation(rule: rule, path: record.path(later) / "value", expected: "at or after \(earlier) \(b)", found: "\(a)")
        }
    }
}

