import ConformanceKit
import Testing
import WireCore

/// Flow A confirmed off the relay (a desktop answering the phone's QR on its LAN socket): the
/// relay carries no frame of it, and the watch says what it could not see instead of leaving two
/// `unknown` connections without a word (issue 38, case 4).
@Suite("watch: what it cannot see")
struct WatchUnseenTests {
    @Test func clientsThatPairedOffTheRelayAreNoted() {
        let t: EpochMillis = 1_795_632_883_563
        var watch = PairingWatch()
        for (c, id) in [(1, "desktop-0c48f0b1"), (2, "did:key:z6MkbK7F5Uk73AfbRbXgyaeJe7WmaTZnSrhYciuCRY4dwkVD")] {
            watch.handle(WireEvent(at: t + EpochMillis(c), connection: c, .open(peer: "127.0.0.1", path: "/")))
            watch.handle(WireEvent(at: t + EpochMillis(c) + 1, connection: c, .text(from: .client, #"{"type":"register","peerId":"\#(id)"}"#)))
        }
        let result = watch.finish(at: t + 10_000)
        #expect(result.findings.isEmpty, "\(result.findings)")
        #expect(result.sessions.isEmpty)
        #expect(result.notes.contains { $0.hasPrefix("2 connection(s) registered and took part in no pairing the relay carried (1, 2)") }, "\(result.notes)")
    }
}
