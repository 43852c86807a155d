import Foundation
import Migration
import WireCore

/// The envelope on disk: seals and opens files segment by segment, so memory does not grow
/// with the package. Output appears under its final name only when complete.
public enum EnvelopeFile {
    /// Seals a payload handed over in pieces of any size: it cuts the segments, seals each into
    /// one reused frame buffer and writes the frames in batches of about 1 MiB, so memory stays
    /// flat however long the payload is.
    struct StreamSealer {
        private var sealer: EnvelopeSealer
        private let out: ([UInt8]) throws -> Void
        private var segment: [UInt8] = []
        private var frames: [UInt8] = []
        private var index: UInt64 = 0

        /// Hands the header on with the first frames; `out` gets the envelope in order, in
        /// batches of about `batch` bytes (a file's write, or the streaming sender's digest).
        init(_ sealer: EnvelopeSealer, writingTo out: @escaping ([UInt8]) throws -> Void) throws {
            self.sealer = sealer
            self.out = out
            segment.reserveCapacity(Int(sealer.header.segmentSize))
            frames.reserveCapacity(Self.batch + Int(sealer.header.segmentSize) + EnvelopeHeader.frameOverhead)
            frames.append(contentsOf: sealer.header.encoded)
        }

        /// Bytes gathered before a write(2).
        static let batch = 1 << 20

        mutating func append(_ bytes: UnsafeRawBufferPointer) throws {
            var offset = 0
            while offset < bytes.count {
                guard !sealer.isFinished else { throw EnvelopeSealer.Failure.finished }
                let wanted = sealer.header.plaintextLength(ofSegment: index) - segment.count
                let take = Swift.min(wanted, bytes.count - offset)
                segment.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
                offset += take
                if take == wanted { try sealSegment() }
            }
        }

        mutating func append(_ bytes: some ContiguousBytes) throws {
            try bytes.withUnsafeBytes { try append($0) }
        }

        /// Seals what remains (an empty last segment included) and writes every frame; throws
        /// when the payload came out shorter than the header states.
        mutating func finish() throws {
            if !sealer.isFinished, segment.count == sealer.header.plaintextLength(ofSegment: index) { try sealSegment() }
            guard sealer.isFinished else {
                throw EnvelopeSealer.Failure.segmentLength(index: index, expected: sealer.header.plaintextLength(ofSegment: index), found: segment.count)
            }
            try out(frames)
            frames.removeAll(keepingCapacity: true)
        }

        private mutating func sealSegment() throws {
            try sealer.seal(segment, appendingTo: &frames)
            segment.removeAll(keepingCapacity: true)
            index += 1
            if frames.count >= Self.batch {
                try out(frames)
                frames.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Opens `input` into `output`; on any failure `output` is not created.
    @discardableResult
    public static func open(_ input: URL, to output: URL, password: String, policy: EnvelopePolicy = .standard) throws -> EnvelopeHeader {
        var zip = try EnvelopeZip(input, password: password, policy: policy)
        try FileSystem.writeAtomically(to: output) { out in
            try zip.stream { try out.write(contentsOf: $0) }
        }
        return zip.header
    }
}
