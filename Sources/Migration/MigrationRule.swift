import WireCore

/// Rule ids of the migration chapter (`Spec/migration.md`).
public enum MigrationRule {
    public static let envelopeMagic: RuleID = "MIG-ENV-001"
    public static let envelopeVersion: RuleID = "MIG-ENV-002"
    public static let envelopeParameters: RuleID = "MIG-ENV-003"
    public static let envelopePassword: RuleID = "MIG-ENV-004"
    public static let envelopeHeaderMAC: RuleID = "MIG-ENV-005"
    public static let envelopeTruncated: RuleID = "MIG-ENV-006"
    public static let envelopeExtended: RuleID = "MIG-ENV-007"
    public static let envelopeReordered: RuleID = "MIG-ENV-008"
    public static let envelopeSegment: RuleID = "MIG-ENV-009"

    public static let seconds: RuleID = "MIG-TIME-001"
    public static let uuid: RuleID = "MIG-ID-001"
    public static let uniqueIDs: RuleID = "MIG-ID-002"
    public static let backupID: RuleID = "MIG-MAN-001"
    public static let appVersion: RuleID = "MIG-MAN-002"
    public static let schemaVersion: RuleID = "MIG-MAN-003"
    public static let entityStats: RuleID = "MIG-MAN-004"
    public static let mediaStats: RuleID = "MIG-MAN-005"
    public static let integrity: RuleID = "MIG-MAN-006"
    public static let brokenMedia: RuleID = "MIG-MAN-007"
    public static let category: RuleID = "MIG-EXP-001"
    public static let story: RuleID = "MIG-EXP-002"
    public static let media: RuleID = "MIG-EXP-003"
    public static let setting: RuleID = "MIG-EXP-004"
    public static let counts: RuleID = "MIG-PKG-001"
    public static let brokenConsistency: RuleID = "MIG-PKG-002"
    public static let references: RuleID = "MIG-PKG-003"
    public static let categoryTree: RuleID = "MIG-PKG-004"
    public static let files: RuleID = "MIG-PKG-005"
    public static let archive: RuleID = "MIG-PKG-006"
    public static let masterKey: RuleID = "MIG-PKG-007"

    public static let all: [RuleID] = [
        envelopeMagic, envelopeVersion, envelopeParameters, envelopePassword, envelopeHeaderMAC, envelopeTruncated,
        envelopeExtended, envelopeReordered, envelopeSegment, seconds, uuid, uniqueIDs, backupID, appVersion, schemaVersion,
        entityStats, mediaStats, integrity, brokenMedia, category, story, media, setting, counts, brokenConsistency,
        references, categoryTree, files, archive, masterKey,
    ]
}
