import ConformanceKit
import Testing
import WireCore

/// The watch judges the desktop's side of a pairing through the Spec's mobile bridge machine
/// (4.5): started with the code its alias shows, fed the ack the desktop received. What the
/// machine drops, the desktop must not confirm; the machine's expiry (300,000 ms, inclusive)
/// is the desktop's, which the watch's own comparison of codes never judged.
@Suite("watch: the desktop's side through its machine")
struct WatchDesktopMachineTests {
    static let desk = "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi"
    static let phone = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
    static let t: EpochMillis = 1_747_300_000_000

    /// The desktop (1) registers its id and the alias of 052900 at `shownAt` ms; the phone (2)
    /// sends a Flow B ack of 052900 at 0 and the desktop confirms it 200 ms later.
    static func watched(shownAt: EpochMillis) -> WatchResult {
        var watch = PairingWatch()
        var events: [(EpochMillis, Int, WireEvent.Body)] = [
            (shownAt - 10, 1, .open(peer: "127.0.0.1", path: "/")),
            (shownAt - 5, 1, .text(from: .client, #"{"type":"register","peerId":"\#(desk)"}"#)),
            (shownAt, 1, .text(from: .client, #"{"type":"register","peerId":"pairing-code:052900"}"#)),
            (-100, 2, .open(peer: "127.0.0.1", path: "/")),
            (-90, 2, .text(from: .client, #"{"type":"register","peerId":"\#(phone)"}"#)),
        ]
        let ack = #"{"type":"pair-ack","pairingCode":"052900","mobileDid":"\#(phone)","deviceInfo":{"deviceId":"d-1","name":"Phone","platform":"android"},"timestamp":\#(t)}"#
        events.append((0, 2, .text(from: .client, #"{"type":"message","to":"\#(desk)","payload":\#(ack)}"#)))
        let confirmation = #"{"type":"pairing:confirmation","pairingCode":"052900","pcPeerId":"\#(desk)","deviceInfo":{"name":"Desk","platform":"linux","version":"1.0.0"},"timestamp":\#(t + 200)}"#
        events.append((200, 1, .text(from: .client, #"{"type":"message","to":"\#(phone)","payload":\#(confirmation)}"#)))
        for at in stride(from: shownAt + 20_000, to: 30_000, by: 20_000) {
            for c in [1, 2] where at > (c == 1 ? shownAt : -100) { events += answeredPing(at: at, on: c) }
        }
        for (at, c, body) in events.sorted(by: { $0.0 < $1.0 }) { watch.handle(WireEvent(at: t + at, connection: c, body)) }
        return watch.finish(at: t + 30_000)
    }

    @Test func aCodeLiveAtTheAckIsPairedAndItsConfirmationANote() {
        let result = Self.watched(shownAt: -300_000)
        #expect(result.findings.map { "\($0.side) \($0.violation.rule)" } == [], "\(result.findings)")
        #expect(result.sessions.first?.outcome == "paired")
        #expect(result.notes.contains { $0.contains("a confirmation in Flow B, where none is due") }, "\(result.notes)")
    }

    @Test func anAckAfterTheCodeExpiredMustNotBeConfirmed() {
        let result = Self.watched(shownAt: -300_001)
        #expect(result.findings.map { "\($0.side) \($0.connection ?? 0) \($0.violation.rule) \($0.violation.path)" } == ["desktop 1 PAIR-DESK-003 /payload/pairingCode"], "\(result.findings)")
        #expect(result.findings.first?.violation.expected.contains("expired") == true, "\(result.findings)")
        #expect(result.sessions.first?.outcome == "broken")
    }
}
