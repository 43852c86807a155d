import Foundation
import Migration
import MigrationPackage

/// The receiver's chunks going straight into a streamed restore (Spec migration.md §5.5): in
/// index order into the envelope's opener and the zip's reader; a chunk that arrives ahead of a
/// missing one (a lost chunk, a retransmit, a resume) is kept aside on disk until the gap is
/// filled. The machine acknowledges no kept chunk before the gap fills, so the sender's window
/// bounds them; `maxAhead` only guards against a machine that did. A chunk is unpacked and the
/// checkpoint saved before the machine's journal lists it and its acknowledgement goes out
/// (MIG-XFER-003).
final class IncomingStream {
    let restore: StreamedRestore
    let meta: ControlMessage.BackupMeta
    private let ahead: URL
    private let maxAhead: Int
    /// The next chunk to unpack.
    private var next: Int

    /// Starts, or resumes from the checkpoint `folder` holds.
    init(_ meta: ControlMessage.BackupMeta, folder: URL, target: ReceiverPeer.Streaming, maxAhead: Int) throws {
        var options = target.restore
        options.expectedBackupId = meta.backupId
        restore = try StreamedRestore(into: target.store, state: folder, backupId: meta.backupId, password: target.password, options: options)
        self.meta = meta
        self.maxAhead = maxAhead
        ahead = folder.appendingPathComponent("ahead")
        // Checkpoints fall on chunk boundaries: every chunk is unpacked whole before one is saved.
        next = Int(restore.consumed / Int64(meta.chunkSize))
        try FileManager.default.createDirectory(at: ahead, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: ahead.path) where Int(name).map({ $0 < next }) ?? true {
            try FileSystem.removeIfPresent(ahead.appendingPathComponent(name))
        }
    }

    private func keptAside(_ index: Int) -> URL { ahead.appendingPathComponent(String(index)) }

    /// Chunk `index`'s verified data, in whatever order it came. Throws `PackageError` when the
    /// package breaks a rule (the restore is then abandoned), or when the sender ran more than
    /// `maxAhead` chunks past a missing one.
    func write(_ index: Int, _ data: ArraySlice<UInt8>) throws {
        guard index >= next else { return }  // unpacked already: its acknowledgement was lost
        guard index == next else {
            let url = keptAside(index)
            guard !FileManager.default.fileExists(atPath: url.path) else { return }
            let kept = try FileManager.default.contentsOfDirectory(atPath: ahead.path).count
            guard kept < maxAhead else { throw TransferFailure("chunk \(index) arrived more than \(maxAhead) chunks ahead of chunk \(next), which is missing") }
            try FileSystem.writeAtomically(to: url, sync: false) { try $0.write(contentsOf: data) }
            return
        }
        try data.withUnsafeBytes { try restore.consume($0) }
        next += 1
        var used: [URL] = []
        while case let url = keptAside(next), let bytes = FileManager.default.contents(atPath: url.path) {
            try bytes.withUnsafeBytes { try restore.consume($0) }
            used.append(url)
            next += 1
        }
        try restore.checkpoint()
        // Only now: until the checkpoint lists them, a restart needs them.
        for url in used { try FileSystem.removeIfPresent(url) }
    }

    /// MIG-XFER-004 for a receiver without the file: every segment opened, and the envelope's
    /// digest equal to the one announced when this process saw every byte (§5.5).
    var verified: Bool {
        restore.isComplete && (restore.envelopeSHA256.map { $0 == meta.envelopeSHA256 } ?? true)
    }
}
