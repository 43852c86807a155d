@testable import ConformanceLive
import ConformanceKit
import Foundation
import PairingPeer
import Pairing
import Testing
import WireCore

/// A scenario's end is a verdict on a rule: a limit passed after a rule's deadline passed
/// reports that rule, never `testee-timeout` (issue 38, case 8: a desktop that never answered the
/// offer ended `BROKE testee-timeout` at 120 s instead of failing on PAIR-RTC-006).
@Suite("live scenarios end on a rule")
struct ScenarioLimitTests {
    @Test func aLimitPassedAfterARulesDeadlineIsThatRulesFailure() {
        let collector = Collector(subject: "the desktop under test")
        collector.add(Violation(rule: PairingRule.rtcNegotiation, path: .root, expected: "an answer within 30000 ms", found: "none"))
        let outcome = collector.timedOut(.seconds(120), levels: RuleLevels())
        #expect(outcome.status == .failed, "\(outcome.status)")
        #expect(outcome.violations.map(\.rule) == [PairingRule.rtcNegotiation])
        #expect(outcome.notes.contains("the scenario did not end within 120.0 seconds, after the violations above"), "\(outcome.notes)")
    }

    @Test func aLimitPassedWithNothingFoundIsTheTesteesTimeout() {
        let outcome = Collector(subject: "the desktop under test").timedOut(.seconds(120), levels: RuleLevels())
        guard case .broken(.timeout(let why)) = outcome.status else {
            Issue.record("\(outcome.status)")
            return
        }
        #expect(why == "the scenario did not end within 120.0 seconds")
    }
}

extension ScenarioLimitTests {
    /// The limit holds the Spec's waits of the scenario: the real desktop's 60 s back-off (a new
    /// QR may take 96 s) and the 30 s exchange outlasted a fixed 120 s.
    @Test func aWebRTCScenarioWaitsForTheDesktopsLongestBackoffAndTheExchange() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Conformance/scenarios/pairing.json")
        let scenario = try #require(try PairingScenario.load(file).first { $0.id == "pairing/live-desktop/webrtc" })
        var options = LiveOptions(role: .desktop, announce: { _ in })
        options.backoff = [2000, 4000, 8000, 16_000, 32_000, 60_000]
        let player = PairingScenarioPlayer(options: options, relay: RelayServer(clock: { 0 }, log: { _ in }), observer: RelayObserver(), relayURL: "ws://127.0.0.1:9")
        #expect(player.qrGrace == .milliseconds(60_000 * 3 / 2 + 1000) + options.frameTimeout)
        #expect(player.limit(scenario) >= .seconds(120) + player.qrGrace + .milliseconds(WebRTCNegotiationMachine.seedTimeout))
    }
}
