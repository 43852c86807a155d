import Crypto
import Foundation
import Migration
import WireCore

/// The package's zip read front to back from its local headers, as its bytes arrive (Spec
/// migration.md §5.5): each entry is written into staging while it passes, its local header
/// checked before a byte of it is written (MIG-PKG-006's path rules, one `Backup-` folder, NFC and
/// unique names, stored or deflated, not encrypted, sizes stated in the header, the archive's
/// bounds), never more bytes than it declares. The central directory comes last: it is kept aside
/// (`directory`) and checked against what was written once the zip ends (`StreamedRestore`).
/// `checkpoint()` is the state after the bytes consumed so far, from which a restarted receiver
/// goes on (`init(resuming:)`).
final class ZipStream {
    /// One local entry as written: where its header began, the header itself, and its file.
    struct Written {
        var offset: Int64
        var header: [UInt8]
        var path: String
        var isFolder: Bool
        var size: Int64
        var sha256: String
    }

    private let staging: URL
    private let limits: PackageArchive.Limits
    private let logURL: URL
    private let directoryURL: URL
    private let spoolURL: URL
    private let log: FileHandle
    private let directory: FileHandle

    /// Zip bytes consumed.
    private(set) var position: Int64 = 0
    /// The record being gathered (a local header until complete).
    private var gathered: [UInt8] = []
    private var folder: String?
    private var names = PackageArchive.Names()
    private var declared: Int64 = 0
    private var logLength: Int64 = 0
    /// Where the central directory begins, once it did.
    private(set) var directoryStart: Int64?
    private var current: Output?

    /// A fresh stream: its files (the entries' log, the directory kept aside, a deflated entry's
    /// input) go into `files`, the entries into `staging`.
    init(staging: URL, files: URL, limits: PackageArchive.Limits) throws {
        self.staging = staging
        self.limits = limits
        (logURL, directoryURL, spoolURL) = Self.urls(files)
        for url in [logURL, directoryURL, spoolURL] {
            try FileSystem.removeIfPresent(url)
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw PackageError.io("cannot create \(url.path)") }
        }
        log = try FileHandle(forWritingTo: logURL)
        directory = try FileHandle(forWritingTo: directoryURL)
    }

    /// The stream as `checkpoint` left it: files written after it are cut back to it, and the
    /// entry under way is written again from its checkpoint (a deflated one from its start, from
    /// its kept input).
    init(resuming state: JSONValue, staging: URL, files: URL, limits: PackageArchive.Limits) throws {
        self.staging = staging
        self.limits = limits
        (logURL, directoryURL, spoolURL) = Self.urls(files)
        guard let position = state["position"]?.integerValue, let logLength = state["logLength"]?.integerValue,
            let gathered = state["gathered"]?.stringValue.flatMap({ Data(base64Encoded: $0) })
        else { throw PackageError.io("the stream's checkpoint is damaged") }
        self.position = position
        self.gathered = [UInt8](gathered)
        self.logLength = logLength
        directoryStart = state["directoryStart"]?.integerValue
        log = try FileHandle(forWritingTo: logURL)
        try log.truncate(atOffset: UInt64(logLength))
        try log.seekToEnd()
        directory = try FileHandle(forWritingTo: directoryURL)
        try directory.truncate(atOffset: UInt64(directoryStart.map { position - $0 } ?? 0))
        try directory.seekToEnd()
        for entry in try written() {
            try admit(entry.path, isFolder: entry.isFolder, size: entry.size, compressed: entry.size, at: .root / "entries" / entry.path)
        }
        if let offset = state["current"]?["offset"]?.integerValue, let header = state["current"]?["header"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
            let consumed = state["current"]?["consumed"]?.integerValue
        {
            let opened = try begin([UInt8](header), at: offset, resuming: true)
            try opened.resume(consumed: consumed, spool: spoolURL)
            current = opened
        }
    }

    deinit {
        try? log.close()
        try? directory.close()
    }

    private static func urls(_ files: URL) -> (URL, URL, URL) {
        (files.appendingPathComponent("stream-entries.jsonl"), files.appendingPathComponent("stream-directory.bin"),
         files.appendingPathComponent("stream-inflate.bin"))
    }

    /// The state after every byte consumed so far (every write of it done).
    func checkpoint() -> JSONValue {
        var o = JSONObject()
        o["position"] = .number(JSONNumber(position))
        o["logLength"] = .number(JSONNumber(logLength))
        o["gathered"] = .string(Data(gathered).base64EncodedString())
        if let directoryStart { o["directoryStart"] = .number(JSONNumber(directoryStart)) }
        if let current {
            o["current"] = [
                "offset": .number(JSONNumber(current.offset)), "header": .string(Data(current.header).base64EncodedString()),
                "consumed": .number(JSONNumber(current.consumed)),
            ]
        }
        return .object(o)
    }

    func consume(_ bytes: UnsafeRawBufferPointer) throws {
        var at = 0
        while at < bytes.count {
            let available = UnsafeRawBufferPointer(rebasing: bytes[at...])
            if directoryStart != nil {
                try directory.write(contentsOf: available)
                at = bytes.count
                position += Int64(available.count)
            } else if let output = current {
                let take = try output.take(available, spool: spoolURL, budget: limits.maxTotalBytes - declared)
                guard take > 0 || output.isComplete else { throw PackageArchive.unreadable("entry \(output.entry.path) takes none of the bytes that follow it") }
                at += take
                position += Int64(take)
                if output.isComplete { try complete(output) }
            } else {
                at += try gather(available)
            }
        }
    }

    /// Adds to the record being gathered; returns the bytes taken.
    private func gather(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        let wanted: Int
        if gathered.count < 4 {
            wanted = 4
        } else if gathered.u32(0) != 0x0403_4B50 {
            // The central directory (or an empty zip's end record) begins: everything from here
            // on is kept aside, to be read as the archive's index once it is complete.
            guard [0x0201_4B50, 0x0605_4B50, 0x0606_4B50].contains(gathered.u32(0)) else {
                throw PackageArchive.invalid("a local file header or the central directory at offset \(position - Int64(gathered.count))", "other bytes", at: .root)
            }
            directoryStart = position - Int64(gathered.count)
            try directory.write(contentsOf: gathered)
            gathered = []
            return 0
        } else {
            wanted = gathered.count < 30 ? 30 : 30 + Int(gathered.u16(26)) + Int(gathered.u16(28))
        }
        let take = min(bytes.count, wanted - gathered.count)
        gathered.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[..<take]))
        position += Int64(take)
        if gathered.count >= 30, gathered.u32(0) == 0x0403_4B50, gathered.count == 30 + Int(gathered.u16(26)) + Int(gathered.u16(28)) {
            let header = gathered
            gathered = []
            let output = try begin(header, at: position - Int64(header.count), resuming: false)
            if output.isComplete { try complete(output) } else { current = output }
        }
        return take
    }

    /// Checks a complete local header and opens its entry's file.
    private func begin(_ header: [UInt8], at offset: Int64, resuming: Bool) throws -> Output {
        let flags = header.u16(6)
        let nameBytes = Array(header[30..<(30 + Int(header.u16(26)))])
        let path = flags & (1 << 11) != 0 ? String(decoding: nameBytes, as: UTF8.self) : CodePage437.decode(nameBytes)
        let at = JSONPointer.root / "entries" / path
        if flags & (1 << 11) != 0, !path.utf8.elementsEqual(nameBytes) {
            throw PackageArchive.invalid("a name in UTF-8, as its flag (bit 11) says", "invalid UTF-8", at: at)
        }
        guard flags & 1 == 0 else { throw PackageArchive.invalid("an entry that is not encrypted", "the encryption flag", at: at) }
        let method = header.u16(8)
        guard method == 0 || method == 8 else { throw PackageArchive.invalid("an entry stored (method 0) or deflated (method 8)", "method \(method)", at: at) }
        // Only a deflate stream marks its own end; stored data followed by a data descriptor
        // cannot be told from the next entry's bytes by a reader that reads from the front
        // (java.util.zip.ZipInputStream refuses it too).
        let described = flags & (1 << 3) != 0
        guard !described || method == 8 else {
            throw PackageArchive.invalid("a stored entry whose local header states its sizes", "a data descriptor (flag bit 3)", at: at)
        }
        let extra = header[(30 + nameBytes.count)..<header.count]
        guard let sizes = ZipDirectory.zip64(extra, [Int64(header.u32(22)), Int64(header.u32(18))]) else {
            throw PackageArchive.unreadable("the ZIP64 sizes of the local header at \(offset) cut short")
        }
        // With a data descriptor the sizes come after the data; until then nothing bounds the
        // entry but the archive's limit and the compression ratio, checked as it is inflated.
        let (size, compressed) = described ? (0, 0) : (sizes[0], sizes[1])
        guard method == 8 || compressed == size else {
            throw PackageArchive.invalid("a stored entry whose two sizes are equal", "\(compressed) stored for \(size)", at: at)
        }
        let isFolder = PackagePath.endsWithSlash(path)
        try admit(path, isFolder: isFolder, size: size, compressed: compressed, at: at)
        let entry = ZipEntry(
            path: path, kind: isFolder ? .directory : .file, method: method, encrypted: false, compressedSize: compressed, size: size,
            localHeaderOffset: offset, name: nameBytes, flags: flags)
        guard !isFolder else { return try Output(entry, header: header, file: nil, fresh: true) }
        let relative = PackagePath.relative(path, below: folder!) ?? path
        let target = staging.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        return try Output(entry, header: header, file: target, fresh: !resuming)
    }

    /// MIG-PKG-006 on one local name, before its entry is written.
    private func admit(_ path: String, isFolder: Bool, size: Int64, compressed: Int64, at: JSONPointer) throws {
        let trimmed = isFolder ? PackagePath.trimmingFolderSlash(path) : path
        guard PackagePath.isSafe(trimmed) else {
            throw PackageArchive.invalid("a relative path that stays inside the package", JSONSerializer.quoted(path), at: at)
        }
        let top = PackagePath.topFolder(trimmed)
        guard top.hasBytePrefix("Backup-"), folder == nil || folder!.bytesEqual(top), isFolder || !top.bytesEqual(trimmed) else {
            throw PackageArchive.invalid("every entry inside one Backup-{backupId}/ folder", JSONSerializer.quoted(path), at: at)
        }
        folder = top
        try names.admit(trimmed, at: at)
        declared = declared.addingReportingOverflow(size).partialValue
        guard size >= 0, declared >= 0, declared <= limits.maxTotalBytes else {
            throw PackageArchive.invalid("at most \(limits.maxTotalBytes) bytes unpacked", "\(declared)", at: at)
        }
        let bound = compressed.multipliedReportingOverflow(by: 1000)
        if !bound.overflow, size > bound.partialValue + (1 << 20) {
            throw PackageArchive.invalid("a compression ratio of at most 1000", "\(size) from \(compressed) bytes", at: at)
        }
    }

    private func complete(_ output: Output) throws {
        let sha256 = try output.finish()
        current = nil
        // An entry with a data descriptor declared its size only now.
        if output.entry.flags & (1 << 3) != 0 { declared += output.size }
        let line: JSONValue = [
            "offset": .number(JSONNumber(output.offset)), "header": .string(Data(output.header).base64EncodedString()),
            "size": .number(JSONNumber(output.size)), "sha256": .string(sha256),
        ]
        let bytes = Array((JSONSerializer.compact(line) + "\n").utf8)
        try log.write(contentsOf: bytes)
        logLength += Int64(bytes.count)
    }

    /// Every entry written so far, from the log (one line each), in zip order.
    func written() throws -> [Written] {
        let data = try FileReader.contents(of: logURL).prefix(Int(logLength))
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            let value = try JSONParser.parse(Array(line))
            guard let offset = value["offset"]?.integerValue, let header = value["header"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
                let size = value["size"]?.integerValue, let sha256 = value["sha256"]?.stringValue
            else { throw PackageError.io("the stream's entry log is damaged") }
            let bytes = [UInt8](header)
            let name = Array(bytes[30..<(30 + Int(bytes.u16(26)))])
            let path = bytes.u16(6) & (1 << 11) != 0 ? String(decoding: name, as: UTF8.self) : CodePage437.decode(name)
            return Written(offset: offset, header: bytes, path: path, isFolder: PackagePath.endsWithSlash(path), size: size, sha256: sha256)
        }
    }

    /// The package folder every entry lies in, once one was seen.
    var packageFolder: String? { folder }

    /// The central directory and what follows it, as kept aside.
    var directoryFile: URL { directoryURL }

    /// Whether the zip ended cleanly here: no entry or record half read.
    var isBetweenRecords: Bool { current == nil && gathered.isEmpty }

    /// One entry's file while its data arrives: written as is, or inflated; hashed as written.
    /// An entry with a data descriptor (deflated only) ends where its deflate stream does; the
    /// descriptor that follows is read and checked against what was written.
    final class Output {
        let entry: ZipEntry
        let header: [UInt8]
        var offset: Int64 { entry.localHeaderOffset }
        private let file: FileHandle?
        private let fileURL: URL?
        private var hasher = SHA256()
        private var written: Int64 = 0
        /// Bytes of the zip taken so far: compressed data, and a data descriptor.
        private(set) var consumed: Int64 = 0
        private var inflater: Inflater?
        private let described: Bool
        /// ZIP64 descriptors carry 8-byte sizes (APPNOTE 4.3.9.2): when the local header has a ZIP64 field.
        private let wideDescriptor: Bool
        private var descriptor: [UInt8] = []
        private(set) var isComplete = false

        /// `fresh`: the file starts empty; otherwise it keeps what it holds until `resume`.
        init(_ entry: ZipEntry, header: [UInt8], file url: URL?, fresh: Bool) throws {
            self.entry = entry
            self.header = header
            fileURL = url
            described = entry.flags & (1 << 3) != 0
            let extra = header[(30 + Int(header.u16(26)))...]
            wideDescriptor = ZipDirectory.zip64(extra, [0xFFFF_FFFF]) != [0xFFFF_FFFF]
            if let url {
                if !FileManager.default.fileExists(atPath: url.path) {
                    guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw PackageError.io("cannot create \(url.path)") }
                }
                file = try FileHandle(forWritingTo: url)
                if fresh || entry.method == 8 { try file?.truncate(atOffset: 0) }
            } else {
                file = nil
            }
            if entry.method == 8 { inflater = try Inflater(entry) }
            if !described, entry.compressedSize == 0 {
                // No data to wait for; an empty deflate stream is no deflate stream.
                try inflater?.inflate(UnsafeRawBufferPointer(start: nil, count: 0), last: true) { _ in }
                isComplete = true
            }
        }

        deinit { try? file?.close() }

        /// Goes on from a checkpoint taken after `target` bytes. Stored: the file holds at least
        /// that many (perhaps more, written after the checkpoint); they are hashed again and the
        /// rest cut off. Deflated: zlib's state cannot be saved, so the kept input is taken again
        /// from the start.
        func resume(consumed target: Int64, spool: URL) throws {
            guard target > 0 else { return }
            let source = inflater == nil ? fileURL : spool
            guard let source else { return }
            let reader = try FileReader(source)
            var done: Int64 = 0
            while done < target {
                let piece = try reader.read(at: done, Int(min(1 << 20, target - done)))
                guard !piece.isEmpty else { throw PackageError.io("\(source.path) is shorter than the stream's checkpoint") }
                if inflater == nil {
                    hasher.update(data: piece)
                } else {
                    _ = try piece.withUnsafeBytes { try take($0, spool: nil, budget: .max) }
                }
                done += Int64(piece.count)
            }
            if inflater == nil {
                try file?.truncate(atOffset: UInt64(target))
                try file?.seekToEnd()
                written = target
                consumed = target
            }
        }

        /// Takes what of `bytes` belongs to this entry; returns how many. `budget`: the bytes the
        /// archive may still unpack (an entry with a descriptor declared none up front).
        func take(_ bytes: UnsafeRawBufferPointer, spool: URL?, budget: Int64) throws -> Int {
            guard !isComplete else { return 0 }
            let used: Int
            if !described {
                used = Int(min(Int64(bytes.count), entry.compressedSize - consumed))
                let piece = UnsafeRawBufferPointer(rebasing: bytes[..<used])
                consumed += Int64(used)
                if let inflater {
                    try inflater.inflate(piece, last: consumed == entry.compressedSize) { try emit($0, limit: entry.size) }
                } else {
                    try emit(piece, limit: entry.size)
                }
                isComplete = consumed == entry.compressedSize
            } else if !inflater!.isEnded {
                used = try inflater!.inflateUntilEnd(bytes) { try emit($0, limit: budget) }
                consumed += Int64(used)
                // MIG-PKG-006's 1000-fold bound, as the data arrives.
                if written > consumed * 1000 + (1 << 20) {
                    throw PackageArchive.invalid("a compression ratio of at most 1000", "\(written) from \(consumed) bytes", at: ZipUnpacker.pointer(entry))
                }
            } else {
                used = min(bytes.count, descriptorLength - descriptor.count)
                descriptor.append(contentsOf: bytes[..<used])
                consumed += Int64(used)
                if descriptor.count == descriptorLength { try checkDescriptor() }
            }
            if let spool, inflater != nil { try Self.append(UnsafeRawBufferPointer(rebasing: bytes[..<used]), to: spool, at: consumed - Int64(used)) }
            return used
        }

        /// The descriptor's length, once its first four bytes tell whether it has a signature.
        private var descriptorLength: Int {
            let body = wideDescriptor ? 20 : 12
            guard descriptor.count >= 4 else { return 4 }
            return descriptor.u32(0) == 0x0807_4B50 ? 4 + body : body
        }

        private func checkDescriptor() throws {
            let at = descriptor.u32(0) == 0x0807_4B50 ? 8 : 4
            let compressed = wideDescriptor ? Int64(clamping: descriptor.u64(at)) : Int64(descriptor.u32(at))
            let size = wideDescriptor ? Int64(clamping: descriptor.u64(at + 8)) : Int64(descriptor.u32(at + 4))
            let data = consumed - Int64(descriptor.count)
            guard compressed == data, size == written else {
                throw PackageArchive.invalid(
                    "a data descriptor that states the entry's sizes", "\(size) (\(compressed) stored), \(written) (\(data) stored) read",
                    at: ZipUnpacker.pointer(entry))
            }
            isComplete = true
        }

        /// The entry's size: declared, or (with a descriptor) written.
        var size: Int64 { described ? written : entry.size }

        private func emit(_ bytes: UnsafeRawBufferPointer, limit: Int64) throws {
            written += Int64(bytes.count)
            guard written <= limit else {
                throw PackageArchive.invalid("at most its declared \(limit) bytes", "more", at: ZipUnpacker.pointer(entry))
            }
            hasher.update(bufferPointer: bytes)
            try file?.write(contentsOf: bytes)
        }

        /// The file's SHA-256 once all its data was written.
        func finish() throws -> String {
            guard isComplete, written == size else {
                throw PackageArchive.invalid("its declared \(entry.size) bytes", "\(written)", at: ZipUnpacker.pointer(entry))
            }
            return hasher.finalize().hexEncoded
        }

        /// A deflated entry's input, kept until it is complete so a restart can inflate it again.
        private static func append(_ bytes: UnsafeRawBufferPointer, to url: URL, at offset: Int64) throws {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seekToEnd()
            try handle.write(contentsOf: bytes)
        }
    }
}
