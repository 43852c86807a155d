import ConformanceKit
import Crypto
import Migration
import Testing
import WireCore

/// MIG-XFER-002 as the watch judges it between two real peers, with MIG-XFER-005's live
/// tolerance: a chunk seen again soon after its `ok` crossed the watch may have left before the
/// sender read the `ok`; one seen at 80 % of the ack timeout or later is the sender's break.
@Suite("The watch on chunks sent again")
struct MigrationWatchResendTests {
    static let backupId = "3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f"

    /// A session up to StartTransfer, chunk 0 sent and acknowledged at 1000, then chunk 0 seen
    /// again at `againAt`; the violations found (rule and path).
    static func findings(againAt: EpochMillis) -> [String] {
        let data = [UInt8](repeating: 7, count: 4096 * 2)
        let meta = ControlMessage.BackupMeta(
            backupId: backupId, fileSize: Int64(data.count), chunkSize: 4096, envelopeSHA256: SHA256.hash(data: data).hexEncoded, zipSize: 0, schemaVersion: 1, appVersion: "1")
        let hello = { (role: ControlMessage.Handshake.Role, id: String) in
            ControlMessage.handshake(.init(role: role, sessionId: id, appVersion: "1", schemaVersion: 1, deviceName: "d", maxWindow: 4, maxChunkSize: 4096))
        }
        var options = MigrationWatch.Options()
        options.ackTimeout = 1000
        var judge = MigrationWatch(options: options)
        var at: EpochMillis = 0
        func text(_ side: WireEvent.Side, _ message: ControlMessage, at time: EpochMillis? = nil) {
            at = time ?? at + 1
            judge.handle(WireEvent(at: at, connection: 1, .text(from: side, JSONSerializer.compact(message.json))))
        }
        func chunk(_ index: Int, at time: EpochMillis) {
            let frame = BackupChunk(backupId: backupId, index: index, offset: Int64(index * 4096), data: Array(data[(index * 4096)..<((index + 1) * 4096)])).encoded
            judge.handle(WireEvent(at: time, connection: 1, .binary(from: .server, WireEvent.BinaryFrame(frame, cap: 0))))
        }
        judge.handle(WireEvent(at: 0, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        text(.client, hello(.receiver, "22222222-2222-4222-a222-222222222222"))
        text(.server, hello(.sender, "33333333-3333-4333-b333-333333333333"))
        text(.server, .authPIN(.request(pin: "123456")))
        text(.client, .authPIN(.accepted(resumeToken: String(repeating: "1", count: 32))))
        text(.server, .startBackup)
        text(.server, .backupMeta(meta))
        text(.client, .startTransfer(backupId: backupId, window: 4))
        chunk(0, at: 900)
        text(.client, .chunkAck(backupId: backupId, index: 0, status: .ok), at: 1000)
        chunk(0, at: againAt)
        return judge.finish(at: againAt + 1).findings.map { "\($0.side) \($0.violation.rule) \($0.violation.path)" }
    }

    @Test func aSendThatCrossedTheOkIsNotABreak() {
        #expect(Self.findings(againAt: 1000 + 799) == [])
    }

    @Test func aSendLongAfterTheOkIsTheSendersBreak() {
        #expect(Self.findings(againAt: 1000 + 800) == ["sender MIG-XFER-002 /index"])
    }
}
