import ConformanceKit
import Testing
import WireCore

/// A desktop the relay drops again and again, coming back each time with its own id and, every
/// other time, its alias too: each comeback without the live alias is PAIR-CONN-001, said once for
/// the client. The end of the watch weighs every drop against the registrations since, looking at
/// the latest only (they arrive in time order); a scan of each id's list per drop made this
/// quadratic (40,000 drops: 14.6 s, 6.1 s with the lookup, debug).
@Suite("watch: a client dropped 10,000 times")
struct WatchFlappingClientTests {
    static let desk = "desktop-0c48f0b1", alias = "pairing-code:052900"

    @Test func everyComebackIsWeighedOnce() {
        var options = PairingWatch.Options()
        options.judgeRelay = false
        var watch = PairingWatch(options: options)
        let drops = 10_000
        var at: EpochMillis = 1_795_632_883_563
        for c in 1...drops {
            watch.handle(WireEvent(at: at, connection: c, .open(peer: "127.0.0.1", path: "/")))
            watch.handle(WireEvent(at: at + 1, connection: c, .text(from: .client, #"{"type":"register","peerId":"\#(Self.desk)"}"#)))
            if c % 2 == 1 { watch.handle(WireEvent(at: at + 2, connection: c, .text(from: .client, #"{"type":"register","peerId":"\#(Self.alias)"}"#))) }
            watch.handle(WireEvent(at: at + 11_000, connection: c, .close(by: .server, code: 1012)))
            at += 13_000
        }
        let result = watch.finish(at: at)
        let rules = Set(result.findings.map { "\($0.side) \($0.violation.rule)" })
        #expect(rules == ["desktop PAIR-CONN-001"], "\(result.findings.prefix(3))")
        #expect(result.findings.count == 1, "\(result.findings.count)")
        #expect(result.findings.first?.violation.expected == #"a register of "pairing-code:052900" again once reconnected (the ids held before the drop, still live)"#)
    }
}
