import Foundation
import TestFixture
import Testing
import WebSocketTransport

/// The receiver role against the outsider receiver (Tests/Fixtures/outsider-receiver) breaking one
/// rule on request: each break fails its scenario on its rule, at the path where the receiver's
/// message shows it. Not serialized: the lockout cases spend most of their time waiting, without
/// holding a thread of the concurrency pool (`runAsync`), which the other suites need.
@Suite("The receiver role fails a receiver that breaks a rule")
struct ReceiverFaultTests {
    struct Break: Sendable, CustomTestStringConvertible {
        var faults: [String]
        var scenario: String
        var rule: String
        var path: String
        var found: String
        var testDescription: String { faults.joined(separator: "+") }
    }

    static let breaks = [
        Break(faults: ["skip-final-digest"], scenario: "wrong-digest-announced", rule: "MIG-XFER-004", path: "/payload/result", found: #""verified""#),
        Break(faults: ["ack-corrupt", "skip-final-digest"], scenario: "corrupted-chunk", rule: "MIG-CHUNK-004", path: "/payload/status", found: #""ok" for chunk 2"#),
        Break(faults: ["wrong-attempts-left"], scenario: "five-wrong-pins", rule: "MIG-PIN-002", path: "/payload/attemptsLeft", found: "found    4"),
        Break(faults: ["early-lock"], scenario: "five-wrong-pins", rule: "MIG-PIN-002", path: "/payload/result", found: #""locked" at wrong PIN 3"#),
        Break(faults: ["no-lockout"], scenario: "five-wrong-pins", rule: "MIG-PIN-003", path: "", found: "its next Handshake after"),
    ]

    @Test(.timeLimit(.minutes(2)), arguments: breaks) func aBreakFailsItsScenario(_ broken: Break) async throws {
        let live = try LiveRunTests()
        defer { try? FileManager.default.removeItem(at: live.scratch) }
        let port = try LoopbackPort.free()
        let receiver = try live.outsider(
            "outsider-receiver/receiver.py",
            ["--connect", "ws://127.0.0.1:\(port)", "--out", live.file("outsider").path, "--pin-out", live.file("pin").path, "--password-file", live.file("conformance-password").path]
                + broken.faults.flatMap { ["--fault", $0] })
        defer { receiver.terminate() }
        let run = try await Fixture.run(
            "conformance",
            ["run", "--role", "receiver", "--listen", "127.0.0.1:\(port)", "--pin-file", live.file("pin").path, "--case", "migration/live-receiver/\(broken.scenario)"],
            limit: 100)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)\n\(live.log("outsider.log"))")
        #expect(run.stdout.contains("FAIL  migration/live-receiver/\(broken.scenario)"), "\(run.stdout)")
        #expect(run.stdout.contains("\(broken.rule) at \"\(broken.path)\""), "\(run.stdout)")
        #expect(run.stdout.contains(broken.found), "\(run.stdout)")
    }
}

extension ReceiverFaultTests {
    /// A receiver showing 999999 is typed 000000 as the wrong PIN (the shown one plus one modulo
    /// 10^6), a valid six-digit PIN it can reject: the scenario passes.
    @Test(.timeLimit(.minutes(2))) func theWrongPINAfter999999IsSixDigits() async throws {
        let live = try LiveRunTests()
        defer { try? FileManager.default.removeItem(at: live.scratch) }
        let port = try LoopbackPort.free()
        let receiver = try live.outsider(
            "outsider-receiver/receiver.py",
            [
                "--connect", "ws://127.0.0.1:\(port)", "--out", live.file("outsider").path, "--pin-out", live.file("pin").path, "--password-file",
                live.file("conformance-password").path, "--fault", "fixed-pin-999999",
            ])
        defer { receiver.terminate() }
        let run = try await Fixture.run(
            "conformance", ["run", "--role", "receiver", "--listen", "127.0.0.1:\(port)", "--pin-file", live.file("pin").path, "--case", "migration/live-receiver/five-wrong-pins"],
            limit: 100)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(live.log("outsider.log"))")
        #expect(live.log("outsider.log").contains("wrong PIN 000000: 4 attempt(s) left"), "\(live.log("outsider.log"))")
    }
}
