import ConformanceKit
import Testing
import WireCore

/// PAIR-CONN-003's dead connection, as the watch judges it from a log: a client that keeps
/// sending keepalives nobody answers, where it should have taken the connection for dead.
@Suite("watch: a connection whose keepalives go unanswered")
struct WatchDeadConnectionTests {
    static func findings(answered: Bool, limit: Int?) -> [String] {
        let desk = "desktop-0c48f0b1"
        let t: EpochMillis = 1_795_632_883_563
        var options = PairingWatch.Options()
        options.keepaliveInterval = 30_000
        options.unansweredLimit = limit
        var watch = PairingWatch(options: options)
        watch.handle(WireEvent(at: t, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        watch.handle(WireEvent(at: t + 1, connection: 1, .text(from: .client, #"{"type":"register","peerId":"\#(desk)"}"#)))
        for n in 1...5 {
            let at = t + EpochMillis(n) * 30_000
            watch.handle(WireEvent(at: at, connection: 1, .ping(from: .client)))
            if answered { watch.handle(WireEvent(at: at, connection: 1, .pong(from: .server))) }
        }
        return watch.finish(at: t + 160_000).findings.map { "\($0.connection ?? 0) \($0.violation.rule) \($0.frame ?? "")" }
    }

    @Test(arguments: [(nil, "keepalive 4"), (1, "keepalive 2"), (3, "keepalive 4")] as [(Int?, String)])
    func keepalivesNobodyAnswersAreABreachAtTheLimit(limit: Int?, frame: String) {
        #expect(Self.findings(answered: false, limit: limit) == ["1 PAIR-CONN-003 \(frame)"])
    }

    @Test func answeredKeepalivesAreNoBreach() {
        #expect(Self.findings(answered: true, limit: 1) == [])
    }

    @Test func theLimitIsKeptInTheLog() {
        var options = PairingWatch.Options()
        options.unansweredLimit = 2
        #expect(PairingWatch.Options(json: options.json, names: [:]).unansweredLimit == 2)
    }
}

/// A version 1 log left out the pong the watch's transport answered each client ping frame with;
/// read, it has the pong back, so an old log's keepalives are not taken for unanswered.
@Suite("session log: version 1's unwritten pongs")
struct SessionLogVersionOneTests {
    static func read(version: Int) throws -> [WireEvent.Body] {
        let log = #"{"sessionLog":\#(version),"family":"pairing","startedAt":0}"# + "\n" + #"{"t":5,"conn":1,"ping":true,"from":"client"}"# + "\n"
        return try SessionLog.read(Array(log.utf8)).events.map(\.body)
    }

    @Test func versionOneHasItsPongsBack() throws {
        #expect(try Self.read(version: 1) == [.ping(from: .client), .pong(from: .server)])
        #expect(try Self.read(version: 2) == [.ping(from: .client)])
        #expect(throws: SessionLog.Problem.self) { try Self.read(version: 3) }
    }
}
