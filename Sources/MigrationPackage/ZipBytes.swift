import Foundation

/// The bytes of a package's zip, wherever they are: a plain file (`conformance check`) or an
/// envelope opened segment by segment (`EnvelopeZip`). The central directory lies at the end,
/// so a reader needs some ranges before the rest: `read` gives any range; `stream` gives all
/// of it, in order, once.
protocol ZipBytes {
    var length: Int64 { get }
    /// Exactly the bytes in `range`, which lies within `0..<length` (the caller checks).
    mutating func read(_ range: Range<Int64>) throws -> [UInt8]
    /// Every byte from the start, in pieces of about 1 MiB.
    mutating func stream(_ body: (UnsafeRawBufferPointer) throws -> Void) throws
    /// As `stream`, but a piece stays valid until its `release` has run (once, from any thread),
    /// which may be after `body` returned: the hash lanes finish one piece while the next is
    /// written. At most a few pieces are held at once; the next waits for one to be released.
    mutating func streamHeld(_ body: (UnsafeRawBufferPointer, _ release: @escaping @Sendable () -> Void) throws -> Void) throws
}

extension ZipBytes {
    /// One piece at a time: `stream`'s piece is valid only while `body` runs, so each is waited
    /// for, even when `body` threw (a lane may still be reading it).
    mutating func streamHeld(_ body: (UnsafeRawBufferPointer, _ release: @escaping @Sendable () -> Void) throws -> Void) throws {
        try stream { piece in
            let released = DispatchSemaphore(value: 0)
            defer { released.wait() }
            try body(piece) { released.signal() }
        }
    }
}

/// A zip file on disk.
struct PlainZip: ZipBytes {
    private let reader: FileReader
    let length: Int64

    init(_ url: URL) throws {
        reader = try FileReader(url)
        length = try FileSystem.size(of: url)
    }

    func read(_ range: Range<Int64>) throws -> [UInt8] {
        let bytes = try reader.read(at: range.lowerBound, Int(range.count))
        guard bytes.count == range.count else { throw PackageError.io("the zip ended at \(range.lowerBound + Int64(bytes.count)) while being read") }
        return bytes
    }

    func stream(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var done: Int64 = 0
        while done < length {
            let chunk = try reader.read(at: done, Int(min(length - done, 1 << 20)))
            guard !chunk.isEmpty else { throw PackageError.io("the zip ended at \(done) while being read") }
            try chunk.withUnsafeBytes(body)
            done += Int64(chunk.count)
        }
    }
}
