/// The layout of the package's zip (seed 000 §4.1; PKWARE APPNOTE 6.3): stored entries, UTF-8
/// names, one modification time, ZIP64 records where a value does not fit, byte for byte what
/// ZIPFoundation's `addEntry` writes (the golden package and `StoredZipTests` hold it to that).
/// Every header is a function of the names, the sizes and the CRC-32s alone, so the zip's length
/// is known before a byte of it is written: the envelope, which states its length up front, is
/// sealed straight from the files, without a zip on disk.
struct StoredZip {
    struct Entry {
        var name: [UInt8]
        var size: Int64
    }

    /// Where a field stops fitting and its ZIP64 form begins. Tests lower them to reach the ZIP64
    /// records without writing 4 GiB.
    struct Limits {
        /// Sizes and offsets at or above this are 0xFFFFFFFF with the value in a ZIP64 field.
        var field: Int64 = 0xFFFF_FFFF
        /// Entry counts at or above this are 0xFFFF in the end record.
        var count = 0xFFFF
    }

    let entries: [Entry]
    let limits: Limits
    /// Offset of each entry's local header.
    let offsets: [Int64]
    /// Offset of each entry's central directory record, from the directory's start.
    let directoryOffsets: [Int64]
    let centralDirectoryOffset: Int64
    let centralDirectorySize: Int64
    /// The whole archive's length.
    let length: Int64
    private let dosDate: UInt16
    private let dosTime: UInt16

    init(_ entries: [Entry], modified unixSeconds: Int64, limits: Limits = Limits()) {
        self.entries = entries
        self.limits = limits
        (dosDate, dosTime) = Self.dosDateTime(unixSeconds)
        var offsets: [Int64] = []
        var directoryOffsets: [Int64] = []
        offsets.reserveCapacity(entries.count)
        directoryOffsets.reserveCapacity(entries.count)
        var position: Int64 = 0
        var directory: Int64 = 0
        for entry in entries {
            offsets.append(position)
            directoryOffsets.append(directory)
            let sizesInZIP64 = entry.size >= limits.field
            position += 30 + Int64(entry.name.count) + (sizesInZIP64 ? 20 : 0) + entry.size
            let extra = (sizesInZIP64 ? 16 : 0) + (offsets.last! >= limits.field ? 8 : 0)
            directory += 46 + Int64(entry.name.count) + Int64(extra > 0 ? extra + 4 : 0)
        }
        self.offsets = offsets
        self.directoryOffsets = directoryOffsets
        centralDirectoryOffset = position
        centralDirectorySize = directory
        let zip64 = entries.count >= limits.count || position >= limits.field || directory >= limits.field
        length = position + directory + (zip64 ? 56 + 20 : 0) + 22
    }

    /// The local header of entry `index`; its data follows it.
    func localHeader(_ index: Int, crc: UInt32) -> [UInt8] {
        let entry = entries[index]
        let zip64 = entry.size >= limits.field
        var out: [UInt8] = []
        out.reserveCapacity(30 + entry.name.count + 20)
        out.le(UInt32(0x0403_4B50))
        out.le(UInt16(zip64 ? 45 : 20))
        common(entry, crc: crc, zip64: zip64, into: &out)
        out.le(UInt16(zip64 ? 20 : 0))
        out.append(contentsOf: entry.name)
        if zip64 {
            out.le(UInt16(1))
            out.le(UInt16(16))
            out.le(UInt64(entry.size))
            out.le(UInt64(entry.size))
        }
        return out
    }

    /// The central directory and the end records, one record per call of `emit`, so a million
    /// entries never sit in memory as one buffer.
    func centralDirectory(crcs: [UInt32], _ emit: ([UInt8]) throws -> Void) rethrows {
        for index in entries.indices { try emit(directoryRecord(index, crc: crcs[index])) }
        try emit(endRecords())
    }

    /// Bytes in entry `index`'s local header, before its data.
    func localHeaderLength(_ index: Int) -> Int64 {
        30 + Int64(entries[index].name.count) + (entries[index].size >= limits.field ? 20 : 0)
    }

    /// Entry `index`'s central directory record.
    func directoryRecord(_ index: Int, crc: UInt32) -> [UInt8] {
        let entry = entries[index]
        let sizes = entry.size >= limits.field
        let offset = offsets[index]
        let offsetInZIP64 = offset >= limits.field
        let extra = (sizes ? 16 : 0) + (offsetInZIP64 ? 8 : 0)
        var out: [UInt8] = []
        out.reserveCapacity(46 + entry.name.count + 28)
        out.le(UInt32(0x0201_4B50))
        out.le(UInt16(789))  // made by: UNIX, APPNOTE 2.1 (ZIPFoundation's constant)
        out.le(UInt16(sizes ? 45 : 20))
        common(entry, crc: crc, zip64: sizes, into: &out)
        out.le(UInt16(extra > 0 ? extra + 4 : 0))
        out.le(UInt16(0))  // comment
        out.le(UInt16(0))  // disk
        out.le(UInt16(0))  // internal attributes
        out.le(UInt32(0o100644) << 16)  // a regular file, rw-r--r--
        out.le(offsetInZIP64 ? UInt32.max : UInt32(offset))
        out.append(contentsOf: entry.name)
        if extra > 0 {
            out.le(UInt16(1))
            out.le(UInt16(extra))
            if sizes {
                out.le(UInt64(entry.size))
                out.le(UInt64(entry.size))
            }
            if offsetInZIP64 { out.le(UInt64(offset)) }
        }
        return out
    }

    /// The ZIP64 end records where a value needs them, and the end of central directory record.
    func endRecords() -> [UInt8] {
        let count = entries.count
        let end = centralDirectoryOffset + centralDirectorySize
        var out: [UInt8] = []
        if count >= limits.count || centralDirectoryOffset >= limits.field || centralDirectorySize >= limits.field {
            out.le(UInt32(0x0606_4B50))
            out.le(UInt64(44))
            out.le(UInt16(789))
            out.le(UInt16(45))
            out.le(UInt32(0))
            out.le(UInt32(0))
            out.le(UInt64(count))
            out.le(UInt64(count))
            out.le(UInt64(centralDirectorySize))
            out.le(UInt64(centralDirectoryOffset))
            out.le(UInt32(0x0706_4B50))
            out.le(UInt32(0))
            out.le(UInt64(end))
            out.le(UInt32(1))
        }
        out.le(UInt32(0x0605_4B50))
        out.le(UInt16(0))
        out.le(UInt16(0))
        let shortCount = count >= limits.count ? UInt16.max : UInt16(count)
        out.le(shortCount)
        out.le(shortCount)
        out.le(centralDirectorySize >= limits.field ? UInt32.max : UInt32(centralDirectorySize))
        out.le(centralDirectoryOffset >= limits.field ? UInt32.max : UInt32(centralDirectoryOffset))
        out.le(UInt16(0))
        return out
    }

    /// Flags to name length: the part local header and directory record share.
    private func common(_ entry: Entry, crc: UInt32, zip64: Bool, into out: inout [UInt8]) {
        out.le(UInt16(1 << 11))  // names are UTF-8
        out.le(UInt16(0))  // stored
        out.le(dosTime)
        out.le(dosDate)
        out.le(crc)
        let size = zip64 ? UInt32.max : UInt32(entry.size)
        out.le(size)
        out.le(size)
        out.le(UInt16(entry.name.count))
    }

    /// MS-DOS date and time of a Unix time, in UTC, the year clamped to 1980...2099 (as ZIPFoundation
    /// does, month and day unclamped).
    static func dosDateTime(_ unixSeconds: Int64) -> (date: UInt16, time: UInt16) {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let seconds = unixSeconds - days * 86_400
        // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = min(max(yearOfEra + era * 400 + (month <= 2 ? 1 : 0), 1980), 2099)
        let date = day + month * 32 + (year - 1980) * 512
        let time = (seconds % 60) / 2 + (seconds / 60 % 60) * 32 + (seconds / 3600) * 2048
        return (UInt16(date), UInt16(time))
    }
}

extension [UInt8] {
    /// Appends `value` least significant byte first, as zip stores every number.
    fileprivate mutating func le<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
