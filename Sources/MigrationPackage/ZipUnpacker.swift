import Crypto
import Foundation
import Migration
import SystemZlib
import WireCore

/// Writes chosen entries of a zip while its bytes go past once, front to back: at the offset
/// the central directory gives, it reads the entry's local header, then writes its data (inflated
/// when deflated) to a new file, hashing it on the way, and never more than the entry declares.
/// The entries must be checked (`PackageArchive.inspect`) and sorted by offset.
struct ZipUnpacker {
    private let plan: [ZipEntry]
    private let folder: String
    private let destination: URL
    /// Offset in the zip of the next byte handed in.
    private var position: Int64
    private var next = 0
    /// The local header of `plan[next]`, gathered until complete.
    private var header: [UInt8]?
    private var output: EntryOutput?
    private var lastFolder: URL?
    private let lane: HashLane
    /// Entries whose data is all written and checked, their digests not yet read: a lane may
    /// still be hashing them (see `finish`).
    private var completed: [(path: String, size: Int64, digest: HashLane.Digest)] = []
    /// The pieces of the buffer being walked are handed to the lanes under this.
    private var hold: HashLane.Hold?
    private(set) var inventory: FileInventory = [:]

    /// `position`: where in the zip the first byte handed in lies. Stored entries are hashed on
    /// `lane` while they are written.
    init(_ plan: [ZipEntry], folder: String, to destination: URL, from position: Int64 = 0, lane: HashLane) {
        self.plan = plan
        self.folder = folder
        self.destination = destination
        self.position = position
        self.lane = lane
    }

    /// Every planned entry is written.
    var isDone: Bool { next == plan.count }

    /// Returns only when the lane has hashed every byte of `bytes` it was given: the caller may
    /// then reuse the buffer.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) throws {
        defer { lane.drain() }
        try walk(bytes)
    }

    /// Writes `bytes` and hands them to the lanes; `release` runs once nothing reads them any
    /// more (the lanes are done with them), possibly after this returns, and also when it throws.
    mutating func consume(_ bytes: UnsafeRawBufferPointer, release: @escaping @Sendable () -> Void) throws {
        let hold = HashLane.Hold(release: release)
        self.hold = hold
        defer {
            self.hold = nil
            hold.done()
        }
        try walk(bytes)
    }

    private mutating func walk(_ bytes: UnsafeRawBufferPointer) throws {
        var at = 0
        while at < bytes.count, next < plan.count {
            let entry = plan[next]
            let available = bytes.count - at
            if let output {
                let take = Int(min(Int64(available), output.remaining))
                try output.write(UnsafeRawBufferPointer(rebasing: bytes[at..<(at + take)]), hold: hold)
                at += take
                position += Int64(take)
                if output.remaining == 0 {
                    try complete(output)
                    self.output = nil
                    next += 1
                }
            } else if var gathered = header {
                let wanted = gathered.count < 30 ? 30 : 30 + Int(gathered.u16(26)) + Int(gathered.u16(28))
                let take = min(available, wanted - gathered.count)
                gathered.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + take)]))
                at += take
                position += Int64(take)
                header = gathered
                if gathered.count == 30, gathered.u32(0) != 0x0403_4B50 {
                    throw PackageArchive.invalid("a local file header at offset \(entry.localHeaderOffset)", "other bytes", at: Self.pointer(entry))
                }
                if gathered.count >= 30, gathered.count == 30 + Int(gathered.u16(26)) + Int(gathered.u16(28)) {
                    header = nil
                    if let differs = entry.disagreement(withLocalHeader: gathered) {
                        throw PackageArchive.invalid("a local header that agrees with the central directory", differs, at: Self.pointer(entry))
                    }
                    let opened = try open(entry)
                    if opened.remaining > 0 {
                        output = opened
                    } else {
                        // An empty entry has no data to wait for.
                        try complete(opened)
                        next += 1
                    }
                }
            } else if position < entry.localHeaderOffset {
                let skip = Int(min(Int64(available), entry.localHeaderOffset - position))
                at += skip
                position += Int64(skip)
            } else if position == entry.localHeaderOffset {
                header = []
            } else {
                throw PackageArchive.invalid("entries that do not overlap", "its local header inside the one before, at \(entry.localHeaderOffset)", at: Self.pointer(entry))
            }
        }
        position += Int64(bytes.count - at)
    }

    /// An entry whose data is all written: its size checked now (in file order), its file
    /// closed, its digest read in `finish`.
    private mutating func complete(_ output: EntryOutput) throws {
        completed.append((relative(output.entry), try output.finish(), output.digest))
    }

    /// Throws when the zip ended before every planned entry was written; otherwise waits for the
    /// lanes and fills `inventory`.
    mutating func finish() throws {
        if let entry = plan[safe: next] {
            throw PackageArchive.invalid("the entry's data inside the archive", "the archive ends at \(position)", at: Self.pointer(entry))
        }
        lane.drain()
        for entry in completed { inventory[entry.path] = (entry.size, entry.digest.finalize()) }
        completed.removeAll()
    }

    private mutating func open(_ entry: ZipEntry) throws -> EntryOutput {
        let target = destination.appendingPathComponent(relative(entry))
        let parent = target.deletingLastPathComponent()
        if parent != lastFolder {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            lastFolder = parent
        }
        return try EntryOutput(entry, writing: FileWriter(creating: target), lane: lane)
    }

    private func relative(_ entry: ZipEntry) -> String {
        PackagePath.relative(entry.path, below: folder) ?? entry.path
    }

    static func pointer(_ entry: ZipEntry) -> JSONPointer {
        .root / "entries" / entry.path
    }
}

/// One entry's file while its data arrives: written as is, or inflated (raw deflate, RFC 1951).
private final class EntryOutput {
    let entry: ZipEntry
    private let file: FileWriter
    let digest: HashLane.Digest
    /// Hashes stored data beside the write; inflated data is hashed here, as its buffer is
    /// refilled at once.
    private let lane: HashLane?
    private var written: Int64 = 0
    /// Compressed bytes still to come.
    private(set) var remaining: Int64
    private var inflater: Inflater?

    init(_ entry: ZipEntry, writing file: FileWriter, lane: HashLane) throws {
        self.entry = entry
        self.file = file
        remaining = entry.compressedSize
        if entry.method == 8 { inflater = try Inflater(entry) }
        self.lane = inflater == nil ? lane : nil
        digest = lane.digest()
    }

    /// `hold`: what keeps `bytes` valid while a lane reads them (nil: the caller drains).
    func write(_ bytes: UnsafeRawBufferPointer, hold: HashLane.Hold?) throws {
        remaining -= Int64(bytes.count)
        if let inflater {
            try inflater.inflate(bytes, last: remaining == 0) { try emit($0, hold: nil) }
        } else {
            try emit(bytes, hold: hold)
        }
    }

    private func emit(_ bytes: UnsafeRawBufferPointer, hold: HashLane.Hold?) throws {
        written += Int64(bytes.count)
        guard written <= entry.size else {
            throw PackageArchive.invalid("at most its declared \(entry.size) bytes", "more", at: ZipUnpacker.pointer(entry))
        }
        if let lane { lane.hash(bytes, into: digest, hold: hold) } else { digest.update(bytes) }
        try file.write(bytes)
    }

    /// The file's size, once all its data was written (its digest is read after a `drain`).
    func finish() throws -> Int64 {
        guard written == entry.size else {
            throw PackageArchive.invalid("its declared \(entry.size) bytes", "\(written)", at: ZipUnpacker.pointer(entry))
        }
        file.startWriteback()
        return written
    }
}

/// The system zlib's inflate over one entry's raw deflate data.
final class Inflater {
    private let entry: ZipEntry
    private var stream = z_stream()
    private var out = [UInt8](repeating: 0, count: 1 << 18)
    private var ended = false

    init(_ entry: ZipEntry) throws {
        self.entry = entry
        // Negative window bits: raw deflate, no zlib header (APPNOTE 4.4.5, method 8).
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw PackageError.io("zlib's inflate did not start")
        }
    }

    deinit { inflateEnd(&stream) }

    func inflate(_ bytes: UnsafeRawBufferPointer, last: Bool, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !bytes.isEmpty else { return try check(last: last) }
        guard !ended else { throw corrupt("data after the end of its deflate stream") }
        let used = try run(bytes, emit)
        guard used == bytes.count else { throw corrupt("data after the end of its deflate stream") }
        try check(last: last)
    }

    /// Inflates from `bytes` until the deflate stream ends, which only it marks when a data
    /// descriptor follows (a zip written front to back); returns the bytes it used.
    func inflateUntilEnd(_ bytes: UnsafeRawBufferPointer, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        guard !bytes.isEmpty, !ended else { return 0 }
        return try run(bytes, emit)
    }

    /// The deflate stream has ended.
    var isEnded: Bool { ended }

    private func run(_ bytes: UnsafeRawBufferPointer, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(bytes.count)
        defer { stream.next_in = nil }
        repeat {
            let status = out.withUnsafeMutableBytes { raw in
                stream.next_out = raw.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(raw.count)
                return SystemZlib.inflate(&stream, Z_NO_FLUSH)
            }
            let produced = out.count - Int(stream.avail_out)
            if produced > 0 { try out.withUnsafeBytes { try emit(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) } }
            switch status {
            case Z_STREAM_END:
                ended = true
            case Z_OK, Z_BUF_ERROR:
                break
            default:
                throw corrupt("data that does not inflate (zlib \(status))")
            }
        } while !ended && (stream.avail_in > 0 || stream.avail_out == 0)
        return bytes.count - Int(stream.avail_in)
    }

    private func check(last: Bool) throws {
        if last, !ended { throw corrupt("a deflate stream that ends early") }
    }

    private func corrupt(_ found: String) -> PackageError {
        PackageArchive.invalid("deflate data of its declared \(entry.size) bytes", found, at: ZipUnpacker.pointer(entry))
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
