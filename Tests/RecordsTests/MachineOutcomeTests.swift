import Records
import Testing
import WireCore

/// The records machines under the one contract (WireCore `Step`): what each ignores says why,
/// a SyncLog entry that is not one is refused with its violation, and a launch prunes a long log
/// in one pass.
@Suite("Records machines: outcomes")
struct RecordsMachineOutcomeTests {
    static func entry(_ n: Int, day: Int) -> JSONValue {
        let id = "a1b2c3d4-\(String(format: "%04d", n % 10_000))-4000-8000-\(String(format: "%012d", n))"
        return [
            "id": .string(id), "ideaId": "3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f", "eventType": "sync_success",
            "timestamp": .string("2025-05-\(String(format: "%02d", day))T09:06:40.000Z"), "deviceId": "dev-1",
        ]
    }

    @Test func aQueueWithNothingPendingIgnoresAFlush() {
        var queue = SyncQueue()
        #expect(queue.step(.flush).outcome == .ignored("nothing is pending"))
        _ = queue.step(.change(ideaId: "i1", at: 1))
        #expect(queue.step(.flush).actions == [.upload(["i1"])])
        #expect(queue.step(.flush).outcome == .ignored("a batch is in flight"))
    }

    @Test func aMalformedLogEntryIsRefusedWithItsViolation() {
        var log = SyncLogStore()
        var bad = Self.entry(1, day: 15).objectValue!
        bad["eventType"] = "sync_maybe"
        let step = log.step(.append(.object(bad)))
        guard case .refused(let violation) = step.outcome else {
            Issue.record("\(step.outcome)")
            return
        }
        #expect(violation.rule == RecordRule.syncLog && violation.path == .root / "eventType", "\(violation)")
        #expect(step.actions == [.drop(violation)])
        #expect(log.entries.isEmpty)
    }

    /// 40,000 entries, every other one past the 30 days at launch: one pass keeps exactly the
    /// young half, in order (a lookup of each entry in the kept list was quadratic).
    @Test func aLaunchPrunesALongLogInOnePass() {
        var log = SyncLogStore()
        for n in 0..<40_000 { _ = log.step(.append(Self.entry(n, day: n % 2 == 0 ? 1 : 28))) }
        #expect(log.entries.count == 40_000)
        let launch: EpochMillis = 1_749_978_400_000  // 2025-06-15: May 1st is past 30 days, May 28th is not
        let step = log.step(.launch(at: launch))
        guard case .prune(let ids)? = step.actions.first else {
            Issue.record("\(step.actions.prefix(1))")
            return
        }
        #expect(ids.count == 20_000 && log.entries.count == 20_000)
        #expect(log.entries.allSatisfy { $0.timestamp > launch - 30 * 86_400_000 })
        #expect(log.entries.map(\.id) == (0..<40_000).filter { $0 % 2 == 1 }.map { Self.entry($0, day: 28)["id"]!.stringValue! })
    }
}
