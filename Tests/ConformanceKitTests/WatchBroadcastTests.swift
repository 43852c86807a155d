import ConformanceKit
import Testing
import WireCore

/// A presence broadcast (kind peer-status, which a relay may send unasked) is checked as a
/// document where the watch judges the relay (`--upstream`): well formed it is a note, malformed
/// it is the relay's.
@Suite("watch: a relay's broadcasts")
struct WatchBroadcastTests {
    func watched(_ broadcast: String) -> WatchResult {
        var options = PairingWatch.Options()
        options.judgeRelay = true
        var watch = PairingWatch(options: options)
        let t: EpochMillis = 1_795_632_883_563
        watch.handle(WireEvent(at: t, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        watch.handle(WireEvent(at: t + 1, connection: 1, .text(from: .client, #"{"type":"register","peerId":"desktop-0c48f0b1"}"#)))
        watch.handle(WireEvent(at: t + 2, connection: 1, .text(from: .server, #"{"type":"registered","peerId":"desktop-0c48f0b1"}"#)))
        watch.handle(WireEvent(at: t + 3, connection: 1, .text(from: .server, broadcast)))
        return watch.finish(at: t + 10)
    }

    @Test func aWellFormedBroadcastIsANote() {
        let result = watched(#"{"type":"peer-status","peerId":"did:key:z6MkH8xvsiwBxaNXcicKJ2knLjSorMf2Ddu2UwPt4XLg2myw","status":"online","timestamp":1}"#)
        #expect(result.findings.isEmpty, "\(result.findings)")
        #expect(result.notes.contains { $0.contains("peer-status") && $0.contains("sent unasked") }, "\(result.notes)")
    }

    /// Between a real desktop and someone else's relay: the relay announcing the desktop's
    /// manual-code alias hands the live code to every client (PAIR-SEC-006).
    @Test func anAnnouncedAliasIsTheRelays() {
        let result = watched(#"{"type":"peer-status","peerId":"pairing-code:052900","status":"online","deviceType":"desktop"}"#)
        let findings = result.findings.map { "\($0.side) \($0.violation.rule) \($0.violation.path)" }
        #expect(findings == ["relay PAIR-SEC-006 /peerId"], "\(findings)")
    }

    /// A relay broadcasting for as long as the watch runs: the watch keeps 1000 notes and
    /// counts the rest (its memory does not grow with the watch's length).
    @Test func notesAreCappedAndCounted() {
        var options = PairingWatch.Options()
        options.judgeRelay = true
        var watch = PairingWatch(options: options)
        let t: EpochMillis = 1_795_632_883_563
        watch.handle(WireEvent(at: t, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        for i in 0..<1500 {
            watch.handle(WireEvent(at: t + 1, connection: 1, .text(from: .server, #"{"type":"peer-status","peerId":"did:cc:p\#(i)","status":"online"}"#)))
        }
        let notes = watch.finish(at: t + 2).notes
        #expect(notes.count == 1001, "\(notes.count)")
        #expect(notes.last == "and 500 more notes")
    }

    @Test func aMalformedBroadcastIsTheRelays() {
        let result = watched(#"{"type":"peer-status","peerId":" ","status":"online"}"#)
        let findings = result.findings.map { "\($0.side) \($0.violation.rule) \($0.violation.path)" }
        #expect(findings == ["relay PAIR-PEER-001 /peerId"], "\(findings)")
    }
}
