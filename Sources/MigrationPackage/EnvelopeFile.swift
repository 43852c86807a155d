import Foundation
import Migration
import WireCore

/// The envelope on disk: seals and opens files segment by segment, so memory does not grow
/// with the package. Output appears under its final name only when complete.
public enum EnvelopeFile {
    public static func seal<R: RandomByteSource>(
        _ input: URL, to output: URL, password: String, segmentSize: UInt32 = 1 << 16,
        iterations: UInt32 = EnvelopePolicy.defaultIterations, random: inout R
    ) throws {
        let length = try FileSystem.size(of: input)
        var sealer = try EnvelopeSealer(
            password: password, plaintextLength: UInt64(length), segmentSize: segmentSize, iterations: iterations, random: &random)
        try FileSystem.writeAtomically(to: output) { out in
            try out.write(contentsOf: sealer.header.encoded)
            let reader = try FileReader(input)
            var index: UInt64 = 0
            // One frame buffer, reused: constant memory and no fresh pages per segment.
            var frame: [UInt8] = []
            frame.reserveCapacity(Int(segmentSize) + EnvelopeHeader.frameOverhead)
            while !sealer.isFinished {
                let count = sealer.header.plaintextLength(ofSegment: index)
                let chunk = try reader.read(count)
                guard chunk.count == count else { throw PackageError.storeChanged(path: input.path) }
                frame.removeAll(keepingCapacity: true)
                try sealer.seal(chunk, appendingTo: &frame)
                try out.write(contentsOf: frame)
                index += 1
            }
        }
    }

    /// Opens `input` into `output`; on any failure `output` is not created.
    @discardableResult
    public static func open(_ input: URL, to output: URL, password: String, policy: EnvelopePolicy = .standard) throws -> EnvelopeHeader {
        let reader = try FileReader(input)
        let total = try FileSystem.size(of: input)
        let headerBytes = [UInt8](try reader.read(EnvelopeHeader.length))
        var opener: EnvelopeOpener
        do throws(EnvelopeError) {
            opener = try EnvelopeOpener(header: headerBytes, password: password, policy: policy)
            try opener.checkLength(UInt64(total))
        } catch {
            throw PackageError.envelope(error)
        }
        try FileSystem.writeAtomically(to: output) { out in
            while !opener.isFinished {
                let frame = [UInt8](try reader.read(opener.nextFrameLength))
                let plaintext: Data
                do throws(EnvelopeError) {
                    plaintext = try opener.open(frame)
                } catch {
                    throw PackageError.envelope(error)
                }
                try out.write(contentsOf: plaintext)
            }
        }
        return opener.header
    }
}
