@testable import ConformanceKit
import Foundation
import TestFixture
import Testing

/// The reference peers (`reference-peer send` and `receive`) attacked frame by frame by
/// Tests/Fixtures/hostile-migration/hostile.py: each attack ends in a verdict naming the rule at
/// its path, with the victim's peak memory under 128 MiB and the receiver's store as it was.
/// Serialized: the memory each victim reaches is measured alone.
@Suite("Hostile migration peers against the reference peers", .serialized)
struct HostileMigrationPeerTests {
    struct Attack: Sendable, CustomTestStringConvertible {
        var name: String
        /// What the victim's log must say: its violation line (`violation RULE at "PATH"`), or a
        /// line of its own where no rule is the other side's.
        var says: String
        /// Something the hostile peer must have seen (e.g. the victim's close code), as its JSON.
        var saw: String? = nil
        var victim: [String] = []
        var seconds = 3.0
        /// The victim's exit status once the attack is over; nil: it keeps serving, and is ended.
        var exit: Int32? = 1
        var testDescription: String { name }
    }

    static let peakLimitKiB = 128 * 1024

    // MARK: the hostile sender; reference-peer receive connects to it

    static let senderAttacks = [
        Attack(name: "oversize-frame", says: #"violation MIG-WS-001 at "": expected frames within MIG-WS-001's limits, found a frame over 1048648 bytes"#,
               saw: #""code": 1009"#),
        Attack(name: "fragment-storm", says: #"violation MIG-WS-001 at "": expected frames within MIG-WS-001's limits, found a message in more than 65536 fragments"#,
               saw: #""code": 1009"#),
        Attack(name: "long-text", says: #"violation CORE-JSON-004 at "" (byte 65536)"#, saw: #""reason": "protocol-error""#),
        Attack(name: "meta-count-lie", says: #"violation MIG-MSG-004 at "/payload/chunkCount""#),
        Attack(name: "meta-huge", says: #"violation MIG-META-001 at "": expected 11258999"#, saw: #""reason": "insufficient-space""#),
        Attack(name: "chunk-before-start", says: #"violation MIG-XFER-006 at "": expected chunks only while transferring, found a chunk in awaitingMeta"#),
        Attack(name: "length-lie", says: #"violation MIG-CHUNK-002 at "/length" (byte 36): expected a frame of 4168 bytes, found 172"#),
        Attack(name: "past-window", says: #"violation MIG-XFER-001 at "": expected at most 16 chunks unacknowledged, found chunk 16 with 17 outstanding"#),
        Attack(name: "bad-digest-storm", says: "ended failed (too-many-retransmits)", saw: #""reason": "too-many-retransmits""#),
        Attack(name: "resume-impostor", says: #"violation MIG-XFER-003 at "": expected the session's sender"#, saw: #""reason": "protocol-error""#),
        Attack(name: "complete-lie", says: #"violation MIG-XFER-004 at "/payload/envelopeSHA256""#),
        Attack(name: "garbage-package", says: #"violation MIG-ENV-001 at "/header/magic" (byte 0)"#, saw: #""result": "verified""#),
        // Found by this peer: a sender that upgraded and never greeted held the receiver for as
        // long as it kept the connection, on the first connection and after a reconnect.
        Attack(name: "silent", says: #"violation MIG-XFER-007 at "": expected the sender's Handshake within 1000 ms of connecting"#,
               saw: #""code": 1000"#, victim: ["--handshake-timeout-ms", "1000"]),
        Attack(name: "resume-silent", says: #"violation MIG-XFER-007 at "": expected the sender's Handshake within 1000 ms of connecting"#,
               saw: #""code": 1000"#, victim: ["--handshake-timeout-ms", "1000"]),
        // Found by this peer: a 4xx answer was retried 40 times and the last error (connection
        // refused) hid the first; the status line is now the error, at once.
        Attack(name: "refuse-upgrade", says: "refused the WebSocket upgrade: it answered HTTP/1.1 400 Bad Request", saw: #""what": "no second attempt""#),
        // Found by this peer: the upgrade request declared `Content-Length: 0`, which Python's
        // websockets 12 refuses; a sender written with it never got a session going.
        Attack(name: "strict-upgrade", says: "connected to", saw: #""what": "upgraded and greeted""#),
    ]

    @Test(arguments: senderAttacks) func aHostileSender(_ attack: Attack) async throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let store = scratch.appendingPathComponent("new")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        try Data("kept\n".utf8).write(to: store.appendingPathComponent("before.txt"))
        let ready = scratch.appendingPathComponent("url")
        async let hostile = Self.hostile("sender", attack, scratch, ["--ready-file", ready.path])
        try await Fixture.appears(ready, limit: 30)
        let url = try String(contentsOf: ready, encoding: .utf8)
        let victim = try Self.victim(
            ["receive", "--connect", url, "--into", store.path, "--pin-out", scratch.appendingPathComponent("pin").path, "--password-file",
             scratch.appendingPathComponent("password").path, "--yes", "--minimum-iterations", "1000"] + attack.victim, log: scratch)
        let seen = try await hostile
        try await Self.judge(attack, victim, seen: seen, log: scratch)
        // Nothing stored before is lost, nothing of the attack is restored.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path) == ["before.txt"])
        #expect(try String(contentsOf: store.appendingPathComponent("before.txt"), encoding: .utf8) == "kept\n")
    }

    // MARK: the hostile receiver; it connects to reference-peer send

    static let receiverAttacks = [
        Attack(name: "silent", says: #"violation MIG-XFER-007 at "": expected a Handshake within 1000 ms of connecting"#, saw: #""code": 1000"#, exit: nil),
        Attack(name: "oversize-frame", says: #"violation MIG-WS-001 at "": expected frames within MIG-WS-001's limits, found a frame over 65536 bytes"#,
               saw: #""code": 1009"#),
        Attack(name: "binary", says: #"violation MIG-WS-001 at "": expected control messages in text frames, found a binary frame of 72 bytes"#),
        Attack(name: "ack-unsent", says: #"violation MIG-XFER-006 at "/payload/index": expected an index below chunkCount "#, saw: #""reason": "protocol-error""#),
        Attack(name: "retransmit-storm", says: #"violation MIG-XFER-002 at "": expected chunk 0 delivered within 5 sends"#, saw: #""reason": "too-many-retransmits""#),
        Attack(name: "resume-wrong-token", says: #"violation MIG-XFER-003 at "/payload/resumeToken": expected the token the PIN's acceptance gave, found another token"#),
        // Found by this peer: the sender clamped a `have` past the last chunk and resumed.
        Attack(name: "resume-have-past-end", says: #"violation MIG-XFER-003 at "/payload/have/1": expected ranges within the backup's"#),
        // Found by this peer: a receiver that stopped reading held the sender in a send for as
        // long as it liked; now the send gives up after the ack timeout and the wait for a
        // reconnect (2 s here) ends the session.
        Attack(name: "stalled-reader", says: "the peer read nothing for 500 ms while a frame waited to be sent", saw: #""what": "stopped reading""#,
               victim: ["--chunk-size", "1M", "--window", "64", "--reconnect-timeout", "2"], seconds: 20),
        Attack(name: "slow-upgrade", says: "send: listening on", saw: #""what": "closed", "after": 1"#, seconds: 15, exit: nil),
    ]

    @Test(arguments: receiverAttacks) func aHostileReceiver(_ attack: Attack) async throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let old = scratch.appendingPathComponent("old")
        let media = attack.name == "stalled-reader" ? "80M" : "1M"
        let made = try await Fixture.run("reference-peer", ["sample-store", old.path, "--media-size", media, "--seed", "5"])
        #expect(made.status == 0, "\(made.stderr)")
        let ready = scratch.appendingPathComponent("url")
        let victim = try Self.victim(
            ["send", old.path, "--listen", "127.0.0.1:0", "--ready-file", ready.path, "--password-file", scratch.appendingPathComponent("password").path,
             "--pin-file", scratch.appendingPathComponent("pin").path, "--iterations", "1000", "--test-only", "--chunk-size", "4K", "--window", "8",
             "--handshake-timeout-ms", "1000", "--ack-timeout-ms", "500"] + attack.victim, log: scratch)
        try await Fixture.appears(ready, limit: 30)
        let seen = try await Self.hostile("receiver", attack, scratch, ["--connect", try String(contentsOf: ready, encoding: .utf8)])
        try await Self.judge(attack, victim, seen: seen, log: scratch)
    }

    /// MIG-PIN-002 and MIG-PIN-003 under a guessing sender: five guesses per session, and each
    /// session after a locked one waits twice as long (400 ms first here), so three seconds hold
    /// at most four sessions, where a receiver without the lockout gives hundreds.
    @Test func aPINStormGetsFiveGuessesASessionAndWaitsDoubling() async throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let ready = scratch.appendingPathComponent("url")
        let attack = Attack(name: "pin-storm", says: "locked session(s) in a row: the next PIN in", seconds: 3, exit: nil)
        async let hostile = Self.hostile("sender", attack, scratch, ["--ready-file", ready.path])
        try await Fixture.appears(ready, limit: 30)
        let victim = try Self.victim(
            ["receive", "--connect", try String(contentsOf: ready, encoding: .utf8), "--into", scratch.appendingPathComponent("new").path, "--pin-out",
             scratch.appendingPathComponent("pin").path, "--password-file", scratch.appendingPathComponent("password").path, "--yes",
             "--sessions", "0", "--lockout-first-wait-ms", "400"], log: scratch)
        let seen = try await hostile
        try await Self.judge(attack, victim, seen: seen, log: scratch)
        let events = try #require(try JSONSerialization.jsonObject(with: Data(seen.utf8)) as? [String: Any])["seen"] as? [[String: Any]] ?? []
        let sessions = events.filter { $0["what"] as? String == "session" }.compactMap { $0["at"] as? Int }
        let answers = events.filter { $0["what"] as? String == "answer" }.map { "\($0["result"] ?? "")" + (($0["attemptsLeft"] as? Int).map { " \($0)" } ?? "") }
        #expect((2...4).contains(sessions.count), "\(sessions)")
        // Each finished session: rejected with 4, 3, 2, 1 left, then locked.
        let perSession = ["rejected 4", "rejected 3", "rejected 2", "rejected 1", "locked"]
        #expect(Array(answers.prefix(perSession.count * (sessions.count - 1))) == Array(repeating: perSession, count: sessions.count - 1).flatMap { $0 }, "\(answers)")
        for (k, pair) in zip(sessions, sessions.dropFirst()).enumerated() {
            #expect(pair.1 - pair.0 >= 400 << k, "session \(k + 2) began \(pair.1 - pair.0) ms after session \(k + 1)")
        }
    }

    // MARK: running them

    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("correct horse battery staple\n".utf8).write(to: folder.appendingPathComponent("password"))
        return folder
    }

    /// The reference peer, its log in `log`/victim.log, its peak memory in `log`/peak (peak.py
    /// says why the child's own rusage would not do).
    static func victim(_ arguments: [String], log: URL) throws -> ChildProcess {
        let command = Fixture.measuringPeak([Fixture.executable("reference-peer")] + arguments, into: log.appendingPathComponent("peak"))
        let quoted = command.map { "'\($0)'" }.joined(separator: " ")
        return try ChildProcess.spawn(shell: "exec \(quoted) >/dev/null 2>'\(log.appendingPathComponent("victim.log").path)'")
    }

    /// Runs the attack to its end; what the hostile peer saw, as its JSON.
    static func hostile(_ role: String, _ attack: Attack, _ scratch: URL, _ extra: [String]) async throws -> String {
        let result = scratch.appendingPathComponent("result.json")
        let script = Fixture.root.appendingPathComponent("Tests/Fixtures/hostile-migration/hostile.py").path
        let run = try await Fixture.execute(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", script, role, "--attack", attack.name, "--pin-file", scratch.appendingPathComponent("pin").path, "--result", result.path,
             "--seconds", "\(attack.seconds)"] + extra, limit: 120)
        #expect(run.status == 0, "\(run.stderr)")
        return try String(contentsOf: result, encoding: .utf8)
    }

    /// The victim's verdict, exit and peak memory once the attack is over.
    static func judge(_ attack: Attack, _ victim: ChildProcess, seen: String, log: URL) async throws {
        let read = { (try? String(contentsOf: log.appendingPathComponent("victim.log"), encoding: .utf8)) ?? "" }
        if let exit = attack.exit {
            #expect(await Fixture.eventually(within: 20) { !victim.isRunning }, "still running: \(read())")
            #expect(victim.exitDescription == "exited with status \(exit)", "\(read())")
        } else {
            #expect(await Fixture.eventually(within: 10) { read().contains(attack.says) }, "\(read())")
        }
        victim.terminateGroup()
        #expect(read().contains(attack.says), "\(read())\nthe hostile peer saw: \(seen)")
        if let saw = attack.saw { #expect(seen.contains(saw), "\(seen)") }
        let peak = try Fixture.peakKiB(log.appendingPathComponent("peak"))
        #expect(peak < peakLimitKiB, "peak \(peak) KiB")
    }
}
