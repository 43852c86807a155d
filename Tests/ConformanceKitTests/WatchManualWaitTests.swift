import ConformanceKit
import Testing
import WireCore

/// A typed code whose phone gives up before the Spec's 300 s (iOS waits 60 s): the session ends
/// where the phone left, not "the watch ended first", and the desktop is judged on the wait the
/// watch is told (`--confirmation-wait`), never on one the phone did not keep (issue 38, case 3).
@Suite("watch: a phone that stops waiting for its confirmation")
struct WatchManualWaitTests {
    static let t: EpochMillis = 1_795_632_883_563

    /// A desktop showing code 052900, a phone acking it at t + 52 and leaving 25 s later; the
    /// watch ends at t + 60 s.
    static func watch(confirmationWait: EpochMillis?, phoneReturns: Bool = false) -> WatchResult {
        let desk = "desktop-0c48f0b1", alias = "pairing-code:052900", phone = "did:key:z6MkbK7F5Uk73AfbRbXgyaeJe7WmaTZnSrhYciuCRY4dwkVD"
        var options = PairingWatch.Options()
        if let confirmationWait { options.confirmationWait = confirmationWait }
        var watch = PairingWatch(options: options)
        func text(_ at: EpochMillis, _ c: Int, _ s: String) { watch.handle(WireEvent(at: t + at, connection: c, .text(from: .client, s))) }
        watch.handle(WireEvent(at: t, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        text(1, 1, #"{"type":"register","peerId":"\#(desk)"}"#)
        text(2, 1, #"{"type":"register","peerId":"\#(alias)"}"#)
        watch.handle(WireEvent(at: t + 50, connection: 2, .open(peer: "127.0.0.1", path: "/")))
        text(51, 2, #"{"type":"register","peerId":"\#(phone)"}"#)
        let ack = #"{"type":"pair-ack","pairingCode":"052900","mobileDid":"\#(phone)","deviceInfo":{"deviceId":"d-1","name":"Phone","platform":"ios"},"timestamp":\#(t + 52)}"#
        text(52, 2, #"{"type":"message","to":"\#(alias)","payload":\#(ack)}"#)
        // The desktop keeps its connection alive (PAIR-CONN-003) and shows the code all along.
        watch.handle(WireEvent(at: t + 20_000, connection: 1, .ping(from: .client)))
        watch.handle(WireEvent(at: t + 25_052, connection: 2, .close(by: .client, code: 1000)))
        if phoneReturns {
            watch.handle(WireEvent(at: t + 26_000, connection: 3, .open(peer: "127.0.0.1", path: "/")))
            text(26_001, 3, #"{"type":"register","peerId":"\#(phone)"}"#)
        }
        watch.handle(WireEvent(at: t + 40_000, connection: 1, .ping(from: .client)))
        return watch.finish(at: t + 60_000)
    }

    @Test func aPhoneThatLeftEndsItsSessionWhereItLeft() {
        let result = Self.watch(confirmationWait: nil)
        let session = result.sessions.first
        #expect(session?.flow == "manual" && session?.outcome == "abandoned", "\(result.sessions)")
        #expect(session?.step == "the phone left 25000 ms after its pair-ack, before any confirmation", "\(String(describing: session?.step))")
        #expect(session?.endedAt == Self.t + 25_052)
        #expect(result.findings.isEmpty, "\(result.findings)")
        #expect(result.notes.contains { $0.hasPrefix("session 1: the desktop had not confirmed when the phone left, 25000 ms after its pair-ack") }, "\(result.notes)")
    }

    /// Told the phone waits 20 s, the watch holds the desktop to it.
    @Test func theDesktopIsJudgedOnTheWaitTheWatchIsTold() {
        let result = Self.watch(confirmationWait: 20_000)
        #expect(result.sessions.first?.outcome == "broken", "\(result.sessions)")
        #expect(result.findings.map { "\($0.side) \($0.connection ?? 0) \($0.violation.rule)" } == ["desktop 1 PAIR-DESK-002"], "\(result.findings)")
    }

    /// A phone that came back on a new connection is still waiting: the watch ended first.
    @Test func aPhoneThatCameBackIsStillWaiting() {
        let result = Self.watch(confirmationWait: nil, phoneReturns: true)
        #expect(result.sessions.first?.step == "the watch ended first", "\(result.sessions)")
    }
}
