@testable import ConformanceLive
import Testing
import WireCore

/// The live schedule of the relay's time-based cases keeps every pair of events on its side of
/// the window, with a margin, whatever the relay's window.
@Suite("Relay schedules and case isolation")
struct RelayScheduleTests {
    static let window: EpochMillis = 300_000

    @Test(arguments: [300_000, 2_000] as [Int64])
    func aliasInTimeAndTooLate(live: Int64) throws {
        // alias-valid-for-five-minutes: the message exactly at the lifetime is in time.
        let valid = try #require(RelaySchedule.make(times: [0, 0, 0, 300_000], vectorWindow: Self.window, liveWindow: live))
        #expect(valid.offsets[3] == live - valid.margin)
        // alias-expires: re-registered at 200,000 (no extension), the message at 300,001 is late.
        let expires = try #require(RelaySchedule.make(times: [0, 0, 200_000, 300_001], vectorWindow: Self.window, liveWindow: live))
        #expect(expires.offsets[3] >= live + expires.margin)
        #expect(expires.offsets[3] - expires.offsets[2] <= live - expires.margin)
        #expect(expires.margin > 0)
    }

    @Test func guessWindowSlidesByOneMiss() throws {
        // guessing-is-rate-limited: five misses a second apart; at 301,001 the first miss has left
        // the window and the second has not.
        let times: [EpochMillis] = [0, 0, 0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 301_001]
        let s = try #require(RelaySchedule.make(times: times, vectorWindow: Self.window, liveWindow: 2_000))
        let last = s.offsets[10]
        #expect(last - s.offsets[3] >= 2_000 + s.margin)
        #expect(last - s.offsets[4] <= 2_000 - s.margin)
        #expect(s.offsets == s.offsets.sorted())
    }

    /// Placed greedily, earliest first: the second event goes as close to its own time as it may,
    /// and then the fourth cannot be both a window after the second and a margin after the third.
    /// Such a case is skipped with that reason, never played without its margins.
    @Test func noScheduleWhenTheGreedyPlacementCannotKeepTheMargin() {
        #expect(RelaySchedule.make(times: [0, 1000, 300_001, 301_000], vectorWindow: Self.window, liveWindow: 2_000) == nil)
    }

    @Test func isolationRenamesIdsAndCodesConsistently() {
        var random = SystemRandomNumberGenerator()
        let register: JSONValue = ["type": "register", "peerId": "pairing-code:048213"]
        let message: JSONValue = [
            "type": "message", "to": "pairing-code:048213", "from": "did:cc:phone-1",
            "payload": ["type": "pair-ack", "pairingCode": "048213", "mobileDid": "did:cc:phone-1"],
        ]
        let blank: JSONValue = ["type": "register", "peerId": "   "]
        let isolation = RelayIsolation(documents: [register, message, blank], nonce: "abc1", random: &random)
        let sent = isolation.apply(message)
        let alias = sent["to"]?.stringValue ?? ""
        #expect(alias.hasPrefix("pairing-code:") && alias != "pairing-code:048213")
        #expect(isolation.apply(register)["peerId"]?.stringValue == alias)
        #expect(sent["payload"]?["pairingCode"]?.stringValue == String(alias.dropFirst("pairing-code:".count)))
        #expect(sent["from"] == "did:cc:phone-1-abc1")
        #expect(sent["payload"]?["mobileDid"] == "did:cc:phone-1-abc1")
        #expect(isolation.apply(blank) == blank, "an invalid id stays invalid")
    }
}
