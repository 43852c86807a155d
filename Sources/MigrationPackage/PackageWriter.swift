import Foundation
import Migration
import WireCore

/// Writes the package's zip straight into its envelope, in one pass and on two threads: files are
/// read and digested (`FileDigests`, which both threads work for), and the caller's thread reads
/// each digested file again and seals it with its zip header. Nothing the size of the package is
/// ever held or written twice: no zip on disk.
///
/// A file whose size or modification time (to the nanosecond) changes between planning and the end
/// of its second read is `storeChanged`.
struct PackageWriter {
    /// One file to put in the zip: its path in the package and where to read it.
    struct Item {
        var path: String
        var source: URL
    }

    let items: [Item]
    let sizes: [Int64]
    /// Each file's size and modification time when the zip was planned: the snapshot.
    let stamps: [FileSystem.FileStamp]
    private let manifestPath: String
    private let manifest: (FileInventory) -> [UInt8]
    private let manifestLength: Int
    let layout: StoredZip

    /// Plans the zip: every file's size, the manifest's length (its digests are fixed-width hex,
    /// so a stand-in inventory gives it) and so the archive's length, which the envelope states
    /// before its first segment. Items go in sorted order, the manifest last.
    init(
        _ items: [Item], manifest manifestPath: String, _ manifest: @escaping (FileInventory) -> [UInt8], folder: String, modified: Int64
    ) throws {
        self.items = items.sorted { $0.path < $1.path }
        stamps = try self.items.map { try FileSystem.stamp(of: $0.source) }
        sizes = stamps.map(\.size)
        var standIn: FileInventory = [:]
        for (item, size) in zip(self.items, sizes) { standIn[item.path] = (size, String(repeating: "0", count: 64)) }
        self.manifestPath = manifestPath
        self.manifest = manifest
        manifestLength = manifest(standIn).count
        let names = (self.items.map(\.path) + [manifestPath]).map { Array((folder + "/" + $0).utf8) }
        layout = StoredZip(zip(names, sizes + [Int64(manifestLength)]).map(StoredZip.Entry.init), modified: modified)
    }

    /// The zip's length in bytes.
    var length: Int64 { layout.length }

    /// What writing found: each file's size and SHA-256, each entry's CRC-32 (the manifest's
    /// last), and the manifest.
    struct Written {
        var inventory: FileInventory
        var crcs: [UInt32]
        var manifest: [UInt8]
    }

    /// Hands header and frames of the envelope, sealed by `sealer`, to `out` in order.
    /// `afterReading` sees each file after its second read, before its check.
    func write(through sealer: EnvelopeSealer, to out: @escaping ([UInt8]) throws -> Void, afterReading: (URL) -> Void) throws -> Written {
        var sink = try EnvelopeFile.StreamSealer(sealer, writingTo: out)
        let digests = FileDigests(sources: items.map(\.source), sizes: sizes)
        digests.start()
        defer { digests.stop() }
        var inventory: FileInventory = [:]
        var crcs: [UInt32] = []
        crcs.reserveCapacity(items.count + 1)
        for (index, item) in items.enumerated() {
            let digest = try digests.digest(index)
            try sink.append(layout.localHeader(index, crc: digest.crc))
            let reader = try FileReader(item.source)
            var read: Int64 = 0
            while case let chunk = try reader.read(1 << 20), !chunk.isEmpty {
                read += Int64(chunk.count)
                guard read <= sizes[index] else { throw PackageError.storeChanged(path: item.source.path) }
                try sink.append(chunk)
            }
            afterReading(item.source)
            // A write moves the modification time, so an unchanged stamp says both reads saw the
            // same bytes; only a same-size rewrite within one tick of the file system's clock would
            // not show, and the receiver refuses that package on its SHA-256 (MIG-PKG-005).
            // Checking the CRC-32 again instead cost this thread a fifth of its time.
            guard read == sizes[index], try FileSystem.stamp(of: item.source) == stamps[index] else {
                throw PackageError.storeChanged(path: item.source.path)
            }
            digests.release(index)
            inventory[item.path] = (sizes[index], digest.sha256)
            crcs.append(digest.crc)
        }
        let document = manifest(inventory)
        // The stand-in's length is what the envelope promised; a manifest of another length is a bug here.
        guard document.count == manifestLength else {
            throw PackageError.io("the manifest came out \(document.count) bytes, planned \(manifestLength)")
        }
        var crc = CRC32()
        crc.update(document)
        try sink.append(layout.localHeader(items.count, crc: crc.value))
        try sink.append(document)
        crcs.append(crc.value)
        try layout.centralDirectory(crcs: crcs) { try sink.append($0) }
        try sink.finish()
        return Written(inventory: inventory, crcs: crcs, manifest: document)
    }
}
