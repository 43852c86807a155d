import Records
import Testing
import WireCore

@Suite("Records: lengths, times, machines")
struct RecordsTests {
    @Test(arguments: [("😀", 1), ("👨‍👩‍👧", 5), ("e\u{301}", 2), ("é", 1), ("字", 1), ("🇨🇳", 2)])
    func lengthsCountUnicodeScalars(text: String, scalars: Int) {
        #expect(scalarLength(text) == scalars)
    }

    @Test func isoTimesRoundTrip() {
        for ms: Int64 in [0, 1_747_300_000_123, 951_782_400_000, 4_102_444_799_999] {
            #expect(parseISOMillis(formatISOMillis(ms)) == ms)
        }
        #expect(parseISOMillis("2024-02-29T00:00:00.000Z") != nil)
        #expect(parseISOMillis("2023-02-29T00:00:00.000Z") == nil)
        #expect(parseISOMillis("2025-05-15T09:06:40Z") == nil)
        #expect(parseISOMillis("2025-05-15T09:06:40.000+00:00") == nil)
    }

    @Test func backoffDelays() {
        #expect((1...6).map(InitialSyncMachine.delay(afterFailure:)) == [1000, 2000, 4000, 8000, 16000, 32000])
        #expect(InitialSyncMachine.delay(afterFailure: 9) == 60000)
    }

    /// Random change/flush/upload sequences: a batch never exceeds 100, nothing is lost, and an
    /// idea changed after its upload started is uploaded again.
    @Test(arguments: 0..<20)
    func queueNeverLosesAChange(seed: UInt64) {
        var g = SplitMix64(seed: seed)
        var queue = SyncQueue()
        var latest: [String: EpochMillis] = [:]
        var uploadedAt: [String: EpochMillis] = [:]
        var inFlight: [String] = []
        for step in 0..<600 {
            let at = EpochMillis(step)
            switch Int.random(in: 0..<10, using: &g) {
            case 0..<6:
                let id = "i\(Int.random(in: 0..<250, using: &g))"
                latest[id] = at
                _ = queue.handle(.change(ideaId: id, at: at))
            case 6, 7:
                for case .upload(let ids) in queue.handle(inFlight.isEmpty ? .flush : .uploaded) {
                    #expect(ids.count <= 100)
                    if !inFlight.isEmpty { for id in inFlight { uploadedAt[id] = uploadedAt[id] ?? -1 } }
                    inFlight = ids
                    for id in ids { uploadedAt[id] = latest[id] }
                }
            default:
                _ = queue.handle(.uploadFailed)
                inFlight = []
            }
        }
        // Every idea whose latest change was not part of a sent batch is still pending.
        for (id, at) in latest where uploadedAt[id] != at {
            #expect(queue.pending[id] == at, "\(id) lost")
        }
    }

    @Test func conflictResolutionIsSymmetricOnTies() throws {
        func record(_ title: String, tag: String) -> JSONValue {
            ["recordName": "r", "recordType": "Habit", "recordChangeTag": .string(tag),
             "fields": ["name": ["value": .string(title), "type": "STRING"], "updatedAt": ["value": 1_747_300_000_000, "type": "TIMESTAMP"]]]
        }
        // A and B; and é in NFC and NFD, equal as Swift Strings, which made the server win from both sides.
        for (x, y) in [("A", "B"), ("caf\u{E9}", "cafe\u{301}")] {
            let a = record(x, tag: "t1")
            let b = record(y, tag: "t2")
            let one = ConflictResolver.resolve(ancestor: nil, local: a, server: b, strategy: .lastWrite)
            let other = ConflictResolver.resolve(ancestor: nil, local: b, server: a, strategy: .lastWrite)
            #expect(one.record["fields"] == other.record["fields"], "\(x) vs \(y)")
            #expect(one.winner != other.winner, "\(x) vs \(y)")
        }
    }
}
