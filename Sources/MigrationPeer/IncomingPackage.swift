import Foundation
import Migration
import MigrationPackage
import WireCore

/// The receiver's side on disk: `backup-{id}.enc.tmp` written at chunk offsets, and the resume
/// journal beside it (seed 000 §8; Spec migration.md MIG-XFER-003). The journal is replaced by
/// rename after the chunks it lists were written, so a killed process resumes exactly; it is not
/// synced, so a power cut may lose acknowledged chunks (they are then asked for again).
public struct IncomingPackage: Sendable {
    public let folder: URL

    public init(folder: URL) { self.folder = folder }

    static let journalName = "transfer-journal.json"
    var journalURL: URL { folder.appendingPathComponent(Self.journalName) }

    public func temporaryFile(_ meta: ControlMessage.BackupMeta) -> URL { folder.appendingPathComponent("backup-\(meta.backupId).enc.tmp") }
    public func finalFile(_ meta: ControlMessage.BackupMeta) -> URL { folder.appendingPathComponent("backup-\(meta.backupId).enc") }

    /// The journal of an interrupted transfer, if its file is still there.
    public func journal() throws -> TransferJournal? {
        guard let data = FileManager.default.contents(atPath: journalURL.path) else { return nil }
        let journal: TransferJournal
        do throws(Violation) {
            journal = try Self.decode(try JSONParser.parse([UInt8](data)))
        } catch {
            throw TransferFailure("\(journalURL.path) is damaged (\(error)); remove it to start over")
        }
        // A file-first transfer resumes into its file, a streamed one from its checkpoint.
        guard FileManager.default.fileExists(atPath: temporaryFile(journal.meta).path) || StreamedRestore.hasCheckpoint(in: folder) else { return nil }
        return journal
    }

    func open(_ meta: ControlMessage.BackupMeta) throws -> FileHandle {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = temporaryFile(meta)
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw TransferFailure("cannot create \(url.path)") }
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(meta.fileSize))
        return handle
    }

    func save(_ journal: TransferJournal) throws {
        let text = JSONSerializer.compact(Self.encode(journal))
        try FileSystem.writeAtomically(to: journalURL, sync: false) { try $0.write(contentsOf: Data(text.utf8)) }
    }

    /// After the restore: the package and the journal are no longer needed.
    func finish(_ meta: ControlMessage.BackupMeta) {
        try? FileSystem.removeIfPresent(journalURL)
        try? FileSystem.removeIfPresent(finalFile(meta))
        try? FileManager.default.removeItem(at: folder)
    }

    static func encode(_ journal: TransferJournal) -> JSONValue {
        var o = JSONObject()
        o["meta"] = ControlMessage.backupMeta(journal.meta).json["payload"]
        o["resumeToken"] = .string(journal.resumeToken)
        o["senderSessionId"] = .string(journal.senderSessionId)
        o["have"] = .array(journal.have.map { .array([.number(JSONNumber(Int64($0.lowerBound))), .number(JSONNumber(Int64($0.upperBound)))]) })
        return .object(o)
    }

    static func decode(_ value: JSONValue) throws(Violation) -> TransferJournal {
        guard case .backupMeta(let meta) = try ControlMessage.decode(["type": "BackupMeta", "payload": value["meta"] ?? .null]),
            case .resumeTransfer(let resume) = try ControlMessage.decode([
                "type": "ResumeTransfer",
                "payload": ["backupId": .string(meta.backupId), "resumeToken": value["resumeToken"] ?? .null, "have": value["have"] ?? .null],
            ]), let token = resume.resumeToken, let have = resume.have, case .string(let sender)? = value["senderSessionId"]
        else {
            throw Violation(rule: MigrationRule.resume, path: .root, expected: "a transfer journal", found: "something else")
        }
        return TransferJournal(meta: meta, resumeToken: token, senderSessionId: sender, have: have)
    }
}
