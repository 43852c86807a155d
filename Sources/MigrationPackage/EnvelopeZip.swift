import Foundation
import Migration

/// The zip inside an envelope, opened in place: no decrypted copy is written. Any range opens
/// only the segments that hold it (each segment is authenticated on its own), so the central
/// directory at the end is read first; `stream` then opens every segment in order.
struct EnvelopeZip: ZipBytes {
    private let reader: FileReader
    private var opener: EnvelopeOpener
    /// The last segment `read` opened: ranges that follow one another often share it.
    private var cached: (index: UInt64, plaintext: Data)?

    /// Checks the header, the password and the envelope's length (MIG-ENV-001 to 007).
    init(_ url: URL, password: String, policy: EnvelopePolicy) throws {
        reader = try FileReader(url)
        let total = try FileSystem.size(of: url)
        let header = [UInt8](try reader.read(EnvelopeHeader.length))
        do throws(EnvelopeError) {
            opener = try EnvelopeOpener(header: header, password: password, policy: policy, cipher: .fastest)
            try opener.checkLength(UInt64(total))
        } catch {
            throw PackageError.envelope(error)
        }
    }

    var header: EnvelopeHeader { opener.header }
    var length: Int64 { Int64(opener.header.plaintextLength) }

    mutating func read(_ range: Range<Int64>) throws -> [UInt8] {
        let size = Int64(opener.header.segmentSize)
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var position = range.lowerBound
        while position < range.upperBound {
            let index = UInt64(position / size)
            let plaintext = try segment(index)
            let start = Int(position - Int64(index) * size)
            let end = min(plaintext.count, start + Int(range.upperBound - position))
            out.append(contentsOf: plaintext[start..<end])
            position += Int64(end - start)
        }
        return out
    }

    private mutating func segment(_ index: UInt64) throws -> Data {
        if let cached, cached.index == index { return cached.plaintext }
        let length = EnvelopeHeader.frameOverhead + opener.header.plaintextLength(ofSegment: index)
        let frame = try reader.read(at: Int64(opener.offset(ofSegment: index)), length)
        do throws(EnvelopeError) {
            let plaintext = try opener.open(frame, segment: index)
            cached = (index, plaintext)
            return plaintext
        } catch {
            // The Spec reports the first failure in file order: an earlier frame may fail too.
            try stream { _ in }
            throw PackageError.envelope(error)
        }
    }

    /// Opens the segments a few batches ahead of `body`, on a thread of its own (`ReadAhead`).
    mutating func stream(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try streamHeld { piece, release in
            defer { release() }
            try body(piece)
        }
    }

    /// A batch goes back to the read-ahead only once released: up to `depth` MiB are written or
    /// hashed at once.
    mutating func streamHeld(_ body: (UnsafeRawBufferPointer, _ release: @escaping @Sendable () -> Void) throws -> Void) throws {
        let frames = Frames(reader, opener)
        // Handed on in pieces of about 1 MiB: each is one write(2) per file it holds, and on
        // ext4 a write(2) costs about as much as copying 64 KiB. Six: two files hashed at once
        // (5 MiB each in the bench's store) while the writer is a batch or two ahead of both.
        let ahead = ReadAhead(depth: 6, capacity: EnvelopeFile.StreamSealer.batch + Int(opener.header.segmentSize)) {
            try frames.fill($0)
        }
        defer { ahead.close() }
        while let batch = try ahead.next() {
            try body(batch.bytes) { ahead.recycle(batch) }
        }
    }

    /// The envelope front to back, on the read-ahead thread.
    private final class Frames {
        private let reader: FileReader
        private var opener: EnvelopeOpener
        private var offset = Int64(EnvelopeHeader.length)

        init(_ reader: FileReader, _ opener: EnvelopeOpener) {
            self.reader = reader
            self.opener = opener
        }

        /// Opens segments into `batch` until it holds about 1 MiB; false once the last is open.
        func fill(_ batch: ReadAhead.Batch) throws -> Bool {
            while !opener.isFinished, batch.count < EnvelopeFile.StreamSealer.batch {
                let frame = try reader.read(at: offset, opener.nextFrameLength)
                offset += Int64(frame.count)
                do throws(EnvelopeError) {
                    try opener.open(frame).withUnsafeBytes { batch.append($0) }
                } catch {
                    throw PackageError.envelope(error)
                }
            }
            return !opener.isFinished
        }
    }
}
