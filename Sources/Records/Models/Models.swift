import Foundation
import WireCore

/// The record types of seeds 001, 003 and 004, and their Core Data mirrorings.
public enum Models {
    /// Seed 001 "CloudKit 映射": Idea.
    public static let idea = RecordModel(
        "Idea",
        fields: [
            FieldSpec("id", .string, check: FieldRules.uuid(rule: RecordRule.ideaIdentity)),
            FieldSpec("title", .string, check: FieldRules.nonBlank(max: 256, rule: RecordRule.ideaFields)),
            FieldSpec("description", .string, required: false, check: FieldRules.maxLength(4096)),
            FieldSpec("isCompleted", .int64, check: FieldRules.oneOf([0, 1], rule: RecordRule.ideaFields)),
            FieldSpec("createdAt", .timestamp),
            FieldSpec("updatedAt", .timestamp),
            FieldSpec("deviceId", .string, check: FieldRules.nonBlank(max: 256, rule: RecordRule.ideaFields)),
            FieldSpec("version", .int64, check: FieldRules.atLeast(0, rule: RecordRule.ideaFields)),
            FieldSpec("lastSyncedAt", .timestamp, required: false),
        ]
    ) { record throws(Violation) in
        try FieldRules.notBefore("updatedAt", "createdAt", rule: RecordRule.ideaFields, in: record)
        // The record is named by the idea's id (seed 001: "id (String) // 主鍵").
        if let id = record.fields["id"]?.string, id != record.recordName, id.lowercased() != record.recordName.lowercased(), record.fieldPrefix.isEmpty {
            throw Violation(rule: RecordRule.ideaIdentity, path: .root / "recordName", expected: "the idea's id \(id)", found: JSONSerializer.quoted(record.recordName))
        }
    }

    static let habitTypes = ["Checkbox", "Count"]

    /// Seed 004 §3: Habit.
    public static let habit = RecordModel(
        "Habit",
        fields: [
            FieldSpec("name", .string, check: FieldRules.nonBlank(max: 256, rule: RecordRule.habitFields)),
            FieldSpec("emoji", .string) { value, path throws(Violation) in
                let n = scalarLength(value.string ?? "")
                guard n >= 1 && n <= 16 else {
                    throw Violation(rule: RecordRule.habitFields, path: path / "value", expected: "1 to 16 Unicode scalar values (one emoji)", found: "\(n)")
                }
            },
            FieldSpec("colorTheme", .string, check: FieldRules.nonBlank(max: 64, rule: RecordRule.habitFields)),
            FieldSpec("habitType", .string) { value, path throws(Violation) in
                guard habitTypes.contains(value.string ?? "") else {
                    throw Violation(rule: RecordRule.habitFields, path: path / "value", expected: "\"Checkbox\" or \"Count\"", found: value.value.brief)
                }
            },
            FieldSpec("createdAt", .timestamp),
            FieldSpec("backgroundColor", .string, required: false) { value, path throws(Violation) in
                let text = value.string ?? ""
                let hex = Array(text.utf8.dropFirst())
                guard text.hasPrefix("#"), hex.count == 6, hex.allSatisfy(Hex.isDigit) else {
                    throw Violation(rule: RecordRule.habitFields, path: path / "value", expected: "#RRGGBB", found: JSONSerializer.quoted(text))
                }
            },
            FieldSpec("maxCheckInCount", .int64, required: false, defaultValue: 5, check: FieldRules.atLeast(1, rule: RecordRule.habitFields)),
            FieldSpec("updatedAt", .timestamp, required: false),
            FieldSpec("isArchived", .int64, required: false, check: FieldRules.oneOf([0, 1], rule: RecordRule.habitFields)),
        ]
    ) { record throws(Violation) in
        try FieldRules.notBefore("updatedAt", "createdAt", rule: RecordRule.habitFields, in: record)
    }

    /// Seed 004 §3: HabitLog, whose `habit` is a REFERENCE to a Habit.
    public static let habitLog = RecordModel(
        "HabitLog",
        fields: [
            FieldSpec("habit", .reference) { value, path throws(Violation) in
                let action = value.value["action"]?.stringValue ?? "NONE"
                guard action == "NONE" || action == "DELETE_SELF" else {
                    throw Violation(rule: RecordRule.habitLogReference, path: path / "value" / "action", expected: "NONE or DELETE_SELF", found: JSONSerializer.quoted(action))
                }
            },
            FieldSpec("date", .timestamp) { value, path throws(Violation) in
                // "只存储日期部分": a day's start in some time zone. UTC offsets are whole quarter
                // hours, so without the writer's zone a day's start is a multiple of 15 minutes.
                guard let ms = value.int64, ms % 900_000 == 0 else {
                    throw Violation(
                        rule: RecordRule.habitLogDate, path: path / "value", expected: "the start of a day (a multiple of 900000 ms: midnight in some time zone)",
                        found: value.value.brief)
                }
            },
            FieldSpec("count", .int64, check: FieldRules.atLeast(0, rule: RecordRule.habitFields)),
            FieldSpec("createdAt", .timestamp, required: false),
            FieldSpec("updatedAt", .timestamp, required: false),
        ]
    ) { record throws(Violation) in
        try FieldRules.notBefore("updatedAt", "createdAt", rule: RecordRule.habitFields, in: record)
        try startOfDay("date", rule: RecordRule.habitLogDate, in: record)
    }

    /// With the writer's time zone known, a day is that zone's midnight or UTC's (REC-HLOG-002).
    static func startOfDay(_ field: String, rule: RuleID, in record: DecodedRecord) throws(Violation) {
        guard let zone = record.timeZone, let ms = record.fields[field]?.int64, ms % 86_400_000 != 0 else { return }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let date = Date(timeIntervalSince1970: Double(ms) / 1000)
        guard calendar.startOfDay(for: date) != date else { return }
        throw Violation(
            rule: rule, path: record.path(field) / "value", expected: "the start of a day in \(zone.identifier) or in UTC", found: "\(ms)")
    }

    /// Seed 003 (QuickVault, Core Data mirrored): a card and its encrypted fields and attachments.
    static let card = RecordModel(
        "Card",
        fields: [
            FieldSpec("id", .string, check: FieldRules.uuid(rule: RecordRule.mirrored)),
            FieldSpec("title", .string, check: FieldRules.nonBlank(max: 256, rule: RecordRule.mirrored)),
            FieldSpec("createdAt", .timestamp),
            FieldSpec("updatedAt", .timestamp),
        ]
    ) { record throws(Violation) in
        try FieldRules.notBefore("updatedAt", "createdAt", rule: RecordRule.mirrored, in: record)
    }

    static let cardField = RecordModel(
        "CardField",
        fields: [
            FieldSpec("id", .string, check: FieldRules.uuid(rule: RecordRule.mirrored)),
            // To-one relationships are mirrored as the related record's name, and are optional (seed 003 §Core Data 模型要求 2).
            FieldSpec("card", .string, required: false) { value, path throws(Violation) in try checkRecordName(value.string ?? "", at: path / "value") },
            FieldSpec("label", .string, check: FieldRules.maxLength(256)),
            FieldSpec("encryptedValue", .bytes, encrypted: true).externalizable(),
            FieldSpec("order", .int64, check: FieldRules.atLeast(0, rule: RecordRule.mirrored)),
        ])

    static let cardAttachment = RecordModel(
        "CardAttachment",
        fields: [
            FieldSpec("id", .string, check: FieldRules.uuid(rule: RecordRule.mirrored)),
            FieldSpec("card", .string, required: false) { value, path throws(Violation) in try checkRecordName(value.string ?? "", at: path / "value") },
            FieldSpec("fileName", .string, check: FieldRules.nonBlank(max: 255, rule: RecordRule.mirrored)),
            FieldSpec("encryptedData", .bytes, required: false, encrypted: true).externalizable(),
            // QuickVault's attribute; the design's `mimeType` never shipped (Spec records.md, evidence).
            FieldSpec("fileType", .string, required: false),
        ])

    public static let all: [RecordModel] = [
        idea, habit, habitLog, card.mirrored(), cardField.mirrored(), cardAttachment.mirrored(),
    ]

    public static func named(_ recordType: String) -> RecordModel? { all.first { $0.recordType == recordType } }
}
