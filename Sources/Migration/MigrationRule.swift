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

    public static let all: [RuleID] = [
        envelopeMagic, envelopeVersion, envelopeParameters, envelopePassword, envelopeHeaderMAC, envelopeTruncated,
        envelopeExtended, envelopeReordered, envelopeSegment,
    ]
}
