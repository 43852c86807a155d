import ConformanceKit
import Testing
import WireCore

/// The watch judges the WebRTC exchange after a pairing once the phone sent its offer (Spec
/// pairing.md 4.6, PAIR-RTC-006): the desktop answers and each side sends a candidate within
/// 30000 ms; what a side did not send is its violation, an exchange the watch did not see end is
/// a note, and a pair that stops at pairing is not judged on it.
@Suite("watch judges the WebRTC exchange after pairing")
struct WatchExchangeTests {
    static let desk = "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi"
    static let phone = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
    static let t: EpochMillis = 1_747_300_000_000
    static let sdp = #""sdp":"v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n""#
    static let offer = #"{"type":"message","to":"\#(desk)","payload":{"type":"offer","offer":{"type":"offer",\#(sdp)}}}"#
    static let answer = #"{"type":"message","to":"\#(phone)","payload":{"type":"answer","answer":{"type":"answer",\#(sdp)}}}"#
    static func candidate(to: String) -> String {
        #"{"type":"message","to":"\#(to)","payload":{"type":"ice-candidate","candidate":{"candidate":"candidate:1 1 udp 2122260223 192.168.1.2 54321 typ host","sdpMid":"0","sdpMLineIndex":0}}}"#
    }

    /// A Flow B pairing (desktop on connection 1, phone on 2) at `t`, then `frames` (ms after the
    /// pairing, connection, text), then the watch's end at `end` ms after it. Both clients send
    /// their keepalive every 10 s (PAIR-CONN-003 is not what these tests are about).
    static func watched(_ frames: [(EpochMillis, Int, String)], end: EpochMillis) -> WatchResult {
        var watch = PairingWatch()
        for c in [1, 2] { watch.handle(WireEvent(at: t - 100, connection: c, .open(peer: "127.0.0.1", path: "/"))) }
        let ack = #"{"type":"pair-ack","pairingCode":"052900","mobileDid":"\#(phone)","deviceInfo":{"deviceId":"d-1","name":"Phone","platform":"android"},"timestamp":\#(t)}"#
        var events: [(EpochMillis, Int, WireEvent.Body)] = [
            (-90, 1, .text(from: .client, #"{"type":"register","peerId":"\#(desk)"}"#)),
            (-80, 2, .text(from: .client, #"{"type":"register","peerId":"\#(phone)"}"#)),
            (0, 2, .text(from: .client, #"{"type":"message","to":"\#(desk)","payload":\#(ack)}"#)),
        ]
        events += frames.map { ($0.0, $0.1, .text(from: .client, $0.2)) }
        events += stride(from: 10_000, to: end, by: 10_000).flatMap { at in [1, 2].flatMap { answeredPing(at: EpochMillis(at), on: $0) } }
        for (at, c, body) in events.sorted(by: { $0.0 < $1.0 }) { watch.handle(WireEvent(at: t + at, connection: c, body)) }
        return watch.finish(at: t + end)
    }

    static func findings(_ result: WatchResult) -> [String] {
        result.findings.map { "\($0.side) \($0.connection ?? 0) \($0.violation.rule) \($0.violation.path)" }
    }

    @Test func aWholeExchangeIsNoViolation() {
        let result = Self.watched([(100, 2, Self.offer), (200, 1, Self.answer), (300, 1, Self.candidate(to: Self.phone)), (400, 2, Self.candidate(to: Self.desk))], end: 60_000)
        #expect(result.sessions.first?.outcome == "paired")
        #expect(Self.findings(result) == [])
        #expect(!result.notes.contains { $0.contains("WebRTC") }, "\(result.notes)")
    }

    @Test func aDesktopThatNeverAnswersIsTheDesktops() {
        let result = Self.watched([(100, 2, Self.offer), (400, 2, Self.candidate(to: Self.desk))], end: 60_000)
        #expect(Self.findings(result) == ["desktop 1 PAIR-RTC-006 "], "\(Self.findings(result))")
    }

    /// The real desktop's form of its candidates, wrapped: a batch is no `ice-candidate` (iOS
    /// ignores it), so the desktop sent none.
    @Test func aDesktopThatSendsOnlyBatchesSentNoCandidate() {
        let batch = #"{"type":"message","to":"\#(Self.phone)","payload":{"type":"ice-candidates","candidates":[{"candidate":"candidate:1 1 udp 1 10.0.0.1 9 typ host","sdpMid":"0","sdpMLineIndex":0}]}}"#
        let result = Self.watched([(100, 2, Self.offer), (200, 1, Self.answer), (300, 1, batch), (400, 2, Self.candidate(to: Self.desk))], end: 60_000)
        #expect(Self.findings(result) == ["desktop 1 PAIR-RTC-006 "], "\(Self.findings(result))")
        #expect(result.findings.first?.violation.expected.contains("ice-candidate") == true)
    }

    /// In time at exactly 30000 ms after the offer; one millisecond later is late, and a phone
    /// that sends no candidate is the phone's.
    @Test(arguments: [(30_100, true), (30_101, false)])
    func anAnswerIsInTimeUpToTheWindow(answerAt: EpochMillis, inTime: Bool) {
        let result = Self.watched([(100, 2, Self.offer), (answerAt, 1, Self.answer), (answerAt, 1, Self.candidate(to: Self.phone))], end: 60_000)
        let expected = (inTime ? [] : ["desktop 1 PAIR-RTC-006 "]) + ["phone 2 PAIR-RTC-006 "]
        #expect(Self.findings(result).sorted() == expected.sorted(), "\(Self.findings(result))")
    }

    @Test func anExchangeTheWatchDidNotSeeEndIsANote() {
        let result = Self.watched([(100, 2, Self.offer)], end: 10_000)
        #expect(Self.findings(result) == [])
        #expect(result.notes.contains { $0.contains("before the exchange was due (not judged)") }, "\(result.notes)")
    }

    /// Phase 1 only: no offer, nothing judged, nothing noted.
    @Test func aPairThatStopsAtPairingIsNotJudgedOnIt() {
        let result = Self.watched([], end: 60_000)
        #expect(Self.findings(result) == [])
        #expect(!result.notes.contains { $0.contains("WebRTC") }, "\(result.notes)")
    }

    /// Forwarding (`--upstream`): the phone, paired once it sent its ack (Flow B), offers before
    /// the relay delivered that ack to the desktop. The exchange is judged all the same: a
    /// desktop that never answers was missed in every forwarding run, a false PASS (issue 38,
    /// case 1). A relay that never delivers the ack leaves the desktop owing nothing.
    @Test(arguments: [true, false]) func anOfferBeforeTheAcksDeliveryIsJudgedWhenForwarding(delivered: Bool) {
        var options = PairingWatch.Options()
        options.judgeRelay = true
        var watch = PairingWatch(options: options)
        let (t, desk, phone) = (Self.t, Self.desk, Self.phone)
        let ack = #"{"type":"pair-ack","pairingCode":"052900","mobileDid":"\#(phone)","deviceInfo":{"deviceId":"d-1","name":"Phone","platform":"android"},"timestamp":\#(t)}"#
        let offerPayload = #"{"type":"offer","offer":{"type":"offer",\#(Self.sdp)}}"#
        let candidatePayload = #"{"type":"ice-candidate","candidate":{"candidate":"candidate:1 1 udp 2122260223 192.168.1.2 54321 typ host","sdpMid":"0","sdpMLineIndex":0}}"#
        var events: [(EpochMillis, Int, WireEvent.Body)] = [
            (-100, 1, .open(peer: "127.0.0.1", path: "/")), (-100, 2, .open(peer: "127.0.0.1", path: "/")),
            (-90, 1, .text(from: .client, #"{"type":"register","peerId":"\#(desk)"}"#)),
            (-89, 1, .text(from: .server, #"{"type":"registered","peerId":"\#(desk)"}"#)),
            (-80, 2, .text(from: .client, #"{"type":"register","peerId":"\#(phone)"}"#)),
            (-79, 2, .text(from: .server, #"{"type":"registered","peerId":"\#(phone)"}"#)),
            (0, 2, .text(from: .client, #"{"type":"message","to":"\#(desk)","payload":\#(ack)}"#)),
            (10, 2, .text(from: .client, Self.offer)),
            (400, 2, .text(from: .client, Self.candidate(to: desk))),
        ]
        if delivered {
            // The relay hands the desktop the ack after the phone's offer, then the rest.
            events += [
                (20, 1, .text(from: .server, #"{"type":"message","from":"\#(phone)","to":"\#(desk)","payload":\#(ack)}"#)),
                (21, 1, .text(from: .server, #"{"type":"message","from":"\#(phone)","to":"\#(desk)","payload":\#(offerPayload)}"#)),
                (401, 1, .text(from: .server, #"{"type":"message","from":"\#(phone)","to":"\#(desk)","payload":\#(candidatePayload)}"#)),
            ]
        }
        events += stride(from: 10_000, to: 60_000, by: 10_000).flatMap { at in [1, 2].flatMap { answeredPing(at: EpochMillis(at), on: $0) } }
        for (at, c, body) in events.sorted(by: { $0.0 < $1.0 }) { watch.handle(WireEvent(at: t + at, connection: c, body)) }
        let result = watch.finish(at: t + 60_000)
        let clients = Self.findings(result).filter { !$0.hasPrefix("relay") }
        if delivered {
            #expect(result.sessions.first?.outcome == "paired", "\(result.sessions)")
            #expect(clients == ["desktop 1 PAIR-RTC-006 "], "\(Self.findings(result))")
        } else {
            #expect(result.sessions.first?.outcome == "broken", "\(result.sessions)")
            #expect(clients == [], "\(Self.findings(result))")
            #expect(Self.findings(result).contains("relay 2 PAIR-RELAY-001 "), "\(Self.findings(result))")
            #expect(result.notes.contains { $0.contains("its pairing never reached the desktop") }, "\(result.notes)")
        }
    }
}
