import Crypto
import Foundation
import Migration
import WireCore

/// The envelope opened front to back as its bytes arrive, in whatever pieces (a streaming
/// receiver's chunks, §5.5): the header, then each frame once it is whole, its plaintext handed
/// on only after its tag verified (MIG-ENV-009). `checkpoint()` is the state after the bytes
/// consumed so far: the segment reached and the part of the next frame already in.
struct EnvelopeStream {
    private let password: String
    private let policy: EnvelopePolicy
    private var opener: EnvelopeOpener?
    /// The header, or the next frame, gathered until whole.
    private var pending: [UInt8] = []
    private var index: UInt64 = 0
    private(set) var consumed: Int64 = 0
    /// The SHA-256 of every byte consumed: nil once the stream was resumed from a checkpoint, as a
    /// running digest cannot be saved.
    private var digest: SHA256? = SHA256()

    init(password: String, policy: EnvelopePolicy) {
        self.password = password
        self.policy = policy
    }

    init(resuming state: JSONValue, password: String, policy: EnvelopePolicy) throws {
        self.init(password: password, policy: policy)
        guard let consumed = state["consumed"]?.integerValue, let index = state["index"]?.integerValue,
            let pending = state["pending"]?.stringValue.flatMap({ Data(base64Encoded: $0) })
        else { throw PackageError.io("the envelope's checkpoint is damaged") }
        if let header = state["header"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) {
            do throws(EnvelopeError) {
                opener = try EnvelopeOpener(header: [UInt8](header), password: password, policy: policy, cipher: .fastest)
            } catch {
                throw PackageError.envelope(error)
            }
        }
        self.consumed = consumed
        self.index = UInt64(index)
        self.pending = [UInt8](pending)
        digest = nil
    }

    func checkpoint() -> JSONValue {
        var o = JSONObject()
        o["consumed"] = .number(JSONNumber(consumed))
        o["index"] = .number(JSONNumber(Int64(index)))
        o["pending"] = .string(Data(pending).base64EncodedString())
        if let opener { o["header"] = .string(Data(opener.header.encoded).base64EncodedString()) }
        return .object(o)
    }

    /// Every segment opened, and nothing after the last.
    var isFinished: Bool { opener.map { index == $0.header.segmentCount } == true && pending.isEmpty }

    /// The digest of the whole envelope, when every byte of it went through this stream.
    var sha256: String? { isFinished ? digest?.finalize().hexEncoded : nil }

    /// Opens what `bytes` complete and hands each segment's plaintext to `plaintext`.
    mutating func consume(_ bytes: UnsafeRawBufferPointer, _ plaintext: (UnsafeRawBufferPointer) throws -> Void) throws {
        digest?.update(bufferPointer: bytes)
        var at = 0
        while at < bytes.count {
            let wanted: Int
            if let opener {
                guard index < opener.header.segmentCount else {
                    throw PackageError.envelope(EnvelopeError(.extended, .root, at: Int(clamping: consumed), "data after the last segment"))
                }
                wanted = opener.nextFrameLength(index)
            } else {
                wanted = EnvelopeHeader.length
            }
            let take = min(bytes.count - at, wanted - pending.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + take)]))
            at += take
            consumed += Int64(take)
            guard pending.count == wanted else { continue }
            if opener == nil {
                do throws(EnvelopeError) {
                    opener = try EnvelopeOpener(header: pending, password: password, policy: policy, cipher: .fastest)
                } catch {
                    throw PackageError.envelope(error)
                }
            } else {
                let opened: Data
                do throws(EnvelopeError) {
                    opened = try opener!.open(pending, segment: index)
                } catch {
                    throw PackageError.envelope(error)
                }
                index += 1
                try opened.withUnsafeBytes(plaintext)
            }
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Throws when the envelope ended before its last segment (MIG-ENV-006).
    func finish() throws {
        guard isFinished else {
            throw PackageError.envelope(EnvelopeError(.truncated, .root, at: Int(clamping: consumed), "the envelope ends after \(consumed) bytes"))
        }
    }
}

extension EnvelopeOpener {
    /// The length of frame `index`: its overhead and its segment's plaintext.
    fileprivate func nextFrameLength(_ index: UInt64) -> Int {
        EnvelopeHeader.frameOverhead + header.plaintextLength(ofSegment: index)
    }
}
