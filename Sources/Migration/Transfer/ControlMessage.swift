import Foundation
import WireCore

/// The control messages of seed 000 §3.3, `{type, payload}` in WebSocket text frames
/// (Spec migration.md §5). Names are the seed's.
public enum ControlMessage: Sendable, Hashable {
    case handshake(Handshake)
    case authPIN(AuthPIN)
    case startBackup
    case backupMeta(BackupMeta)
    case startTransfer(backupId: String, window: Int)
    case pauseTransfer(backupId: String)
    case resumeTransfer(ResumeTransfer)
    case cancelTransfer(backupId: String?, reason: CancelReason)
    case chunkAck(backupId: String, index: Int, status: ChunkStatus)
    case complete(Complete)

    public static let types = [
        "Handshake", "AuthPIN", "StartBackup", "BackupMeta", "StartTransfer", "PauseTransfer", "ResumeTransfer", "CancelTransfer",
        "ChunkAck", "Complete",
    ]
    public static let maxWindow = 64
    public static let chunkSizes: ClosedRange<Int> = 4096...(16 << 20)

    public struct Handshake: Sendable, Hashable {
        public enum Role: String, Sendable { case sender, receiver }
        public var role: Role
        public var sessionId: String
        public var appVersion: String
        public var schemaVersion: Int64
        public var deviceName: String
        public var maxWindow: Int
        public var maxChunkSize: Int

        public init(role: Role, sessionId: String, appVersion: String, schemaVersion: Int64, deviceName: String, maxWindow: Int, maxChunkSize: Int) {
            self.role = role
            self.sessionId = sessionId
            self.appVersion = appVersion
            self.schemaVersion = schemaVersion
            self.deviceName = deviceName
            self.maxWindow = maxWindow
            self.maxChunkSize = maxChunkSize
        }
    }

    /// Seed 000 §3.3 "AuthPIN: PIN 驗證請求和結果": the sender's request, or the receiver's result.
    public enum AuthPIN: Sendable, Hashable {
        case request(pin: String)
        case accepted(resumeToken: String)
        case rejected(attemptsLeft: Int)
        case locked
    }

    public struct BackupMeta: Sendable, Hashable {
        public var backupId: String
        public var fileSize: Int64
        public var chunkSize: Int
        public var chunkCount: Int
        public var envelopeSHA256: String
        public var zipSize: Int64
        public var schemaVersion: Int64
        public var appVersion: String
        /// The envelope's first 97 bytes (MIG-META-002): with it a receiver checks its password
        /// before a single chunk is sent.
        public var envelopeHeader: [UInt8]?

        public init(
            backupId: String, fileSize: Int64, chunkSize: Int, envelopeSHA256: String, zipSize: Int64, schemaVersion: Int64, appVersion: String,
            envelopeHeader: [UInt8]? = nil
        ) {
            self.backupId = backupId
            self.fileSize = fileSize
            self.chunkSize = chunkSize
            self.chunkCount = Int((fileSize + Int64(chunkSize) - 1) / Int64(chunkSize))
            self.envelopeSHA256 = envelopeSHA256
            self.zipSize = zipSize
            self.schemaVersion = schemaVersion
            self.appVersion = appVersion
            self.envelopeHeader = envelopeHeader
        }

        public func chunkLength(_ index: Int) -> Int {
            index + 1 < chunkCount ? chunkSize : Int(fileSize - Int64(chunkSize) * Int64(chunkCount - 1))
        }
    }

    /// After a pause (same connection): just the backup. After a reconnect: the token from
    /// AuthPIN and the chunks the receiver holds, as half-open ranges.
    public struct ResumeTransfer: Sendable, Hashable {
        public var backupId: String
        public var resumeToken: String?
        public var window: Int?
        public var have: [Range<Int>]?

        public init(backupId: String, resumeToken: String? = nil, window: Int? = nil, have: [Range<Int>]? = nil) {
            self.backupId = backupId
            self.resumeToken = resumeToken
            self.window = window
            self.have = have
        }
    }

    public enum CancelReason: String, CaseIterable, Sendable {
        case userCancelled = "user-cancelled"
        case userDeclined = "user-declined"
        case schemaIncompatible = "schema-incompatible"
        case insufficientSpace = "insufficient-space"
        case pinLocked = "pin-locked"
        case digestMismatch = "digest-mismatch"
        case tooManyRetransmits = "too-many-retransmits"
        case timeout = "timeout"
        case protocolError = "protocol-error"
        /// The receiver's password does not open the envelope header (MIG-META-002).
        case wrongPassword = "wrong-password"
        /// A file of the sender's store changed after the package was planned (MIG-XFER-008).
        case storeChanged = "store-changed"
    }

    public enum ChunkStatus: String, Sendable { case ok, retransmit }

    public enum Complete: Sendable, Hashable {
        /// The sender: every chunk acknowledged.
        case sent(backupId: String, chunkCount: Int, envelopeSHA256: String)
        /// The receiver: the whole file's digest checked.
        case verified(backupId: String)
        case digestMismatch(backupId: String)
    }
}
