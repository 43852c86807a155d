import Foundation
import Migration
import WireCore

/// The receiver's side without a package file (Spec migration.md §5.5): the envelope's bytes, in
/// order and in pieces of any size, are opened and unpacked into staging as they arrive
/// (`EnvelopeStream`, `ZipStream`); once the last one is in, `finish` checks the archive's
/// central directory against what was written, then everything a file-first restore checks, and
/// switches atomically, as `Restorer.restore` does. Disk used beside the new store: its staging
/// copy (which becomes the store by rename) and, for a deflated entry under way, its input.
///
/// `checkpoint()` saves the state after the bytes consumed so far (not synced: a killed process
/// resumes exactly, a power cut may lose the last pieces, as the file-first journal may); a
/// restore started again over the same folder goes on from there.
public final class StreamedRestore {
    public let store: DeviceStore
    public let backupId: String
    private let folder: URL
    private let options: Restorer.Options
    private var envelope: EnvelopeStream
    private let zip: ZipStream

    static let stateName = "stream-state.json"

    /// Resumes the restore of `backupId` that `folder` holds a checkpoint of, or starts one:
    /// then the store is first brought back to a whole state (`StoreTransaction.recover`) and its
    /// staging emptied.
    public init(into store: DeviceStore, state folder: URL, backupId: String, password: String, options: Restorer.Options = Restorer.Options()) throws {
        self.store = store
        self.backupId = backupId
        self.folder = folder
        self.options = options
        let stateURL = folder.appendingPathComponent(Self.stateName)
        if let saved = try Self.saved(stateURL), saved["backupId"]?.stringValue == backupId, let envelopeState = saved["envelope"],
            let zipState = saved["zip"]
        {
            envelope = try EnvelopeStream(resuming: envelopeState, password: password, policy: options.policy)
            zip = try ZipStream(resuming: zipState, staging: store.staging, files: folder, limits: options.limits)
            return
        }
        try StoreTransaction.recover(store)
        let fm = FileManager.default
        try fm.createDirectory(at: store.root, withIntermediateDirectories: true)
        try FileSystem.removeIfPresent(store.staging)
        try fm.createDirectory(at: store.staging, withIntermediateDirectories: true)
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        envelope = EnvelopeStream(password: password, policy: options.policy)
        zip = try ZipStream(staging: store.staging, files: folder, limits: options.limits)
    }

    /// Whether `folder` holds a checkpoint of a streamed restore.
    public static func hasCheckpoint(in folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(stateName).path)
    }

    private static func saved(_ url: URL) throws -> JSONValue? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do throws(Violation) {
            return try JSONParser.parse([UInt8](data))
        } catch {
            throw PackageError.io("\(url.path) is damaged (\(error)); remove it to start over")
        }
    }

    /// Envelope bytes consumed so far.
    public var consumed: Int64 { envelope.consumed }

    /// The next bytes of the envelope. A failure ends the restore: staging and the checkpoint are
    /// removed, the store is as it was.
    public func consume(_ bytes: UnsafeRawBufferPointer) throws {
        let zip = self.zip
        do {
            try envelope.consume(bytes) { try zip.consume($0) }
        } catch {
            abandon()
            throw error
        }
    }

    /// Saves the state after every byte consumed so far.
    public func checkpoint() throws {
        let state: JSONValue = ["backupId": .string(backupId), "envelope": envelope.checkpoint(), "zip": zip.checkpoint()]
        try FileSystem.writeAtomically(to: folder.appendingPathComponent(Self.stateName), sync: false) {
            try $0.write(contentsOf: Data(JSONSerializer.compact(state).utf8))
        }
    }

    /// Whether the whole envelope went through, every segment opened and nothing after the last.
    public var isComplete: Bool { envelope.isFinished }

    /// The SHA-256 of the whole envelope, when this process saw every byte of it: after a restart
    /// from a checkpoint the running digest is gone, and the segments' authentication stands in
    /// for it (§5.5).
    public var envelopeSHA256: String? { envelope.sha256 }

    /// Checks the archive as a whole and everything a restore checks, then switches. Staging is
    /// removed whatever happens; on a failure before the switch the store is as it was.
    public func finish(checkpoint: StoreTransaction.Checkpoint = { _ in }) throws -> Restorer.Result {
        defer { try? FileSystem.removeIfPresent(store.staging) }
        do {
            try envelope.finish()
            guard zip.isBetweenRecords, let start = zip.directoryStart, let folder = zip.packageFolder else {
                throw PackageArchive.unreadable("the archive ends at \(zip.position) without its central directory")
            }
            var tail = try DirectoryTail(file: zip.directoryFile, start: start, length: zip.position)
            let archive = try PackageArchive.inspect(&tail, limits: options.limits)
            let directory = try ZipDirectory.read(&tail, maxEntries: options.limits.maxEntries)
            let written = try zip.written()
            try Self.agree(directory.entries, with: written)
            guard archive.folder.bytesEqual(folder) else {
                throw PackageArchive.invalid("every entry inside one Backup-{backupId}/ folder", JSONSerializer.quoted(archive.folder), at: .root)
            }
            var files: FileInventory = [:]
            var listing: [(path: String, size: Int64)] = []
            for entry in written where !entry.isFolder {
                let path = PackagePath.relative(entry.path, below: folder) ?? entry.path
                files[path] = (entry.size, entry.sha256)
                if path != PackagePath.manifest { listing.append((path, entry.size)) }
            }
            try checkpoint("extracted")
            try Restorer.checkListed(listing, in: try Restorer.decodeManifest(store.staging, supportedSchemaVersion: options.supportedSchemaVersion))
            let result = try Restorer.commit(store, folder: folder, files: files, options: options, checkpoint: checkpoint)
            abandon()
            return result
        } catch let error as PackageError {
            try? Restorer.cleanUpBeforeCommit(store)
            throw error
        }
    }

    /// Removes the checkpoint and the stream's files (staging goes with `finish`, or here).
    public func abandon() {
        try? FileSystem.removeIfPresent(store.staging)
        for name in [Self.stateName, "stream-entries.jsonl", "stream-directory.bin", "stream-inflate.bin"] {
            try? FileSystem.removeIfPresent(folder.appendingPathComponent(name))
        }
    }

    /// The central directory lists exactly the entries whose local headers were read, each
    /// agreeing with its header (MIG-PKG-006).
    static func agree(_ directory: [ZipEntry], with written: [ZipStream.Written]) throws {
        let byOffset = Dictionary(written.map { ($0.offset, $0) }, uniquingKeysWith: { a, _ in a })
        for entry in directory {
            let at = JSONPointer.root / "entries" / entry.path
            guard let local = byOffset[entry.localHeaderOffset] else {
                throw PackageArchive.invalid("an entry whose local header was read at its offset", "no local header at \(entry.localHeaderOffset)", at: at)
            }
            if let differs = entry.disagreement(withLocalHeader: local.header) {
                throw PackageArchive.invalid("a local header that agrees with the central directory", differs, at: at)
            }
            // With a data descriptor the local header states no size: what was written must be the directory's.
            guard entry.kind != .file || entry.size == local.size else {
                throw PackageArchive.invalid("its declared \(entry.size) bytes", "\(local.size) written", at: at)
            }
        }
        if directory.count != written.count {
            let listed = Set(directory.map(\.localHeaderOffset))
            if let stray = written.first(where: { !listed.contains($0.offset) }) {
                throw PackageArchive.invalid("an entry the central directory lists", "a local entry at \(stray.offset) it does not list", at: .root / "entries" / stray.path)
            }
        }
    }
}

/// The zip's end as a receiver that streamed it keeps it: the central directory and the end
/// records, from `start` on. Bytes before `start` read as zeros: only the end record search looks
/// there, and zeros hold no signature.
struct DirectoryTail: ZipBytes {
    private let reader: FileReader
    private let start: Int64
    let length: Int64

    init(file: URL, start: Int64, length: Int64) throws {
        reader = try FileReader(file)
        self.start = start
        self.length = length
    }

    func read(_ range: Range<Int64>) throws -> [UInt8] {
        let zeros = Int(max(0, min(range.upperBound, start) - range.lowerBound))
        let from = max(range.lowerBound, start)
        var bytes = [UInt8](repeating: 0, count: zeros)
        if from < range.upperBound {
            let kept = try reader.read(at: from - start, Int(range.upperBound - from))
            guard kept.count == Int(range.upperBound - from) else { throw PackageError.io("the kept central directory ends early") }
            bytes += kept
        }
        return bytes
    }

    func stream(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        throw PackageError.io("a streamed zip is not read again")
    }
}
