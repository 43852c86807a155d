import ConformanceKit
import Testing
import WireCore

/// A time-scaled phone beside a real desktop: each side's keepalive is judged at the interval
/// that side states (`--keepalive-ms phone=500`), not at one interval for both (issue 38.7).
@Suite("watch: timing per side")
struct WatchPerSideTimingTests {
    static func watched(_ options: PairingWatch.Options) -> [String] {
        let desk = "desktop-0c48f0b1", alias = "pairing-code:052900", phone = "did:key:z6MkbK7F5Uk73AfbRbXgyaeJe7WmaTZnSrhYciuCRY4dwkVD"
        let t: EpochMillis = 1_795_632_883_563
        var watch = PairingWatch(options: options)
        var events: [(EpochMillis, Int, WireEvent.Body)] = [
            (0, 1, .open(peer: "127.0.0.1", path: "/")),
            (1, 1, .text(from: .client, #"{"type":"register","peerId":"\#(desk)"}"#)),
            (2, 1, .text(from: .client, #"{"type":"register","peerId":"\#(alias)"}"#)),
            (10, 2, .open(peer: "127.0.0.1", path: "/")),
            (11, 2, .text(from: .client, #"{"type":"register","peerId":"\#(phone)"}"#)),
            (20, 2, .text(from: .client, #"{"type":"message","to":"\#(desk)","payload":{"type":"pair-ack","pairingCode":"052900","mobileDid":"\#(phone)","deviceInfo":{"deviceId":"d-1","name":"Phone","platform":"android"},"timestamp":\#(t + 20)}}"#)),
            (3010, 2, .close(by: .client, code: 1000)),
        ]
        events += stride(from: 500, through: 3000, by: 500).flatMap { answeredPing(at: EpochMillis($0), on: 2) }
        events += [15_000, 30_000].flatMap { answeredPing(at: EpochMillis($0), on: 1) }
        for (at, c, body) in events.sorted(by: { $0.0 < $1.0 }) { watch.handle(WireEvent(at: t + at, connection: c, body)) }
        return watch.finish(at: t + 31_000).findings.map { "\($0.side) \($0.connection ?? 0) \($0.violation.rule)" }
    }

    @Test func eachSideIsJudgedAtItsOwnInterval() {
        var options = PairingWatch.Options()
        options.keepaliveBySide = ["phone": 500, "desktop": 15_000]
        #expect(Self.watched(options) == [])
    }

    /// One interval for both: the desktop's 15 s is late at the phone's 500 ms.
    @Test func oneIntervalForBothFindsTheDesktopLate() {
        var options = PairingWatch.Options()
        options.keepaliveInterval = 500
        #expect(Self.watched(options) == ["desktop 1 PAIR-CONN-003"])
    }

    @Test func theSidesTimingIsKeptInTheLog() {
        var options = PairingWatch.Options()
        options.keepaliveBySide = ["phone": 500]
        options.backoffBySide = ["desktop": 2000]
        let back = PairingWatch.Options(json: options.json, names: [:])
        #expect(back.keepaliveBySide == ["phone": 500] && back.backoffBySide == ["desktop": 2000])
    }
}
