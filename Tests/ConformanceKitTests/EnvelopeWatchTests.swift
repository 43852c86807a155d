import ConformanceKit
import Crypto
import Migration
import Testing
import WireCore

/// The migration watch with the password: the envelope's segments are opened as the chunks pass,
/// and a segment that fails is the sender's violation, at `/segments/N`.
@Suite("Envelope segments authenticated as they pass the watch")
struct EnvelopeWatchTests {
    static let password = "correct horse battery staple"
    static let backupId = "3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f"

    /// 200,000 bytes in 64 KiB segments (4 of them), cut into 4096-byte chunks.
    static func envelope() throws -> [UInt8] {
        var random = ScriptedBytes(Array(repeating: 7, count: 64))
        return try Envelope.seal((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }, password: password, iterations: 1000, random: &random)
    }

    /// What the watch learns from `envelope`'s chunks, sent in order but for chunks 5 and 6 swapped.
    static func watch(_ envelope: [UInt8], password: String?) -> [WireEvent.Body] {
        let meta = ControlMessage.BackupMeta(
            backupId: backupId, fileSize: Int64(envelope.count), chunkSize: 4096, envelopeSHA256: SHA256.hash(data: envelope).hexEncoded, zipSize: 0, schemaVersion: 1, appVersion: "1")
        var digest = EnvelopeDigest(password: password)
        digest.sender(ControlFrame.encode(.backupMeta(meta)))
        var order = Array(0..<meta.chunkCount)
        order.swapAt(5, 6)
        var learnt: [WireEvent.Body] = []
        for i in order {
            let data = Array(envelope[(i * 4096)..<min(envelope.count, (i + 1) * 4096)])
            let frame = BackupChunk(backupId: backupId, index: i, offset: Int64(i * 4096), data: data).encoded
            learnt += digest.chunk(frame, dataSHA256: WireEvent.BinaryFrame(frame, cap: 0).restSHA256)
        }
        return learnt
    }

    @Test func everySegmentOfASoundEnvelopeOpens() throws {
        let learnt = Self.watch(try Self.envelope(), password: Self.password)
        #expect(learnt.count == 2, "\(learnt)")
        #expect(learnt.first == .segments(opened: 4, refused: nil))
        guard case .envelope(_, let length)? = learnt.last else { Issue.record("no envelope event: \(learnt)"); return }
        #expect(length == Int64(try Self.envelope().count))
    }

    /// A byte of segment 2's ciphertext changed before chunking: every chunk's digest matches its
    /// data, so only the segment's authentication shows it.
    @Test func aChangedSegmentIsRefusedAtItsIndex() throws {
        var envelope = try Self.envelope()
        envelope[EnvelopeHeader.length + 2 * (EnvelopeHeader.frameOverhead + 65536) + 100] ^= 0x01
        let learnt = Self.watch(envelope, password: Self.password)
        guard case .segments(let opened, let refused?)? = learnt.first else { Issue.record("no refusal: \(learnt)"); return }
        #expect(opened == 2)
        #expect(refused.code == .segmentCorrupt)
        #expect(refused.path == JSONPointer.root / "segments" / 2)
        // The digest is still computed: the envelope's bytes all passed.
        guard case .envelope? = learnt.last else { Issue.record("no envelope event: \(learnt)"); return }

        // The judge makes it the sender's violation, on the segment rule, at its pointer.
        var judge = MigrationWatch(options: .init())
        judge.handle(WireEvent(at: 1, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        judge.handle(WireEvent(at: 2, connection: 1, learnt[0]))
        let findings = judge.finish(at: 3).findings
        #expect(findings.map(\.side) == ["sender"])
        #expect(findings.map(\.violation.rule) == [MigrationRule.envelopeSegment])
        #expect(findings.map(\.violation.path) == [JSONPointer.root / "segments" / 2])
    }

    /// The watcher's own wrong password is a note, not the sender's violation.
    @Test func aWrongPasswordIsANote() throws {
        let learnt = Self.watch(try Self.envelope(), password: "not it")
        guard case .segments(0, let refused?)? = learnt.first else { Issue.record("no refusal: \(learnt)"); return }
        #expect(refused.code == .wrongPassword)
        var judge = MigrationWatch(options: .init())
        judge.handle(WireEvent(at: 1, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        judge.handle(WireEvent(at: 2, connection: 1, learnt[0]))
        let result = judge.finish(at: 3)
        #expect(result.findings.isEmpty)
        #expect(result.notes.contains { $0.contains("does not open the envelope") }, "\(result.notes)")
    }

    /// The segments' verdict survives the session log: a replay reads back what was written.
    @Test func theVerdictRoundTripsThroughTheLog() throws {
        let refused = EnvelopeError(.segmentCorrupt, .root / "segments" / 2, at: 131_211, "segment 2 fails authentication")
        for body in [WireEvent.Body.segments(opened: 4, refused: nil), .segments(opened: 2, refused: refused)] {
            let event = WireEvent(at: 5, connection: 1, body)
            let log = #"{"sessionLog":\#(SessionLog.version),"family":"migration","startedAt":0}"# + "\n" + SessionLog.line(event) + "\n"
            #expect(try SessionLog.read(Array(log.utf8)).events == [event])
        }
    }
}
