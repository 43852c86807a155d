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

    public static let message: RuleID = "MIG-MSG-001"
    public static let handshake: RuleID = "MIG-MSG-002"
    public static let authPIN: RuleID = "MIG-MSG-003"
    public static let backupMeta: RuleID = "MIG-MSG-004"
    public static let transferControl: RuleID = "MIG-MSG-005"
    public static let chunkAck: RuleID = "MIG-MSG-006"
    public static let cancel: RuleID = "MIG-MSG-007"
    public static let complete: RuleID = "MIG-MSG-008"
    public static let chunkHeader: RuleID = "MIG-CHUNK-001"
    public static let chunkBounds: RuleID = "MIG-CHUNK-002"
    public static let chunkPlace: RuleID = "MIG-CHUNK-003"
    public static let chunkDigest: RuleID = "MIG-CHUNK-004"
    public static let pinDraw: RuleID = "MIG-PIN-001"
    public static let pinAttempts: RuleID = "MIG-PIN-002"
    public static let pinLockout: RuleID = "MIG-PIN-003"
    public static let metaChecks: RuleID = "MIG-META-001"
    public static let passwordFirst: RuleID = "MIG-META-002"
    public static let window: RuleID = "MIG-XFER-001"
    public static let retransmit: RuleID = "MIG-XFER-002"
    public static let resume: RuleID = "MIG-XFER-003"
    public static let finalDigest: RuleID = "MIG-XFER-004"
    public static let timeouts: RuleID = "MIG-XFER-005"
    public static let order: RuleID = "MIG-XFER-006"
    public static let greeting: RuleID = "MIG-XFER-007"
    public static let snapshot: RuleID = "MIG-XFER-008"
    public static let streamedPackage: RuleID = "MIG-XFER-009"
    public static let frames: RuleID = "MIG-WS-001"
    /// The store after a session: the package's files once verified, else as it was (§4).
    public static let restore: RuleID = "MIG-REST-001"

    public static let transfer: [RuleID] = [
        message, handshake, authPIN, backupMeta, transferControl, chunkAck, cancel, complete, chunkHeader, chunkBounds,
        chunkPlace, chunkDigest, pinDraw, pinAttempts, pinLockout, metaChecks, passwordFirst, window, retransmit, resume, finalDigest,
        timeouts, order, greeting, snapshot, streamedPackage, frames,
    ]

    public static let all: [RuleID] = transfer + [
        envelopeMagic, envelopeVersion, envelopeParameters, envelopePassword, envelopeHeaderMAC, envelopeTruncated,
        envelopeExtended, envelopeReordered, envelopeSegment, seconds, uuid, uniqueIDs, backupID, appVersion, schemaVersion,
        entityStats, mediaStats, integrity, brokenMedia, category, story, media, setting, counts, brokenConsistency,
        references, categoryTree, files, archive, masterKey, restore,
    ]
}
