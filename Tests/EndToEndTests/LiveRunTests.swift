import Foundation
import TestFixture
import Testing
import WebSocketTransport

/// `conformance run --role ...` against `reference-peer` processes on loopback: every live case in
/// every role, through the network, as CI runs it.
@Suite("The runner against live reference peers", .serialized)
struct LiveRunTests: LivePeers {
    let scratch: URL

    init() throws {
        scratch = try Self.makeScratch()
    }

    @Test func relayRole() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let relay = try await start(["relay", "--listen", "127.0.0.1:0", "--ready-file", file("url").path], log: "relay.log", readyFile: file("url"))
        defer { relay.terminate() }
        let url = try String(contentsOf: file("url"), encoding: .utf8)
        let run = try await Fixture.run("conformance", ["run", "--role", "relay", "--peer", url])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let relayCases = Fixture.cases.filter { $0.family == "pairing" && $0.subject == "relay" }.count
        #expect(run.stdout.contains("PASS  \(relayCases - 3) passed, 0 failed, 0 expected failures, 3 skipped"), "\(run.stdout)")
        // Skipped cases say why, in the report itself.
        #expect(run.stdout.contains("SKIP  pairing/relay/alias-expires\n       skipped: plays 312 s of the relay's clock"), "\(run.stdout)")
    }

    /// Random bytes, a text that is not JSON, a frame over 64 KiB and one over 1 MiB: each gets the
    /// answer PAIR-RELAY-001 names (or the 1009 close) with the rule in the relay's log, and the
    /// relay goes on serving every relay vector.
    @Test(.timeLimit(.minutes(2))) func badFramesNeverCrashTheRelay() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let relay = try await start(
            ["relay", "--listen", "127.0.0.1:0", "--ready-file", file("url").path, "--verbose"], log: "relay.log", readyFile: file("url"))
        defer { relay.terminate() }
        let url = try String(contentsOf: file("url"), encoding: .utf8)
        var random = SystemRandomNumberGenerator()
        let inputs: [(WebSocketMessage, String?)] = [
            (.binary((0..<300).map { _ in UInt8.random(in: 0...255, using: &random) }), #""code":"invalid-message""#),
            (.text("\u{1}\u{2} not json"), #""code":"invalid-message""#),
            (.text(String(repeating: " ", count: 70_000)), #""code":"too-large""#),
            (.binary([UInt8](repeating: 0x20, count: (1 << 20) + 1)), nil),
        ]
        for (input, answer) in inputs {
            let connection = try await Self.connect(url)
            let first: String? = try await connection.run { inbound, writer in
                try await writer.send(input)
                var iterator = inbound.makeAsyncIterator()
                guard case .text(let text)? = try? await iterator.next() else { return nil }
                await writer.close()
                return text
            }
            if let answer {
                #expect(first?.contains(answer) == true, "\(answer): \(first ?? "nothing")")
            } else {
                #expect(first == nil, "a frame over 1 MiB is closed unread")
            }
        }
        // The relay logs each refusal as it happens: wait for the last one rather than guess.
        let logged = await Fixture.eventually {
            log("relay.log").contains("closed with 1009") && log("relay.log").components(separatedBy: "PAIR-RELAY-001 → ").count - 1 >= 3
        }
        #expect(logged, "\(log("relay.log"))")
        #expect(log("relay.log").components(separatedBy: "PAIR-RELAY-001 → ").count - 1 == 3, "\(log("relay.log"))")
        #expect(relay.isRunning)
        let run = try await Fixture.run("conformance", ["run", "--role", "relay", "--peer", url])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    @Test func senderRole() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let sender = try await startSender()
        defer { sender.terminate() }
        let url = try String(contentsOf: file("url"), encoding: .utf8)
        let run = try await Fixture.run(
            "conformance",
            ["run", "--role", "sender", "--peer", url, "--pin-out", file("pin").path, "--password-file", file("password").path, "--minimum-iterations", "1000"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(log("send.log"))")
        #expect(run.stdout.contains("PASS  7 passed, 0 failed"), "\(run.stdout)")
        // Without the test floor, its 1,000 iterations are the sender's break (MIG-ENV-003), with
        // or without the password: a receiver must refuse such a header.
        for password in [true, false] {
            let strict = try await Fixture.run(
                "conformance",
                ["run", "--role", "sender", "--peer", url, "--pin-out", file("pin").path, "--case", "migration/live-sender/clean"]
                    + (password ? ["--password-file", file("password").path] : []))
            #expect(strict.status == 1, "\(strict.stdout)\(strict.stderr)")
            #expect(strict.stdout.contains(#"MIG-ENV-003 at "/payload/envelopeHeader""#), "\(strict.stdout)")
        }
    }

    /// A sender whose package comes in 2 chunks cannot meet a fault at chunk 4: those scenarios
    /// are skipped with the reason, neither passed without their fault nor failed as if the
    /// sender broke a rule (issue 39, case 2: `disconnect-and-resume` passed with no disconnect).
    @Test func aScenarioWhoseFaultCannotHappenIsSkipped() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let sender = try await startSender(chunkSize: "1M")
        defer { sender.terminate() }
        let url = try String(contentsOf: file("url"), encoding: .utf8)
        let run = try await Fixture.run(
            "conformance",
            ["run", "--role", "sender", "--peer", url, "--pin-out", file("pin").path, "--password-file", file("password").path, "--minimum-iterations", "1000",
             "--case", "migration/live-sender/clean", "--case", "migration/live-sender/disconnect-and-resume", "--case", "migration/live-sender/corrupted-chunk"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(log("send.log"))")
        #expect(run.stdout.contains("SKIP  migration/live-sender/disconnect-and-resume"), "\(run.stdout)")
        #expect(run.stdout.contains("its fault needs chunk frame 4, and the sender sent 2: nothing was injected"), "\(run.stdout)")
        #expect(run.stdout.contains("SKIP  migration/live-sender/corrupted-chunk"), "\(run.stdout)")
        #expect(!run.stdout.contains("MIG-CHUNK-004"), "\(run.stdout)")
        // The runner asking for 16 KiB chunks in its Handshake gives the same store every chunk
        // the faults need: every scenario plays.
        let small = try await Fixture.run(
            "conformance",
            ["run", "--role", "sender", "--peer", url, "--pin-out", file("pin").path, "--password-file", file("password").path, "--minimum-iterations", "1000",
             "--max-chunk-size", "16384", "--case", "migration/live-sender/clean", "--case", "migration/live-sender/disconnect-and-resume",
             "--case", "migration/live-sender/corrupted-chunk"])
        #expect(small.status == 0, "\(small.stdout)\(small.stderr)\n\(log("send.log"))")
        #expect(small.stdout.contains("PASS  3 passed, 0 failed"), "\(small.stdout)")
    }

    /// The runner's sender cuts its chunks to the receiver's `maxChunkSize` (here also 10,000 bytes,
    /// below the runner's 16 KiB): a larger one would rightly be refused (MIG-META-001). A receiver
    /// that unpacks as chunks arrive (`--streaming`, Spec migration.md §5.5) passes the same
    /// scenarios: a lost chunk's followers wait unacknowledged within the window until it comes again.
    @Test(arguments: [("1M", false), ("10000", false), ("1M", true)]) func receiverRole(maxChunkSize: String, streaming: Bool) async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let port = try LoopbackPort.free()
        let receiver = try await start(
            [
                "receive", "--connect", "ws://127.0.0.1:\(port)", "--into", file("new").path, "--password-file", file("conformance-password").path,
                "--pin-out", file("pin").path, "--yes", "--sessions", "0", "--max-chunk-size", maxChunkSize,
            ] + (streaming ? ["--streaming"] : []), log: "receive.log")
        defer { receiver.terminate() }
        // The hostile packages through the streaming receiver (the file-first refusals are the
        // Restorer's, which the package vectors hold, and the outsider's, below).
        let hostile = streaming
        let run = try await Fixture.run(
            "conformance",
            ["run", "--role", "receiver", "--listen", "127.0.0.1:\(port)", "--pin-file", file("pin").path, "--store", file("new").path]
                + (hostile ? [] : ["--exclude", "*/hostile-*"]),
            limit: 240)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(log("receive.log"))")
        #expect(run.stdout.contains(hostile ? "PASS  24 passed, 0 failed" : "PASS  8 passed, 0 failed"), "\(run.stdout)")
        #expect(run.stdout.contains("restore checked: the store \(file("new").path) after each scenario (MIG-REST-001, by content)"), "\(run.stdout)")
    }

    /// A receiver written from the docs alone (Tests/Fixtures/outsider-receiver) passes every
    /// receiver scenario. It shows its PIN as soon as it connects, which for the next scenario is
    /// before that scenario starts: the runner must take that PIN, not discard it as stale.
    @Test(.timeLimit(.minutes(3))) func anOutsiderReceiverPassesEveryScenario() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let port = try LoopbackPort.free()
        let receiver = try outsider(
            "outsider-receiver/receiver.py",
            ["--connect", "ws://127.0.0.1:\(port)", "--out", file("outsider").path, "--pin-out", file("pin").path, "--password-file", file("conformance-password").path],
            withResults: true)
        defer { receiver.terminate() }
        // Its store keeps the package's own paths and the manifest: another layout, the same content.
        let store = file("outsider").appendingPathComponent("store").path
        let run = try await Fixture.run(
            "conformance", ["run", "--role", "receiver", "--listen", "127.0.0.1:\(port)", "--pin-file", file("pin").path, "--store", store], limit: 240)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(log("outsider.log"))")
        #expect(run.stdout.contains("PASS  24 passed, 0 failed"), "\(run.stdout)")
        // Each hostile package refused by the receiver itself, on its rule (not by luck).
        for rule in ["MIG-PKG-001", "MIG-PKG-002", "MIG-PKG-003", "MIG-PKG-004", "MIG-PKG-006", "MIG-PKG-007", "MIG-ENV-006", "MIG-ENV-003"] {
            #expect(log("outsider.log").contains("failed: verified but not restored: \(rule)") || log("outsider.log").contains("(\(rule) at"), "\(rule)\n\(log("outsider.log"))")
        }
        #expect(!log("outsider.log").contains("showing the PIN again"), "a PIN file was removed before its scenario read it\n\(log("outsider.log"))")
    }

    /// Garbage, an oversized frame, a binary frame and an out-of-order message each end a session
    /// with the rule named; the sender stays up and serves the next receiver.
    @Test(.timeLimit(.minutes(2))) func badFramesNeverCrashTheSender() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let sender = try await startSender(chunkSize: nil)
        defer { sender.terminate() }
        let url = try String(contentsOf: file("url"), encoding: .utf8)
        let inputs: [(WebSocketMessage, String)] = [
            (.text("\u{1}\u{2} not json"), "CORE-JSON-001"),
            (.binary([0x4D, 0x53, 0x42, 0x43, 1, 2, 3]), "MIG-WS-001"),
            (.text(#"{"type":"StartTransfer","payload":{"backupId":"3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f","window":4}}"#), "MIG-XFER-006"),
            (.text(String(repeating: "x", count: 100_000)), "1009"),
        ]
        for (input, rule) in inputs {
            let connection = try await Self.connect(url)
            let answer: String? = try await connection.run { inbound, writer in
                try await writer.send(input)
                var texts: [String] = []
                for try await message in inbound { if case .text(let t) = message { texts.append(t) } }
                return texts.first
            }
            if rule == "1009" {
                #expect(answer == nil, "an oversized frame is refused before it is read")
                #expect(await Fixture.eventually { log("send.log").contains("closed with 1009") }, "\(log("send.log"))")
            } else {
                #expect(answer?.contains(#""reason":"protocol-error""#) == true, "\(rule): \(answer ?? "nothing")")
                #expect(log("send.log").contains(rule), "\(log("send.log"))")
            }
        }
        #expect(sender.isRunning)
        let run = try await Fixture.run(
            "conformance", ["run", "--role", "sender", "--peer", url, "--pin-out", file("pin").path, "--case", "migration/live-sender/clean", "--minimum-iterations", "1000"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    /// A sender that sends garbage, an oversized frame, a chunk before the transfer or a message out
    /// of order: the receiver ends with status 1 and the rule named, never by a signal, and writes
    /// nothing into its store.
    @Test(.timeLimit(.minutes(3))) func badFramesNeverCrashTheReceiver() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        var random = SystemRandomNumberGenerator()
        let inputs: [(WebSocketMessage, String)] = [
            (.text("\u{1}\u{2} not json"), "CORE-JSON-001"),
            (.binary((0..<500).map { _ in UInt8.random(in: 0...255, using: &random) }), "MIG-XFER-006"),
            (.text(#"{"type":"Complete","payload":{"backupId":"3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f","chunkCount":1,"envelopeSHA256":"00"}}"#), "MIG-MSG"),
            (.binary([UInt8](repeating: 0x41, count: (1 << 20) + 73)), "1009"),
        ]
        for (n, (input, rule)) in inputs.enumerated() {
            let listener = try await WebSocketListener.bind(host: "127.0.0.1", port: 0, maxFrameSize: 1 << 16)
            let accepting = Task {
                await listener.accept { connection in
                    try? await connection.run { inbound, writer in
                        try await writer.send(input)
                        for try await _ in inbound {}
                    }
                }
            }
            let log = "receive-\(n).log"
            let receiver = try await start(
                [
                    "receive", "--connect", "ws://127.0.0.1:\(listener.port)", "--into", file("new").path, "--password-file", file("password").path,
                    "--yes", "--pin-out", file("pin").path,
                ], log: log)
            await Fixture.exit(of: receiver, limit: 60)
            accepting.cancel()
            await listener.close()
            #expect(receiver.terminationReason == .exit && receiver.terminationStatus == 1, "\(rule): \(receiver.terminationReason) \(receiver.terminationStatus)\n\(self.log(log))")
            #expect(self.log(log).contains(rule), "\(self.log(log))")
            #expect(!FileManager.default.fileExists(atPath: file("new").path), "nothing was written")
        }
    }
}

extension LiveRunTests {
    /// Issue 24.8: a receiver that connects and never sends its Handshake is closed by the
    /// runner's sender after 10 s (MIG-XFER-007), and its scenario ends there with that violation
    /// and no second one for the final state, not at the 90 s scenario limit.
    @Test(.timeLimit(.minutes(2))) func aReceiverThatNeverGreetsEndsItsScenarioAtTheGreetingDeadline() async throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let port = try LoopbackPort.free()
        async let run = Fixture.run(
            "conformance",
            ["run", "--role", "receiver", "--listen", "127.0.0.1:\(port)", "--pin-file", file("pin").path, "--case", "migration/live-receiver/clean"],
            limit: 100)
        // The runner prepares its package before it listens: wait for the port, within the limit.
        let silent = await Fixture.first(within: 60) { try? await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)", maxFrameSize: 1 << 20) }
        let connected = Date()
        let connection = try #require(silent)
        // Holds the connection open and sends nothing until the runner closes it.
        try await connection.run { inbound, _ in for try await _ in inbound {} }
        #expect(Date().timeIntervalSince(connected) < 15)
        let result = try await run
        #expect(Date().timeIntervalSince(connected) < 30)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("MIG-XFER-007"), "\(result.stdout)")
        #expect(!result.stdout.contains("did not end within"), "\(result.stdout)")
        #expect(!result.stdout.contains("final state"), "\(result.stdout)")
    }
}
