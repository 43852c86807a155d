import ConformanceKit
import Testing
import WireCore

/// The watch between two real clients judges the WebRTC signaling after pairing (Spec pairing.md
/// 3.7): a bare frame is its sender's PAIR-RTC-005 (or the relay's, when it delivers one), a
/// signal to the sender's own id its PAIR-RTC-004, a malformed offer its PAIR-RTC-001.
@Suite("watch judges WebRTC signaling")
struct WatchWebRTCTests {
    static let desk = "12D3KooWKf8B4ayUbkMF7begyXv8zMiCBqRfNBnsrmC72BNYqpwi"
    static let phone = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
    static let offer = #"{"type":"offer","offer":{"type":"offer","sdp":"v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n"}}"#

    static func findings(_ frames: [(Int, WireEvent.Side, String)]) -> [String] {
        var options = PairingWatch.Options()
        options.judgeRelay = true
        var watch = PairingWatch(options: options)
        var at: EpochMillis = 1_747_300_000_000
        for c in [1, 2] { watch.handle(WireEvent(at: at, connection: c, .open(peer: "127.0.0.1", path: "/"))) }
        for (c, side, text) in frames {
            at += 10
            watch.handle(WireEvent(at: at, connection: c, .text(from: side, text)))
        }
        return watch.finish(at: at + 10).findings.map { "\($0.side) \($0.connection ?? 0) \($0.violation.rule) \($0.violation.path)" }
    }

    static let registered: [(Int, WireEvent.Side, String)] = [
        (1, .client, #"{"type":"register","peerId":"\#(desk)"}"#), (1, .server, #"{"type":"registered","peerId":"\#(desk)"}"#),
        (2, .client, #"{"type":"register","peerId":"\#(phone)"}"#), (2, .server, #"{"type":"registered","peerId":"\#(phone)"}"#),
    ]

    @Test func aWrappedOfferAndItsDeliveryPass() {
        let findings = Self.findings(
            Self.registered + [
                (2, .client, #"{"type":"message","to":"\#(Self.desk)","payload":\#(Self.offer)}"#),
                (1, .server, #"{"type":"message","to":"\#(Self.desk)","from":"\#(Self.phone)","payload":\#(Self.offer)}"#),
            ])
        #expect(findings == [])
    }

    @Test func bareFramesAndEchoesAreNamed() {
        let findings = Self.findings(
            Self.registered + [
                // Android's default: the offer as a frame of its own; the relay delivers it.
                (2, .client, #"{"type":"offer","to":"\#(Self.desk)","offer":{"type":"offer","sdp":"v=0\r\n"}}"#),
                (1, .server, #"{"type":"offer","from":"\#(Self.phone)","offer":{"type":"offer","sdp":"v=0\r\n"}}"#),
                // The echo loop: the phone signals its own id.
                (2, .client, #"{"type":"message","to":"\#(Self.phone)","payload":\#(Self.offer)}"#),
                // A flat SDP string where the description belongs.
                (2, .client, #"{"type":"message","to":"\#(Self.desk)","payload":{"type":"offer","sdp":"v=0\r\n"}}"#),
            ])
        #expect(
            findings.sorted() == [
                "relay 1 PAIR-RTC-005 /type", "unknown 2 CORE-TYPE-001 /payload/offer", "unknown 2 PAIR-RTC-004 /to", "unknown 2 PAIR-RTC-005 /type",
            ], "\(findings)")
    }
}
