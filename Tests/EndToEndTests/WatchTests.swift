import ConformanceKit
import Foundation
import MigrationPackage
import TestFixture
import WebSocketTransport
import Testing
import WireCore

/// `conformance watch` between two real pairing clients (the reference phone and desktop, with
/// and without their faults, and through someone else's relay): which sessions they make, and
/// whose violation each is. Every log written is judged again by `check --session`.
@Suite("conformance watch between live peers", .serialized)
struct LiveWatchTests: LivePeers {
    let scratch: URL

    init() throws {
        scratch = try Self.makeScratch()
    }

    /// Waits for `name` to have content (a peer writes it), at most 30 s (a program starting on a
    /// loaded machine; the wait ends as soon as the file is written).
    func await(_ name: String) async throws -> Data {
        let path = file(name).path
        guard let data = await Fixture.first(within: 30, every: .milliseconds(25), { FileManager.default.contents(atPath: path).flatMap { $0.isEmpty ? nil : $0 } }) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        return data
    }

    /// `conformance watch --family pairing` in the background on a free port; returns its URL and
    /// the task that ends with its exit status, stdout (JSON) and stderr.
    func watch(_ extra: [String]) async throws -> (String, Task<(status: Int32, stdout: String, stderr: String), any Error>) {
        try? FileManager.default.removeItem(at: file("watch-url"))
        let arguments = ["watch", "--family", "pairing", "--listen", "127.0.0.1:0", "--ready-file", file("watch-url").path, "--log", file("session.jsonl").path, "--format", "json"] + extra
        let task = Task { try await Fixture.run("conformance", arguments, limit: 120) }
        let url = String(decoding: try await self.await("watch-url"), as: UTF8.self)
        return (url, task)
    }

    func referenceDesktop(_ url: String, sessions: Int, faults: [String] = []) async throws -> Process {
        try await start(
            ["desktop", "--relay", url, "--qr-file", file("qr").path, "--scan-file", file("scan").path, "--sessions", "\(sessions)"] + faults.flatMap { ["--fault", $0] },
            log: "desktop.log")
    }

    func referencePhone(_ url: String, sessions: Int, faults: [String] = []) async throws -> Process {
        try await start(
            ["phone", "--handoff-file", file("handoff").path, "--qr-file", file("phone-qr").path, "--signaling", url, "--sessions", "\(sessions)"]
                + faults.flatMap { ["--fault", $0] }, log: "phone.log")
    }

    /// Whether the watch's log holds a register a client sent on a connection after `connection`.
    func registeredAgain(after connection: Int64) -> Bool {
        let lines = ((try? String(contentsOf: file("session.jsonl"), encoding: .utf8)) ?? "").split(separator: "\n")
        return lines.contains { line in
            guard let event = (try? JSONParser.parse(Array(line.utf8)))?.objectValue, let conn = event["conn"]?.integerValue,
                  conn > connection, event["from"] == "client", let text = event["text"]?.stringValue else { return false }
            return (try? JSONParser.parse(Array(text.utf8)))?["type"] == "register"
        }
    }

    /// Hands the desktop's next QR to the phone, as the user scanning it would (edited by `change`).
    func scanDesktopQR(_ change: (inout JSONObject) -> Void = { _ in }) async throws {
        var qr = try JSONParser.parse(Array(try await self.await("qr"))).objectValue ?? JSONObject()
        try FileManager.default.removeItem(at: file("qr"))
        change(&qr)
        try Data(JSONSerializer.compact(.object(qr)).utf8).write(to: file("handoff"))
    }

    /// The user's part of a session of each flow through the watch, after the desktop's first QR
    /// was scanned (Flow B): typing the desktop's next code (manual), then showing the phone's QR
    /// to the desktop (Flow A).
    func typeTheCodeThenShowThePhonesQR() async throws {
        let qr = try JSONParser.parse(Array(try await self.await("qr")))
        try FileManager.default.removeItem(at: file("qr"))
        try Data((qr["code"]?.stringValue ?? "").utf8).write(to: file("handoff"))
        _ = try await self.await("qr")
        try Data("show-qr".utf8).write(to: file("handoff"))
        try await self.await("phone-qr").write(to: file("scan"))
    }

    static func watchReport(_ stdout: String) throws -> JSONValue {
        try JSONParser.parse(Array(stdout.utf8), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64))["watch"] ?? .null
    }

    /// The live report equals the report of the log it wrote, judged offline.
    func expectReplayEqualsLive(_ live: String) async throws {
        let replay = try await Fixture.run("conformance", ["check", "--session", file("session.jsonl").path, "--format", "json"])
        #expect(replay.stdout == live, "\(replay.stderr)")
        try expectHostedAndForwardedAgree()
        // Every format renders the log with the same verdict (issue 39.5: HTML once crashed on
        // every migration log), and the HTML page loads in a browser.
        let watch = try Self.watchReport(replay.stdout)
        for format in ["text", "junit", "html"] {
            let out = file("session.\(format)")
            let run = try await Fixture.run("conformance", ["check", "--session", file("session.jsonl").path, "--format", format, "--output", out.path])
            #expect(run.status == replay.status, "\(format): \(run.stderr)")
            #expect(((try? Data(contentsOf: out)) ?? Data()).count > 100, "\(format): \(run.stderr)")
        }
        if HTMLReportTests.chromium() != nil {
            let dom = try await HTMLReportTests.renderedDOM(file("session.html"))
            #expect(dom.contains("<h1>conformance watch: \(watch["family"]?.stringValue ?? "?")</h1>"), "\(dom.prefix(500))")
        }
    }

    /// Hosting and forwarding see one exchange; a client's verdicts must not depend on which
    /// (issue 38.2). The log is judged both ways: the relay judged (as forwarding judges it) or
    /// not (as hosting does), and each client's violations are the same.
    func expectHostedAndForwardedAgree() throws {
        var log = try SessionLog.read(Array(try Data(contentsOf: file("session.jsonl"))))
        guard log.header.family == "pairing" else { return }
        func clients(judgeRelay: Bool) -> [String] {
            log.header.judge["judgeRelay"] = .bool(judgeRelay)
            let result = WatchResult.replay(log)
            return (result?.findings ?? []).filter { $0.side != "relay" }.map { "\($0.side) \($0.connection ?? 0) \($0.violation.rule) \($0.violation.path) \($0.count)" }
        }
        let hosted = clients(judgeRelay: false)
        #expect(clients(judgeRelay: true) == hosted, "the clients' verdicts, hosted: \(hosted)")
    }

    /// The reference phone and desktop pair through the watch by QR (Flow B), by typed code and
    /// by the phone's QR (Flow A): three sessions paired, no violation.
    @Test(.timeLimit(.minutes(2))) func referencePeersPairThroughTheWatchInEveryFlow() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (url, watching) = try await watch(["--sessions", "3", "--name", "desktop-watched=the-desktop"])
        let desktop = try await start(
            ["desktop", "--relay", url, "--qr-file", file("qr").path, "--scan-file", file("scan").path, "--sessions", "3", "--peer-id", "desktop-watched"],
            log: "desktop.log")
        defer { desktop.terminate() }
        let phone = try await referencePhone(url, sessions: 3)
        defer { phone.terminate() }
        try await scanDesktopQR()
        try await typeTheCodeThenShowThePhonesQR()
        let result = try await watching.value
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try Self.watchReport(result.stdout)
        #expect(report["sessions"]?.arrayValue?.compactMap { $0["flow"]?.stringValue } == ["flow-b", "manual", "flow-a"])
        #expect(report["sessions"]?.arrayValue?.allSatisfy { $0["outcome"] == "paired" } == true, "\(result.stdout)")
        #expect(report["violations"]?.arrayValue?.isEmpty == true, "\(result.stdout)")
        #expect(report["connections"]?.arrayValue?.contains { $0["side"] == "desktop" && $0["name"] == "the-desktop" } == true)
        try await expectReplayEqualsLive(result.stdout)
    }

    /// A desktop that confirms a wrong code (its confirm-any-code fault) is the side that broke
    /// PAIR-DESK-003, at the confirmation it sent; the phone is blamed for nothing.
    @Test(.timeLimit(.minutes(2))) func aDesktopConfirmingAWrongCodeIsTheDesktopsViolation() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (url, watching) = try await watch(["--sessions", "1", "--timeout", "2"])
        let desktop = try await referenceDesktop(url, sessions: 1, faults: ["confirm-any-code"])
        defer { desktop.terminate() }
        let phone = try await referencePhone(url, sessions: 1)
        defer { phone.terminate() }
        try await scanDesktopQR { qr in
            let code = Int(qr["code"]?.stringValue ?? "") ?? 0
            qr["code"] = .string(String(format: "%06d", (code + 1) % 1_000_000))
        }
        let result = try await watching.value
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let report = try Self.watchReport(result.stdout)
        let violations = report["violations"]?.arrayValue ?? []
        #expect(violations.count == 1, "\(result.stdout)")
        #expect(violations.first?["side"] == "desktop")
        #expect(violations.first?["rule"] == "PAIR-DESK-003")
        #expect(violations.first?["path"] == "/payload/pairingCode")
        #expect(violations.first?["frame"]?.stringValue?.contains(#""type":"pairing:confirmation""#) == true)
        #expect(report["sessions"]?.arrayValue?.first?["outcome"] == "broken")
        try await expectReplayEqualsLive(result.stdout)
    }

    /// A phone that, after its connection dropped, registers the id it sent to (its
    /// register-target-id fault, the echo-loop trap: here the code's alias) is the side that
    /// broke PAIR-SIG-001. Its connection goes through a proxy that drops it instead of passing on
    /// the desktop's confirmation, so the phone, still waiting, reconnects.
    @Test(.timeLimit(.minutes(2))) func aPhoneRegisteringTheDesktopsIdIsThePhonesViolation() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Until the phone's second connection registered (then Ctrl-C): a fixed --duration ran
        // out on a loaded CI machine before the phone, slow to start, had even reconnected.
        let (watching, url, exited) = try await interruptibleWatch(["--format", "json"])
        defer { if watching.isRunning { watching.terminate() } }
        let desktop = try await referenceDesktop(url, sessions: 1)
        defer { desktop.terminate() }
        let dropped = Counter()
        let proxy = try await FaultProxy.start(upstream: url) {
            // Once, instead of the confirmation the phone waits for: its network goes away.
            let toClient: FaultProxy.Rewriter = { message, forward in
                if case .text(let text) = message, text.contains(#""pairing:confirmation""#), dropped.value == 0 {
                    dropped.add()
                    await forward.drop()
                    return
                }
                await forward.send(message)
            }
            return (toClient, { message, forward in await forward.send(message) })
        }
        let phone = try await referencePhone(proxy.url, sessions: 0, faults: ["register-target-id"])
        defer { phone.terminate() }
        // A typed code: the phone waits for the confirmation on its signaling server, the proxy.
        let qr = try JSONParser.parse(Array(try await self.await("qr")))
        try Data((qr["code"]?.stringValue ?? "").utf8).write(to: file("handoff"))
        let reRegistered = await Fixture.eventually(within: 60) { registeredAgain(after: 2) }
        kill(watching.processIdentifier, SIGINT)
        for await _ in exited {}
        watching.waitUntilExit()
        await proxy.close()
        #expect(reRegistered, "\(log("phone.log"))")
        #expect(dropped.value == 1)
        let stdout = log("watch.out")
        let report = try Self.watchReport(stdout)
        let violations = report["violations"]?.arrayValue ?? []
        #expect(watching.terminationStatus == 1, "\(stdout)")
        #expect(violations.contains { $0["side"] == "phone" && $0["rule"] == "PAIR-SIG-001" && $0["path"] == "/peerId" }, "\(stdout)")
        #expect(!violations.contains { $0["side"] == "desktop" }, "\(stdout)")
        try await expectReplayEqualsLive(stdout)
    }

    /// Through someone else's relay (the third-party fixture) the relay's deviations are the
    /// relay's, and the clients, which conform, are blamed for nothing.
    @Test(.timeLimit(.minutes(2))) func aThirdPartyRelaysDeviationsAreTheRelays() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (node, port) = try await thirdPartyRelay()
        defer { node.terminate() }
        let (url, watching) = try await watch(["--sessions", "1", "--upstream", "ws://127.0.0.1:\(port)", "--timeout", "2"])
        let desktop = try await referenceDesktop(url, sessions: 1)
        defer { desktop.terminate() }
        let phone = try await referencePhone(url, sessions: 1)
        defer { phone.terminate() }
        try await scanDesktopQR()
        let result = try await watching.value
        let report = try Self.watchReport(result.stdout)
        let violations = report["violations"]?.arrayValue ?? []
        #expect(report["sessions"]?.arrayValue?.first?["outcome"] == "paired", "\(result.stdout)")
        #expect(violations.allSatisfy { $0["side"] == "relay" }, "\(result.stdout)")
        // Its upper-case error code for the alias it refuses (one peer id per connection).
        #expect(violations.contains { $0["rule"] == "PAIR-SIG-003" && $0["found"] == "\"INVALID_REGISTRATION\"" }, "\(result.stdout)")
        // Its presence broadcasts are notes.
        #expect(report["notes"]?.arrayValue?.contains { $0.stringValue?.contains("peer-status") == true } == true)
        try await expectReplayEqualsLive(result.stdout)
    }

    /// A relay that cannot be reached is exit 2 with the reason before the watch listens: it was
    /// `PASS`, exit 0, every client's connection dropped unjudged (issue 38, case 5).
    @Test(.timeLimit(.minutes(1))) func anUpstreamThatCannotBeReachedIsAUsageError() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let upstream = "ws://127.0.0.1:\(try LoopbackPort.free())"
        let result = try await Fixture.run("conformance", ["watch", "--family", "pairing", "--listen", "127.0.0.1:0", "--upstream", upstream, "--duration", "1"], limit: 30)
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("--upstream \(upstream) cannot be reached"), "\(result.stderr)")
        #expect(!result.stdout.contains("PASS"), "\(result.stdout)")
    }

    @Test func aKeepaliveForNoSideIsAUsageError() async throws {
        let result = try await Fixture.run("conformance", ["watch", "--family", "pairing", "--listen", "127.0.0.1:0", "--keepalive-ms", "tablet=500"], limit: 30)
        #expect(result.status == 2 && result.stderr.contains("--keepalive-ms tablet=500 is not MS or SIDE=MS (phone or desktop)"), "\(result.stderr)")
    }

    @Test func aConfirmationWaitOutsideTheSpecsIsAUsageError() async throws {
        let result = try await Fixture.run("conformance", ["watch", "--family", "pairing", "--listen", "127.0.0.1:0", "--confirmation-wait", "300001"], limit: 30)
        #expect(result.status == 2 && result.stderr.contains("--confirmation-wait must be 1 ... 300000 ms"), "\(result.stderr)")
    }
}

extension LiveWatchTests {
    /// The docs-only outsiders (Tests/Fixtures/outsider-phone and outsider-desktop, Python, their
    /// own WebSocket code) meet through the watch in every flow and are judged as the reference
    /// peers are: three sessions paired, no violation.
    @Test(.timeLimit(.minutes(2))) func theOutsidersMeetThroughTheWatch() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (url, watching) = try await watch(["--sessions", "3"])
        let desktop = try outsider("outsider-desktop/desktop.py", ["--relay", url, "--qr-file", file("qr").path, "--scan-file", file("scan").path, "--sessions", "3"], log: "desktop.log")
        defer { desktop.terminate() }
        let phone = try outsider("outsider-phone/phone.py", ["--handoff-file", file("handoff").path, "--qr-file", file("phone-qr").path, "--signaling", url], log: "phone.log")
        defer { phone.terminate() }
        try await scanDesktopQR()
        try await typeTheCodeThenShowThePhonesQR()
        let result = try await watching.value
        let report = try Self.watchReport(result.stdout)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)\n\(log("desktop.log"))\n\(log("phone.log"))")
        #expect(report["sessions"]?.arrayValue?.compactMap { $0["flow"]?.stringValue } == ["flow-b", "manual", "flow-a"], "\(result.stdout)")
        #expect(report["sessions"]?.arrayValue?.allSatisfy { $0["outcome"] == "paired" } == true, "\(result.stdout)")
        try await expectReplayEqualsLive(result.stdout)
    }
}

/// `conformance watch --family migration` between a real old phone (the reference sender) and a
/// real new phone (the reference receiver, or the docs-only outsider with its faults).
extension LiveWatchTests {
    /// `reference-peer send` with `senderArguments` (faults), on a free port; its URL.
    /// The outsider receiver takes only the Spec's 600,000 PBKDF2 iterations (`standard`).
    /// `ackTimeout`: short (1000 ms) where a test waits for resends; a test of a whole migration
    /// gives more, since a loaded CI machine has made a streamed one run out of its five sends.
    func watchedSender(_ senderArguments: [String] = [], standard: Bool = false, ackTimeout: Int = 1000) async throws -> (Process, String) {
        try? FileManager.default.removeItem(at: file("url"))
        let sender = try await start(
            [
                "send", try senderStore(), "--listen", "127.0.0.1:0", "--ready-file", file("url").path, "--password-file", file("password").path,
                "--pin-file", file("sender-pin").path, "--sessions", "1", "--chunk-size", "64K", "--ack-timeout-ms", "\(ackTimeout)",
            ] + (standard ? [] : ["--iterations", "1000", "--test-only"]) + senderArguments, log: "send.log", readyFile: file("url"))
        return (sender, try String(contentsOf: file("url"), encoding: .utf8))
    }

    /// `testFloor`: the watch accepts the test senders' 1,000 PBKDF2 iterations. `ackTimeout`:
    /// the sender's ack timeout the watch is told (the watched senders' is 1000 ms).
    func watchMigration(upstream: String, password: Bool = false, testFloor: Bool = true, ackTimeout: Int = 1000) async throws -> (String, Task<(status: Int32, stdout: String, stderr: String), any Error>) {
        try? FileManager.default.removeItem(at: file("watch-url"))
        let arguments = [
            "watch", "--family", "migration", "--listen", "127.0.0.1:0", "--upstream", upstream, "--ready-file", file("watch-url").path,
            "--log", file("session.jsonl").path, "--format", "json", "--sessions", "1", "--ack-timeout-ms", "\(ackTimeout)",
        ] + (password ? ["--password-file", file("password").path] : []) + (testFloor ? ["--minimum-iterations", "1000"] : [])
        let task = Task { try await Fixture.run("conformance", arguments, limit: 120) }
        return (String(decoding: try await self.await("watch-url"), as: UTF8.self), task)
    }

    /// Types PINs into the sender as its user would: the one the receiver shows, or (`wrong`) that
    /// one plus 1, one per request.
    func typePINs(_ pins: [Bool], shownIn shown: String) async throws {
        let pin = String(decoding: try await self.await(shown), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        for right in pins {
            let typed = right ? pin : String(format: "%06d", ((Int(pin) ?? 0) + 1) % 1_000_000)
            try Data(typed.utf8).write(to: file("sender-pin"))
            // The sender removes the file once it read the PIN.
            let path = file("sender-pin").path
            _ = await Fixture.eventually(within: 10) { !FileManager.default.fileExists(atPath: path) }
        }
    }

    /// A sender whose envelope header states fewer PBKDF2 iterations than the Spec's 600,000 is
    /// judged so by the watch from BackupMeta, without the password (MIG-ENV-003); the receiver
    /// refuses it as it must. Found by the matrix: the watch opened any header with a floor of 1.
    @Test(.timeLimit(.minutes(2))) func aWeakEnvelopeHeaderIsTheSendersBreak() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (sender, url) = try await watchedSender()
        defer { sender.terminate() }
        let (watchURL, watching) = try await watchMigration(upstream: url, testFloor: false)
        let receiver = try await start(
            ["receive", "--connect", watchURL, "--into", file("new").path, "--password-file", file("password").path, "--yes",
             "--pin-out", file("receiver-pin").path], log: "receive.log")
        defer { receiver.terminate() }
        try await typePINs([true], shownIn: "receiver-pin")
        let result = try await watching.value
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)\n\(log("receive.log"))")
        let found = (try Self.watchReport(result.stdout))["violations"]?.arrayValue ?? []
        #expect(found.map { "\($0["side"]?.stringValue ?? "") \($0["rule"]?.stringValue ?? "") \($0["path"]?.stringValue ?? "")" } == ["sender MIG-ENV-003 /payload/envelopeHeader"], "\(found)")
    }

    /// The reference peers migrate through the watch: stores identical, one session migrated,
    /// no violation; the log judged again gives the same report. Also with both peers streaming
    /// (Spec migration.md §5.5): the watch cannot tell, and need not.
    @Test(.timeLimit(.minutes(2)), arguments: [false, true]) func referencePeersMigrateThroughTheWatch(streaming: Bool) async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let mode = streaming ? ["--streaming"] : []
        let (sender, url) = try await watchedSender(mode, ackTimeout: 10_000)
        defer { sender.terminate() }
        let (watchURL, watching) = try await watchMigration(upstream: url, password: true, ackTimeout: 10_000)
        let receiver = try await start(
            ["receive", "--connect", watchURL, "--into", file("new").path, "--password-file", file("password").path, "--yes", "--minimum-iterations", "1000",
             "--pin-out", file("receiver-pin").path] + mode, log: "receive.log")
        defer { receiver.terminate() }
        try await typePINs([true], shownIn: "receiver-pin")
        let result = try await watching.value
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)\n\(log("receive.log"))")
        // With the password, every segment was opened as it passed.
        #expect(result.stdout.contains("segments were authenticated with the password given"), "\(result.stdout)")
        #expect(try String(contentsOf: file("session.jsonl"), encoding: .utf8).contains(#""segments":{"opened":"#))
        let report = try Self.watchReport(result.stdout)
        #expect(report["sessions"]?.arrayValue?.first?["outcome"] == "migrated", "\(result.stdout)")
        await Fixture.exit(of: receiver, limit: 30)
        #expect(receiver.terminationStatus == 0, "\(log("receive.log"))")
        #expect(try DeviceStore(file("old")).inventory() == DeviceStore(file("new")).inventory())
        #expect(try String(contentsOf: file("session.jsonl"), encoding: .utf8).contains(#""envelope":{"sha256":"#))
        try await expectReplayEqualsLive(result.stdout)
        // The HTML of a migration log draws it (it crashed on every migration watch: the
        // receiver's and the sender's lanes share connection 1; issue 39, case 5).
        let html = try await Fixture.run("conformance", ["check", "--session", file("session.jsonl").path, "--format", "html", "--output", file("session.html").path])
        #expect(html.status == 0, "\(html.stderr)")
        let drawn = (try? String(contentsOf: file("session.html"), encoding: .utf8)) ?? ""
        #expect(drawn.contains("<svg") && drawn.contains("migrated"), "\(drawn.prefix(400))")
    }

    /// Each chunk fault of the sender (a corrupted, a duplicated, a held and a dropped chunk) is
    /// the sender's violation, on its rule, and the migration still completes; a held or dropped
    /// chunk also with a receiver that unpacks as chunks arrive, which acknowledges the chunks
    /// after the gap only once it fills (§5.5): the watch blames only the sender.
    @Test(.timeLimit(.minutes(2)), arguments: [
        ("corruptChunks=3", "MIG-CHUNK-004", "/chunkSHA256", false), ("duplicateChunks=3", "MIG-XFER-002", "/index", false),
        ("holdChunks=3", "MIG-XFER-001", "/index", false), ("dropChunks=3", "MIG-XFER-001", "/index", false),
        ("holdChunks=3", "MIG-XFER-001", "/index", true), ("dropChunks=3", "MIG-XFER-001", "/index", true),
    ])
    func eachChunkFaultIsTheSenders(fault: String, rule: String, path: String, streamingReceiver: Bool) async throws {
        try await chunkFault(fault, streamingReceiver: streamingReceiver, expected: ["sender \(rule) \(path)"])
    }

    /// MIG-XFER-002 through the watch: a sender that sends chunks again before the ack timeout
    /// the watch was told (5 s; it resends after 1 s) is caught, though it was not asked. The
    /// streaming receiver leaves chunks 3 to 17, after the dropped 2, unacknowledged, so they
    /// time out together; those whose second send the watch sees before their ok crosses it are
    /// the sender's (how many of the 15 depends on the race, never none: 3 leaves first).
    @Test(.timeLimit(.minutes(2))) func aSenderThatSendsAgainBeforeItsAckTimeoutIsCaught() async throws {
        let found = try await chunkFault("dropChunks=3", streamingReceiver: true, ackTimeout: 5000, expected: nil)
        #expect(found.first == "sender MIG-XFER-001 /index", "\(found)")
        #expect((1...15).contains(found.count - 1) && found.dropFirst().allSatisfy { $0 == "sender MIG-XFER-002 /index" }, "\(found)")
    }

    /// A sender with `fault` migrates through the watch to a receiver; the watch finds `expected`
    /// (side, rule, path; nil: the caller judges what it returns) and the session ends migrated.
    @discardableResult
    func chunkFault(_ fault: String, streamingReceiver: Bool, ackTimeout: Int = 1000, expected: [String]?) async throws -> [String] {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (sender, url) = try await watchedSender(["--fault", fault])
        defer { sender.terminate() }
        let (watchURL, watching) = try await watchMigration(upstream: url, ackTimeout: ackTimeout)
        let receiver = try await start(
            ["receive", "--connect", watchURL, "--into", file("new").path, "--password-file", file("password").path, "--yes", "--minimum-iterations", "1000",
             "--pin-out", file("receiver-pin").path] + (streamingReceiver ? ["--streaming"] : []), log: "receive.log")
        defer { receiver.terminate() }
        try await typePINs([true], shownIn: "receiver-pin")
        let result = try await watching.value
        let report = try Self.watchReport(result.stdout)
        let violations = report["violations"]?.arrayValue ?? []
        #expect(result.status == 1)
        let found = violations.map { "\($0["side"]?.stringValue ?? "") \($0["rule"]?.stringValue ?? "") \($0["path"]?.stringValue ?? "")" }
        if let expected { #expect(found == expected, "\(result.stdout)") }
        #expect(report["sessions"]?.arrayValue?.first?["outcome"] == "migrated", "\(result.stdout)")
        try await expectReplayEqualsLive(result.stdout)
        return found
    }

    /// The docs-only receiver's faults are the receiver's: attempts left miscounted after a wrong
    /// PIN (MIG-PIN-002), and a corrupted chunk acknowledged ok (MIG-CHUNK-004, beside the
    /// sender's own violation for corrupting it).
    @Test(.timeLimit(.minutes(2)), arguments: [
        // 4 attempts left after one wrong PIN, then 4 again after the second.
        ("wrong-attempts-left", [String](), [false, false, true], [("receiver", "MIG-PIN-002", "/payload/attemptsLeft")]),
        ("ack-corrupt", ["--fault", "corruptChunks=3"], [true], [("sender", "MIG-CHUNK-004", "/chunkSHA256"), ("receiver", "MIG-CHUNK-004", "/payload/status")]),
    ])
    func theOutsiderReceiversFaultsAreTheReceivers(fault: String, senderFaults: [String], pins: [Bool], expected: [(String, String, String)]) async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (sender, url) = try await watchedSender(senderFaults, standard: true)
        defer { sender.terminate() }
        let (watchURL, watching) = try await watchMigration(upstream: url)
        let receiver = try outsider(
            "outsider-receiver/receiver.py",
            ["--connect", watchURL, "--out", file("outsider").path, "--pin-out", file("receiver-pin").path, "--password-file", file("password").path,
             "--sessions", "1", "--fault", fault])
        defer { receiver.terminate() }
        try await typePINs(pins, shownIn: "receiver-pin")
        let result = try await watching.value
        let violations = try Self.watchReport(result.stdout)["violations"]?.arrayValue ?? []
        #expect(result.status == 1)
        let found = violations.map { [$0["side"]?.stringValue ?? "", $0["rule"]?.stringValue ?? "", $0["path"]?.stringValue ?? ""] }
        #expect(found == expected.map { [$0.0, $0.1, $0.2] }, "\(result.stdout)\n\(result.stderr)\n\(log("outsider.log"))\n\(log("send.log"))")
        try await expectReplayEqualsLive(result.stdout)
    }
}


extension LiveWatchTests {
    /// A pairing watch that runs until it is interrupted (SIGINT, as Ctrl-C): its stdout goes to
    /// watch.out, its session log to session.jsonl; returns its URL and the stream that ends
    /// when it exits.
    func interruptibleWatch(_ extra: [String]) async throws -> (process: Process, url: String, exited: AsyncStream<Void>) {
        try? FileManager.default.removeItem(at: file("watch-url"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixture.executable("conformance"))
        process.arguments =
            ["watch", "--family", "pairing", "--listen", "127.0.0.1:0", "--ready-file", file("watch-url").path, "--log", file("session.jsonl").path] + extra
        process.currentDirectoryURL = Fixture.root
        _ = FileManager.default.createFile(atPath: file("watch.out").path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: file("watch.out"))
        process.standardError = FileHandle.nullDevice
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()
        let url = String(decoding: try await self.await("watch-url"), as: UTF8.self)
        return (process, url, exited.stream)
    }

    /// Ctrl-C ends the watch and the report is still written; the HTML report draws each session
    /// as a sequence diagram with the broken frame's rule linked.
    @Test(.timeLimit(.minutes(2))) func anInterruptedWatchWritesItsReportAndTheHTMLDrawsTheSessions() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (process, url, exited) = try await interruptibleWatch(["--timeout", "1"])
        let desktop = try await referenceDesktop(url, sessions: 1, faults: ["confirm-any-code"])
        defer { desktop.terminate() }
        let phone = try await referencePhone(url, sessions: 1)
        defer { phone.terminate() }
        try await scanDesktopQR { qr in qr["code"] = .string(String(format: "%06d", ((Int(qr["code"]?.stringValue ?? "") ?? 0) + 1) % 1_000_000)) }
        // The phone's Flow B ends with its ack; the desktop's confirmation of the wrong code may
        // cross the watch after the phone exits (a loaded CI machine interrupted the watch before
        // it did): the watch is interrupted once its log holds the confirmation.
        await Fixture.exit(of: phone, limit: 30)
        let path = file("session.jsonl").path
        let confirmed = await Fixture.first(within: 30, every: .milliseconds(25)) {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").contains(#"pairing:confirmation"#) ? true : nil
        }
        #expect(confirmed == true, "\(log("session.jsonl"))")
        kill(process.processIdentifier, SIGINT)
        for await _ in exited {}
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(log("watch.out").contains("FAIL  desktop, connection 1: PAIR-DESK-003"), "\(log("watch.out"))")
        #expect(log("session.jsonl").hasSuffix("\"end\":true}\n"))
        let html = try await Fixture.run("conformance", ["check", "--session", file("session.jsonl").path, "--format", "html"])
        #expect(html.status == 1)
        #expect(html.stdout.contains(#"<section id="session-1"><h2>Session 1: flow-b, broken"#), "\(html.stdout.prefix(2000))")
        #expect(html.stdout.contains("<svg"))
        #expect(html.stdout.contains(##"pairing.md#PAIR-DESK-003"><tspan fill="#b00020">PAIR-DESK-003</tspan></a>"##), "\(html.stdout)")
    }
}

extension LiveWatchTests {
    /// A client that floods the watch: its log stops at --log-limit-mb, ending with an end line
    /// where it stopped, and the report says when (2,010 frames of 60 KiB once grew a log to
    /// 130 MB); the log, replayed, is a session log like any other.
    @Test(.timeLimit(.minutes(2))) func aFloodStopsTheLogAtItsLimit() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (process, url, exited) = try await interruptibleWatch(["--format", "json", "--log-limit-mb", "1"])
        let frame = #"{"type":"flood","pad":""# + String(repeating: "x", count: 60 << 10) + #""}"#
        let path = file("session.jsonl").path
        let ended = try await Self.connect(url).run { _, writer in
            try await writer.send(text: #"{"type":"register","peerId":"did:key:z6MkFlood"}"#)
            for _ in 0..<40 { try await writer.send(text: frame) }
            // The watch has logged up to its limit once the log's end line is written.
            let ended = await Fixture.first(within: 30, every: .milliseconds(25)) {
                ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").hasSuffix("\"end\":true}\n") ? true : nil
            }
            await writer.close()
            return ended
        }
        #expect(ended == true)
        kill(process.processIdentifier, SIGINT)
        for await _ in exited {}
        process.waitUntilExit()
        let size = (try FileManager.default.attributesOfItem(atPath: file("session.jsonl").path)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size <= 1 << 20, "\(size) bytes")
        #expect(size > 900 << 10, "\(size) bytes")
        let notes = try Self.watchReport(log("watch.out"))["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains { $0.contains("where it reached its limit of 1048576 bytes (--log-limit-mb)") }, "\(notes.suffix(2))")
        let replay = try await Fixture.run("conformance", ["check", "--session", file("session.jsonl").path])
        #expect([0, 1].contains(replay.status), "\(replay.stderr)")
    }
}

extension LiveWatchTests {
    /// Issue 26.4: two reference peers that go on past pairing negotiate through the watch (Spec
    /// pairing.md 4.6), which judges every signal on the way, each as it crosses: the phone's
    /// offer and candidate, the desktop's answer and candidate; no violation.
    @Test(.timeLimit(.minutes(2))) func referencePeersNegotiateThroughTheWatch() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (process, url, exited) = try await interruptibleWatch(["--format", "json"])
        defer { if process.isRunning { process.terminate() } }
        let desktop = try await start(
            ["desktop", "--relay", url, "--qr-file", file("qr").path, "--sessions", "1", "--webrtc"], log: "desktop.log", output: "desktop.out")
        defer { desktop.terminate() }
        let phone = try await start(
            ["phone", "--handoff-file", file("handoff").path, "--signaling", url, "--sessions", "1", "--webrtc"], log: "phone.log", output: "phone.out")
        defer { phone.terminate() }
        try await scanDesktopQR()
        // Both peers end once their side of the exchange has: then everything crossed the watch.
        await Fixture.exit(of: phone, limit: 60)
        await Fixture.exit(of: desktop, limit: 60)
        #expect(log("phone.out").contains("phone: success (Reference Desktop); negotiated"), "\(log("phone.out"))\(log("phone.log"))")
        #expect(log("desktop.out").contains("desktop: paired (Reference Phone); negotiated"), "\(log("desktop.out"))\(log("desktop.log"))")
        kill(process.processIdentifier, SIGINT)
        for await _ in exited {}
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(log("watch.out"))")
        let report = try Self.watchReport(log("watch.out"))
        #expect(report["violations"]?.arrayValue?.isEmpty == true, "\(log("watch.out"))")
        let session = log("session.jsonl")
        for signal in [#"\"type\":\"offer\""#, #"\"type\":\"answer\""#, #"\"type\":\"ice-candidate\""#] {
            #expect(session.contains(signal), "\(signal) not in the session log")
        }
    }

    /// The exchange judged whole (PAIR-RTC-006) between the docs-only outsiders, not only the
    /// reference: their offer, answer and candidates cross the watch, which finds no violation
    /// and leaves no exchange unjudged.
    @Test(.timeLimit(.minutes(2))) func theOutsidersNegotiateThroughTheWatch() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (process, url, exited) = try await interruptibleWatch(["--format", "json"])
        defer { if process.isRunning { process.terminate() } }
        let desktop = try outsider(
            "outsider-desktop/desktop.py", ["--relay", url, "--qr-file", file("qr").path, "--scan-file", file("scan").path, "--sessions", "1", "--webrtc"],
            log: "desktop.log")
        defer { desktop.terminate() }
        let phone = try outsider(
            "outsider-phone/phone.py", ["--handoff-file", file("handoff").path, "--qr-file", file("phone-qr").path, "--signaling", url, "--webrtc"], log: "phone.log")
        defer { phone.terminate() }
        try await scanDesktopQR()
        // The desktop ends once its side of the exchange has (it had the phone's candidate).
        await Fixture.exit(of: desktop, limit: 60)
        #expect(desktop.terminationStatus == 0, "\(log("desktop.log"))")
        kill(process.processIdentifier, SIGINT)
        for await _ in exited {}
        process.waitUntilExit()
        let report = try Self.watchReport(log("watch.out"))
        #expect(process.terminationStatus == 0, "\(log("watch.out"))")
        #expect(report["violations"]?.arrayValue?.isEmpty == true, "\(log("watch.out"))")
        #expect(report["notes"]?.arrayValue?.contains { $0.stringValue?.contains("WebRTC offer") == true } == false, "\(log("watch.out"))")
        let session = log("session.jsonl")
        for signal in [#"\"type\":\"offer\""#, #"\"type\":\"answer\""#, #"\"type\":\"ice-candidate\""#] {
            #expect(session.contains(signal), "\(signal) not in the session log")
        }
    }
}
