import Pairing
import Testing
import WireCore

/// A client's connection judged through the connection machine (PAIR-CONN-003), as the watch
/// judges what it saw: keepalives at the stated interval within the Spec's tolerance, and a
/// connection dropped once its keepalives went unanswered.
@Suite("an observed connection, judged by the connection machine")
struct ObservedConnectionTests {
    static func policy(interval: EpochMillis = 30_000, limit: Int = 1) -> SignalingConnectionMachine.Policy {
        var policy = SignalingConnectionMachine.Policy(backoff: [500], keepaliveInterval: interval)
        policy.unansweredLimit = limit
        return policy
    }

    /// Keepalives at `times` (ms after the opening at 0), each answered when `answered`.
    static func observe(_ times: [EpochMillis], answered: Bool, limit: Int = 1, until end: EpochMillis? = nil) -> ObservedConnection {
        var observed = ObservedConnection(policy: policy(limit: limit), openedAt: 0)
        for at in times {
            observed.keepalive(at: at)
            if answered { observed.heard(at: at + 5) }
        }
        if let end { observed.silence(until: end) }
        return observed
    }

    @Test func answeredKeepalivesAtTheIntervalAreNoBreach() {
        #expect(Self.observe([30_000, 60_000, 90_000, 120_000], answered: true, until: 130_000).breach == nil)
    }

    /// A timer 15 % fast, ten times over: each gap is within the tolerance, and the machine,
    /// set by each keepalive, does not add the drift up.
    @Test func aFastTimerIsJudgedGapByGap() {
        let times = (1...10).map { EpochMillis($0) * 25_500 }
        #expect(Self.observe(times, answered: true, until: 260_000).breach == nil)
    }

    @Test(arguments: [(1, 2), (3, 4)])
    func aKeepaliveSentWhereTheDropWasDueIsTheBreach(limit: Int, breaking: Int) {
        let times = (1...5).map { EpochMillis($0) * 30_000 }
        let breach = Self.observe(times, answered: false, limit: limit).breach
        #expect(breach?.keepalive == breaking)
        #expect(breach?.at == EpochMillis(breaking) * 30_000)
        #expect(breach?.violation.rule == PairingRule.keepaliveInterval)
        #expect(breach?.violation.expected.contains("\(limit) keepalive(s) in a row unanswered") == true, "\(String(describing: breach))")
    }

    /// Anything from the relay between two keepalives (its pong) keeps the connection alive.
    @Test func oneAnswerBetweenKeepalivesStartsTheCountAgain() {
        var observed = ObservedConnection(policy: Self.policy(limit: 1), openedAt: 0)
        observed.keepalive(at: 30_000)
        observed.heard(at: 40_000)
        observed.keepalive(at: 60_000)
        observed.heard(at: 61_000)
        observed.keepalive(at: 90_000)
        #expect(observed.breach == nil)
        observed.keepalive(at: 120_000)
        #expect(observed.breach?.keepalive == 4)
    }

    @Test func aClientThatNeitherPingsNorDropsIsStillOpen() {
        let breach = Self.observe([30_000], answered: false, until: 100_000).breach
        #expect(breach?.keepalive == 2 && breach?.at == 100_000)
        #expect(breach?.violation.found == "still open 70000 ms later", "\(String(describing: breach))")
    }

    @Test func aSilentClientMissesItsKeepalive() {
        let breach = Self.observe([30_000], answered: true, until: 68_000).breach
        #expect(breach?.keepalive == 2 && breach?.violation.expected == "keepalive 2 30000 ms after the one before (24000...37000 ms)" && breach?.violation.found == "none for 38000 ms")
        #expect(Self.observe([30_000], answered: true, until: 67_000).breach == nil)
    }

    @Test func lateAndEarlyGapsAreBreaches() {
        #expect(Self.observe([30_000, 67_001], answered: true).breach?.violation.found == "37001 ms")
        #expect(Self.observe([37_001], answered: true).breach?.violation.expected == "keepalive 1 at most 30000 ms after the connection opened (0...37000 ms)")
        #expect(Self.observe([30_000, 67_000], answered: true).breach == nil)
        #expect(Self.observe([30_000, 53_999], answered: true).breach?.violation.found == "23999 ms")
        // The first one has only a deadline: the connection opens at any point of the timer.
        #expect(Self.observe([1], answered: true).breach == nil)
    }

    /// No stated interval: the longest late, the shortest early.
    @Test func anUnstatedIntervalAllowsWhatTheSpecAllows() {
        var observed = ObservedConnection(policy: Self.policy(interval: 30_000, limit: 3), intervalStated: false, openedAt: 0)
        for at in [5_000, 10_000, 40_000] as [EpochMillis] {
            observed.keepalive(at: at)
            observed.heard(at: at)
        }
        #expect(observed.breach == nil)
        observed.keepalive(at: 43_999)
        #expect(observed.breach?.violation.expected == "keepalive 4 5000 to 30000 ms after the one before (4000...37000 ms)")
    }

    @Test func theTolerancesAreTheSpecs() {
        #expect(ObservedConnection.Tolerance.delay(500 as EpochMillis) == 400...1750)
        #expect(ObservedConnection.Tolerance.keepaliveGap(30_000 as EpochMillis) == 24_000...37_000)
    }
}
