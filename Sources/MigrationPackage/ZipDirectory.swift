import Foundation
import Migration
import WireCore

/// One entry of a zip's central directory (PKWARE APPNOTE 4.3.12), as a receiver checks and
/// unpacks it. The central directory is the archive's own index; local headers are read only
/// to find where an entry's data begins.
struct ZipEntry: Equatable {
    enum Kind { case file, directory, symlink }
    var path: String
    var kind: Kind
    /// 0 stored, 8 deflated; anything else is refused (MIG-PKG-006).
    var method: UInt16
    var encrypted: Bool
    var compressedSize: Int64
    var size: Int64
    var localHeaderOffset: Int64
    /// The name's bytes as stored: the local header must repeat them (MIG-PKG-006).
    var name: [UInt8]
    /// The general purpose flags (APPNOTE 4.4.4).
    var flags: UInt16
    var nameLength: Int { name.count }

    /// What the local header (APPNOTE 4.3.7: fixed part, name, extra field) says differently
    /// from the central directory, or nil. A streaming reader (`java.util.zip.ZipInputStream`,
    /// Android's usual one) reads only local headers: a climbing name there would be written
    /// by it, so the two must agree on name, method, the flags that change how an entry is read
    /// (encryption, data descriptor, UTF-8 name) and, when no data descriptor follows, sizes.
    func disagreement(withLocalHeader header: [UInt8]) -> String? {
        let nameEnd = 30 + Int(header.u16(26))
        let localName = header[30..<nameEnd]
        guard localName.elementsEqual(name) else {
            let flag = header.u16(6) & (1 << 11) != 0
            let shown = flag ? String(decoding: localName, as: UTF8.self) : CodePage437.decode(Array(localName))
            return "the name \(JSONSerializer.quoted(shown)) in its local header"
        }
        guard header.u16(8) == method else { return "method \(header.u16(8)) in its local header, \(method) in the central directory" }
        let mask: UInt16 = 1 | 1 << 3 | 1 << 11
        guard header.u16(6) & mask == flags & mask else {
            return "flags \(header.u16(6) & mask) in its local header, \(flags & mask) in the central directory (bits 0, 3 and 11)"
        }
        // With a data descriptor (bit 3) the local sizes may be zero: the descriptor carries them.
        guard flags & (1 << 3) == 0 else { return nil }
        let extra = header[nameEnd..<header.count]
        guard let sizes = ZipDirectory.zip64(extra, [Int64(header.u32(22)), Int64(header.u32(18))]) else {
            return "ZIP64 sizes cut short in its local header"
        }
        guard sizes[0] == size, sizes[1] == compressedSize else {
            return "sizes \(sizes[0]) (\(sizes[1]) stored) in its local header, \(size) (\(compressedSize) stored) in the central directory"
        }
        return nil
    }
}

/// Reads the central directory: the end record (ZIP64 where a field overflows), then each entry.
/// A zip library would do this, but ZIPFoundation reads only files it can seek in, and a package
/// is an envelope that is never written out decrypted.
struct ZipDirectory {
    /// In directory order.
    var entries: [ZipEntry]
    /// Where the directory begins: every entry's data ends before it.
    var offset: Int64

    /// At most `maxEntries` entries, each checked to lie inside the zip.
    static func read(_ bytes: inout some ZipBytes, maxEntries: Int) throws -> ZipDirectory {
        let end = try endRecord(&bytes)
        guard end.count <= Int64(maxEntries) else {
            throw PackageArchive.invalid("at most \(maxEntries) \(maxEntries == 1 ? "entry" : "entries")", "\(end.count)", at: .root)
        }
        guard end.offset >= 0, end.size >= 0, end.offset <= end.position, end.size <= end.position - end.offset else {
            throw PackageArchive.unreadable("a central directory of \(end.size) bytes at \(end.offset), outside the archive")
        }
        var cursor = Cursor(start: end.offset, end: end.offset + end.size)
        var entries: [ZipEntry] = []
        for index in 0..<Int(end.count) {
            entries.append(try entry(index, &cursor, &bytes, before: end.offset))
        }
        return ZipDirectory(entries: entries, offset: end.offset)
    }

    private struct EndRecord {
        var count: Int64
        var size: Int64
        var offset: Int64
        /// Where the end records begin: the directory lies before it.
        var position: Int64
    }

    /// The end of central directory record, searched from the end past a comment of up to
    /// 65,535 bytes; its ZIP64 form when a field holds its overflow value.
    private static func endRecord(_ bytes: inout some ZipBytes) throws -> EndRecord {
        let tailLength = min(bytes.length, 22 + 0xFFFF)
        let tail = try bytes.read((bytes.length - tailLength)..<bytes.length)
        // The record whose comment ends the file (MIG-PKG-006); a comment may itself hold the
        // signature, or a whole record. Bytes appended after the archive are refused: a reader
        // that took the last record that fits would read an archive other readers do not.
        let candidates = stride(from: tail.count - 22, through: 0, by: -1).lazy.filter { tail.u32($0) == 0x0605_4B50 }
        let end = { (at: Int) in at + 22 + Int(tail.u16(at + 20)) }  // past the record's comment
        guard let at = candidates.first(where: { end($0) == tail.count }) else {
            if let last = candidates.first(where: { end($0) < tail.count }) {
                throw PackageArchive.unreadable("bytes after the archive: \(tail.count - end(last)) follow its end record")
            }
            throw PackageArchive.unreadable("no end of central directory record")
        }
        let position = bytes.length - tailLength + Int64(at)
        var record = EndRecord(count: Int64(tail.u16(at + 10)), size: Int64(tail.u32(at + 12)), offset: Int64(tail.u32(at + 16)), position: position)
        let overflows = record.count == 0xFFFF || record.size == 0xFFFF_FFFF || record.offset == 0xFFFF_FFFF
        guard overflows, position >= 20 else { return record }
        let locator = try bytes.read((position - 20)..<position)
        guard locator.u32(0) == 0x0706_4B50 else { return record }
        let zip64At = Int64(bitPattern: locator.u64(8))
        guard zip64At >= 0, zip64At <= position - 20 - 56 else {
            throw PackageArchive.unreadable("a ZIP64 end record at \(zip64At), outside the archive")
        }
        let zip64 = try bytes.read(zip64At..<(zip64At + 56))
        guard zip64.u32(0) == 0x0606_4B50 else { throw PackageArchive.unreadable("no ZIP64 end record at \(zip64At)") }
        record.count = Int64(clamping: zip64.u64(32))
        record.size = Int64(clamping: zip64.u64(40))
        record.offset = Int64(clamping: zip64.u64(48))
        record.position = zip64At
        return record
    }

    private static func entry(_ index: Int, _ cursor: inout Cursor, _ bytes: inout some ZipBytes, before directory: Int64) throws -> ZipEntry {
        guard let fixed = try cursor.take(46, &bytes) else { throw PackageArchive.unreadable("central directory entry \(index) runs past the directory") }
        guard fixed.u32(0) == 0x0201_4B50 else { throw PackageArchive.unreadable("no central directory entry \(index) where the directory puts it") }
        let flags = fixed.u16(8)
        let nameLength = Int(fixed.u16(28))
        let variable = nameLength + Int(fixed.u16(30)) + Int(fixed.u16(32))
        guard let rest = try cursor.take(variable, &bytes) else { throw PackageArchive.unreadable("central directory entry \(index) runs past the directory") }
        let name = Array(rest[0..<nameLength])
        let path = flags & (1 << 11) != 0 ? String(decoding: name, as: UTF8.self) : CodePage437.decode(name)
        if flags & (1 << 11) != 0, !path.utf8.elementsEqual(name) {
            // Decoding repaired it: two different names could become one, and the file written would not bear the archive's name.
            throw PackageArchive.invalid("a name in UTF-8, as its flag (bit 11) says", "invalid UTF-8", at: .root / "entries" / path)
        }
        let extra = rest[nameLength..<(nameLength + Int(fixed.u16(30)))]
        guard let wide = zip64(extra, [Int64(fixed.u32(24)), Int64(fixed.u32(20)), Int64(fixed.u32(42))]) else {
            throw PackageArchive.unreadable("the ZIP64 sizes of central directory entry \(index) cut short")
        }
        let (size, compressedSize, offset) = (wide[0], wide[1], wide[2])
        guard offset <= directory - 30 - Int64(nameLength) else {
            throw PackageArchive.invalid("an entry whose local header lies before the central directory", "offset \(offset)", at: .root / "entries" / path)
        }
        return ZipEntry(
            path: path, kind: kind(path, madeBy: fixed.u16(4), attributes: fixed.u32(38)), method: fixed.u16(10),
            encrypted: flags & 1 != 0, compressedSize: compressedSize, size: size, localHeaderOffset: offset, name: name, flags: flags)
    }

    /// `fields` with each one that holds its overflow value (0xFFFF_FFFF) replaced by the next
    /// 8 bytes of the ZIP64 extended information (APPNOTE 4.5.3: only the overflowing fields, in
    /// the order size, compressed size, offset). Nil when those bytes are cut short.
    static func zip64(_ extra: ArraySlice<UInt8>, _ fields: [Int64]) -> [Int64]? {
        var fields = fields
        var extra = extra
        while extra.count >= 4 {
            let id = extra.u16(extra.startIndex)
            let length = Int(extra.u16(extra.startIndex + 2))
            let body = extra.dropFirst(4).prefix(length)
            extra = extra.dropFirst(4 + length)
            guard id == 0x0001 else { continue }
            var at = body.startIndex
            for i in fields.indices where fields[i] == 0xFFFF_FFFF {
                guard at + 8 <= body.endIndex else { return nil }
                fields[i] = Int64(clamping: body.u64(at))
                at += 8
            }
        }
        return fields
    }

    /// Unix and macOS archivers store the file mode in the high half of the external attributes;
    /// others only mark a folder (the name's trailing slash, or MS-DOS's folder bit).
    private static func kind(_ path: String, madeBy: UInt16, attributes: UInt32) -> ZipEntry.Kind {
        let system = madeBy >> 8
        if system == 3 || system == 19 {
            switch (attributes >> 16) & 0o170000 {
            case 0o120000: return .symlink
            case 0o040000: return .directory
            case 0o100000: return .file
            default: break
            }
        }
        if PackagePath.endsWithSlash(path) || (system == 0 && attributes & 0x10 != 0) { return .directory }
        return .file
    }

    /// Walks the directory in pieces of 64 KiB: a directory of a million entries is not read whole.
    private struct Cursor {
        var position: Int64
        let end: Int64
        var window: [UInt8] = []
        var windowStart: Int64

        init(start: Int64, end: Int64) {
            position = start
            self.end = end
            windowStart = start
        }

        /// The next `count` bytes, or nil when the directory ends first.
        mutating func take(_ count: Int, _ bytes: inout some ZipBytes) throws -> [UInt8]? {
            guard Int64(count) <= end - position else { return nil }
            if position + Int64(count) > windowStart + Int64(window.count) {
                windowStart = position
                window = try bytes.read(position..<min(end, position + Int64(max(count, 1 << 16))))
            }
            let from = Int(position - windowStart)
            position += Int64(count)
            return Array(window[from..<(from + count)])
        }
    }
}

extension Collection<UInt8> where Index == Int {
    /// Little-endian fields at an index of the collection.
    func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }
}
