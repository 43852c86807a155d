import Foundation
import WireCore

/// The package's zip at any offset, put together from the store's files and the layout planned
/// for them (`StoredZip`): what a streaming sender seals, segment by segment, instead of reading
/// a package file. Each file's bytes are read where they lie and checked against the snapshot the
/// package was planned from (MIG-XFER-008): a file that changed since fails the read, so no byte
/// that contradicts the manifest is ever handed out.
struct ZipContent: Sendable {
    let layout: StoredZip
    /// Every entry's source file, the manifest's excepted (it is the last entry, `manifest`).
    let sources: [URL]
    let stamps: [FileSystem.FileStamp]
    let crcs: [UInt32]
    let manifest: [UInt8]

    /// The file read last: chunks go in order, so they mostly read on in one file.
    final class OpenFile {
        var index = -1
        var reader: FileReader?
    }

    /// Appends the zip's bytes in `range` to `out`.
    func append(_ range: Range<Int64>, to out: inout Data, using open: OpenFile) throws {
        var position = range.lowerBound
        while position < range.upperBound {
            let want = range.upperBound - position
            if position >= layout.centralDirectoryOffset {
                position += try appendDirectory(at: position, want, to: &out)
                continue
            }
            let entry = Self.last(in: layout.offsets, atMost: position)
            let inEntry = position - layout.offsets[entry]
            let headerLength = layout.localHeaderLength(entry)
            if inEntry < headerLength {
                let header = layout.localHeader(entry, crc: crcs[entry])
                let take = Int(min(headerLength - inEntry, want))
                out.append(contentsOf: header[Int(inEntry)..<Int(inEntry) + take])
                position += Int64(take)
                continue
            }
            let inData = inEntry - headerLength
            let take = Int(min(layout.entries[entry].size - inData, want))
            if entry == sources.count {
                out.append(contentsOf: manifest[Int(inData)..<Int(inData) + take])
            } else {
                try appendFile(entry, at: inData, take, to: &out, using: open)
            }
            position += Int64(take)
        }
    }

    /// Bytes of the central directory or the end records at `position`; returns how many.
    private func appendDirectory(at position: Int64, _ want: Int64, to out: inout Data) throws -> Int64 {
        let inDirectory = position - layout.centralDirectoryOffset
        let bytes: [UInt8]
        let start: Int64
        if inDirectory < layout.centralDirectorySize {
            let record = Self.last(in: layout.directoryOffsets, atMost: inDirectory)
            bytes = layout.directoryRecord(record, crc: crcs[record])
            start = inDirectory - layout.directoryOffsets[record]
        } else {
            bytes = layout.endRecords()
            start = inDirectory - layout.centralDirectorySize
        }
        let take = min(Int64(bytes.count) - start, want)
        guard take > 0 else { throw PackageError.io("offset \(position) lies past the zip's \(layout.length) bytes") }
        out.append(contentsOf: bytes[Int(start)..<Int(start + take)])
        return take
    }

    /// `count` bytes of entry `entry`'s file from `offset`, then the snapshot check: the file's
    /// size and modification time must be what they were when the package was planned.
    private func appendFile(_ entry: Int, at offset: Int64, _ count: Int, to out: inout Data, using open: OpenFile) throws {
        let source = sources[entry]
        if open.index != entry {
            open.reader = nil
            // A file gone since the snapshot is a change like any other.
            guard let reader = try? FileReader(source) else { throw PackageError.storeChanged(path: source.path) }
            open.reader = reader
            open.index = entry
        }
        let bytes = try open.reader!.read(at: offset, count)
        guard bytes.count == count, (try? FileSystem.stamp(of: source)) == stamps[entry] else {
            throw PackageError.storeChanged(path: source.path)
        }
        out.append(contentsOf: bytes)
    }

    /// The index of the last element of the sorted `offsets` at or below `position`.
    private static func last(in offsets: [Int64], atMost position: Int64) -> Int {
        var low = 0, high = offsets.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if offsets[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
