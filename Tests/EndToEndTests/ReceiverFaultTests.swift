import Foundation
import TestFixture
import Testing
import WebSocketTransport
import WireCore

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
        /// Whether the runner is given the receiver's store (MIG-REST-001 is seen only then).
        var store = false
        var testDescription: String { faults.joined(separator: "+") }
    }

    static let breaks = [
        Break(faults: ["skip-final-digest"], scenario: "wrong-digest-announced", rule: "MIG-XFER-004", path: "/payload/result", found: #""verified""#),
        Break(faults: ["ack-corrupt", "skip-final-digest"], scenario: "corrupted-chunk", rule: "MIG-CHUNK-004", path: "/payload/status", found: #""ok" for chunk 2"#),
        Break(faults: ["wrong-attempts-left"], scenario: "five-wrong-pins", rule: "MIG-PIN-002", path: "/payload/attemptsLeft", found: "found    4"),
        Break(faults: ["early-lock"], scenario: "five-wrong-pins", rule: "MIG-PIN-002", path: "/payload/result", found: #""locked" at wrong PIN 3"#),
        Break(faults: ["no-lockout"], scenario: "five-wrong-pins", rule: "MIG-PIN-003", path: "", found: "its next Handshake after"),
        Break(faults: ["no-resume"], scenario: "disconnect-and-resume", rule: "MIG-XFER-003", path: "", found: "a Handshake and no ResumeTransfer: a new session"),
        Break(faults: ["forget-have"], scenario: "disconnect-and-resume", rule: "MIG-XFER-003", path: "/payload/have", found: "0 chunk(s), without chunk 0"),
        Break(faults: ["no-restore"], scenario: "clean", rule: "MIG-REST-001", path: "/package", found: "none of them", store: true),
        Break(faults: ["restore-refused"], scenario: "hostile-symlink-entry", rule: "MIG-REST-001", path: "/after/10", found: #""media/link (a symbolic link to /etc)" added"#, store: true),
        // Restored 3 s after Complete: the store is read once the receiver came back, not at the first quiet moment.
        Break(
            faults: ["restore-refused", "slow-restore"], scenario: "hostile-symlink-entry", rule: "MIG-REST-001", path: "/after/10",
            found: #""media/link (a symbolic link to /etc)" added"#, store: true),
        Break(faults: ["restore-leftover"], scenario: "clean", rule: "MIG-REST-001", path: "/after/5", found: #""leftover.txt", which the package does not hold"#, store: true),
    ]

    /// The outsider receiver with `faults` against the runner playing `scenario`, with `runner`'s
    /// extra arguments (`store` adds the receiver's store); the run and the receiver's log.
    static func play(faults: [String], scenario: String, store: Bool = false, runner: [String] = []) async throws -> (
        run: (status: Int32, stdout: String, stderr: String), log: String
    ) {
        let live = try LiveRunTests()
        defer { try? FileManager.default.removeItem(at: live.scratch) }
        let port = try LoopbackPort.free()
        let receiver = try live.outsider(
            "outsider-receiver/receiver.py",
            ["--connect", "ws://127.0.0.1:\(port)", "--out", live.file("outsider").path, "--pin-out", live.file("pin").path, "--password-file", live.file("conformance-password").path]
                + faults.flatMap { ["--fault", $0] }, withResults: true)
        defer { receiver.terminate() }
        let run = try await Fixture.run(
            "conformance",
            ["run", "--role", "receiver", "--listen", "127.0.0.1:\(port)", "--pin-file", live.file("pin").path, "--case", "migration/live-receiver/\(scenario)"]
                + (store ? ["--store", live.file("outsider").appendingPathComponent("store").path] : []) + runner,
            limit: 100)
        return (run, live.log("outsider.log"))
    }

    @Test(.timeLimit(.minutes(2)), arguments: breaks) func aBreakFailsItsScenario(_ broken: Break) async throws {
        let (run, log) = try await Self.play(faults: broken.faults, scenario: broken.scenario, store: broken.store)
        // The receiver's log too: a failure seen only in CI is read from its output.
        let context = "\(run.stdout)\(run.stderr)\n\(log)"
        #expect(run.status == 1, "\(context)")
        #expect(run.stdout.contains("FAIL  migration/live-receiver/\(broken.scenario)"), "\(context)")
        #expect(run.stdout.contains("\(broken.rule) at \"\(broken.path)\""), "\(context)")
        #expect(run.stdout.contains(broken.found), "\(context)")
    }
}

extension ReceiverFaultTests {
    /// Without --store the runner cannot see the restore: a receiver that restores nothing passes,
    /// and the report says the restore was not checked.
    @Test(.timeLimit(.minutes(2))) func withoutTheStoreTheRestoreIsSaidUnchecked() async throws {
        let (run, log) = try await Self.play(faults: ["no-restore"], scenario: "clean", runner: ["--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(log)")
        let notes = (try JSONParser.parse(Array(run.stdout.utf8)))["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains { $0.hasPrefix("restore not checked: a receiver that answers verified and restores nothing passes (give --store DIR") }, "\(notes)")
    }

    /// A hostile scenario whose session ends before the runner offered its package never sent
    /// the package: not a pass (nothing was refused), and no rule seen broken, so skipped with
    /// that reason. The same hang-up fails the clean scenario, where the package was due.
    @Test(.timeLimit(.minutes(2))) func aHostilePackageNeverOfferedIsNotAPass() async throws {
        let (run, log) = try await Self.play(faults: ["hang-up-at-pin"], scenario: "hostile-symlink-entry", store: true, runner: ["--format", "json"])
        // Exit 2: a run whose every case went unplayed judged nothing.
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)\n\(log)")
        let report = try JSONParser.parse(Array(run.stdout.utf8))
        let only = report["cases"]?.arrayValue?.first
        #expect(only?["status"]?.stringValue == "skipped", "\(run.stdout)")
        #expect(
            only?["reason"]?.stringValue
                == "the session ended (disconnected) before the runner offered its package: the hostile package was never sent, so its refusal (MIG-PKG-006) was not seen",
            "\(run.stdout)")
        let clean = try await Self.play(faults: ["hang-up-at-pin"], scenario: "clean", store: true)
        #expect(clean.run.status == 1, "\(clean.run.stdout)\(clean.run.stderr)\n\(clean.log)")
        #expect(clean.run.stdout.contains("FAIL  migration/live-receiver/clean"), "\(clean.run.stdout)")
    }

    /// A receiver showing 999999 is typed 000000 as the wrong PIN (the shown one plus one modulo
    /// 10^6), a valid six-digit PIN it can reject: the scenario passes.
    @Test(.timeLimit(.minutes(2))) func theWrongPINAfter999999IsSixDigits() async throws {
        let (run, log) = try await Self.play(faults: ["fixed-pin-999999"], scenario: "five-wrong-pins")
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(log)")
        #expect(log.contains("wrong PIN 000000: 4 attempt(s) left"), "\(log)")
    }
}
