import WireCore

/// Rule ids of the records chapter (`Spec/records.md`).
public enum RecordRule {
    public static let recordName: RuleID = "REC-REC-001"
    public static let recordType: RuleID = "REC-REC-002"
    public static let fieldValue: RuleID = "REC-REC-003"
    public static let fieldType: RuleID = "REC-REC-004"
    public static let requiredField: RuleID = "REC-REC-005"
    public static let changeTag: RuleID = "REC-REC-006"
    public static let stamps: RuleID = "REC-REC-007"
    public static let zone: RuleID = "REC-REC-008"
    public static let timestamp: RuleID = "REC-TIME-001"
    public static let isoTime: RuleID = "REC-TIME-002"
    public static let length: RuleID = "REC-LEN-001"
    public static let ideaIdentity: RuleID = "REC-IDEA-001"
    public static let ideaFields: RuleID = "REC-IDEA-002"
    public static let habitFields: RuleID = "REC-HABIT-001"
    public static let habitLogReference: RuleID = "REC-HLOG-001"
    public static let habitLogDate: RuleID = "REC-HLOG-002"
    public static let mirrored: RuleID = "REC-CD-001"
    public static let encrypted: RuleID = "REC-ENC-001"
    public static let derivedFields: RuleID = "REC-CD-002"
    public static let manyToMany: RuleID = "REC-CD-003"
    public static let cloudEncrypted: RuleID = "REC-ENC-002"
    public static let syncState: RuleID = "REC-SYNC-001"
    public static let syncStateConsistency: RuleID = "REC-SYNC-002"
    public static let syncLog: RuleID = "REC-SLOG-001"
    public static let transitions: RuleID = "REC-STATE-001"
    public static let obsolete: RuleID = "REC-STATE-002"
    public static let retention: RuleID = "REC-SLOG-002"
    public static let batches: RuleID = "REC-BATCH-001"
    public static let initialSync: RuleID = "REC-INIT-001"
    public static let backoff: RuleID = "REC-INIT-002"
    public static let staleTag: RuleID = "REC-CONF-001"
    public static let lastWrite: RuleID = "REC-CONF-002"
    public static let userChoice: RuleID = "REC-CONF-003"
    public static let propertyMerge: RuleID = "REC-CONF-004"
    public static let uniqueConstraint: RuleID = "REC-MODEL-001"
    public static let optionalRelationship: RuleID = "REC-MODEL-002"
    public static let inverse: RuleID = "REC-MODEL-003"
    public static let denyRule: RuleID = "REC-MODEL-004"
    public static let derived: RuleID = "REC-MODEL-005"
    public static let attributeType: RuleID = "REC-MODEL-006"
    public static let requiredDefault: RuleID = "REC-MODEL-007"
    public static let configuration: RuleID = "REC-MODEL-008"
    public static let reservedName: RuleID = "REC-MODEL-009"
    public static let removed: RuleID = "REC-EVOL-001"
    public static let renamed: RuleID = "REC-EVOL-002"
    public static let typeChanged: RuleID = "REC-EVOL-003"
    public static let newRequired: RuleID = "REC-EVOL-004"

    public static let all: [RuleID] = [
        recordName, recordType, fieldValue, fieldType, requiredField, changeTag, stamps, zone, timestamp, isoTime, length,
        ideaIdentity, ideaFields, habitFields, habitLogReference, habitLogDate, mirrored, derivedFields, manyToMany, encrypted, cloudEncrypted, syncState,
        syncStateConsistency, syncLog, transitions, obsolete, retention, batches, initialSync, backoff, staleTag, lastWrite,
        userChoice, propertyMerge, uniqueConstraint, optionalRelationship, inverse, denyRule, derived, attributeType,
        requiredDefault, configuration, reservedName, removed, renamed, typeChanged, newRequired,
    ]
}

/// Lengths in the records family are counted in Unicode scalar values (REC-LEN-001): the one
/// count that is the same in Swift, Kotlin and JavaScript whatever the Unicode version.
public func scalarLength(_ text: String) -> Int { text.unicodeScalars.count }
