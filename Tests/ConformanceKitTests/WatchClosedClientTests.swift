import ConformanceKit
import Testing
import WireCore

/// A relay is not blamed for an answer it could not give: a client that closes right after its
/// `register` (or its message to a peer that is not there) leaves nowhere for `registered`,
/// `error` or `peer-offline` to go. Found by the matrix: the reference phone through the
/// reference relay, watched, closed 1 ms after its register and the relay was judged.
@Suite("watch: a client that left is owed no answer")
struct WatchClosedClientTests {
    static let phone = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"

    static func findings(closing: Bool, _ text: String) -> [String] {
        var options = PairingWatch.Options()
        options.judgeRelay = true
        var watch = PairingWatch(options: options)
        let at: EpochMillis = 1_747_300_000_000
        watch.handle(WireEvent(at: at, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        watch.handle(WireEvent(at: at + 1, connection: 1, .text(from: .client, text)))
        if closing { watch.handle(WireEvent(at: at + 2, connection: 1, .close(by: .client, code: 1000))) }
        return watch.finish(at: at + 60_000).findings.map { "\($0.side) \($0.violation.rule)" }
    }

    @Test(arguments: [
        #"{"type":"register","peerId":"did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"}"#,
        #"{"type":"message","to":"desktop-1","payload":{"type":"ping"}}"#,
    ])
    func anUnansweredFrameIsTheRelaysOnlyWhileItsClientStays(text: String) {
        #expect(Self.findings(closing: false, text).contains("relay PAIR-RELAY-001"))
        #expect(!Self.findings(closing: true, text).contains("relay PAIR-RELAY-001"))
    }
}
