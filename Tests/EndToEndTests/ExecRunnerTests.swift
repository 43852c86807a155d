@testable import ConformanceKit
import Foundation
import TestFixture
import TesteeProtocol
import Testing
import WireCore

/// The exec runner against testees that misbehave as new users' testees do: silent after hello,
/// chatty on stdout, dying in hello, spawning children, ignoring SIGTERM. Every run ends in
/// bounded time with a verdict per case and leaves no process behind.
@Suite("The exec runner never hangs", .serialized)
struct ExecRunnerTests {
    static let testees = Fixture.root.appendingPathComponent("Tests/Fixtures/testees")

    static func testee(_ name: String) -> String { testees.appendingPathComponent(name).path }

    /// Processes whose command line contains `marker`.
    static func processes(containing marker: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { Int($0) != nil }.compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
            return line.contains(marker) ? "\(pid): \(line)" : nil
        }
    }

    static func json(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64))
    }

    @Test(.timeLimit(.minutes(2))) func aSilentTesteeTimesOutPerCaseAndLeavesNothingBehind() async throws {
        let marker = String(Int.random(in: 900_000...999_999))
        let started = Date()
        let run = try await Fixture.run(
            "conformance",
            ["run", "--peer", "exec:sh '\(Self.testee("silent.sh"))' \(marker)", "--timeout", "1", "--case", "pairing/pair-ack/*", "--format", "json"],
            limit: 90)
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(run.status == 1, "\(run.stderr)")
        let cases = try Self.json(run.stdout)["cases"]?.arrayValue ?? []
        #expect(cases.count >= 30)
        #expect(cases.allSatisfy { $0["status"] == "testee-timeout" })
        #expect(cases.first?["detail"]?.stringValue?.contains("no answer to case within 1 s") == true, "\(cases.first ?? .null)")
        #expect(cases.last?["detail"]?.stringValue?.contains("answered none of its first 3 cases") == true, "\(cases.last ?? .null)")
        // The shell was killed with its whole group: its `sleep` child too.
        #expect(await Fixture.eventually { Self.processes(containing: "sleep \(marker)").isEmpty }, "\(Self.processes(containing: marker))")
    }

    @Test(.timeLimit(.minutes(2))) func strayLinesOnStdoutGarbleEachCaseWithoutRestarts() async throws {
        let pids = FileManager.default.temporaryDirectory.appendingPathComponent("stray-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: pids) }
        let run = try await Fixture.run(
            "conformance", ["run", "--peer", "exec:python3 '\(Self.testee("stray.py"))' '\(pids.path)'", "--timeout", "2", "--family", "pairing", "--format", "json"],
            limit: 90)
        #expect(run.status == 1)
        let cases = try Self.json(run.stdout)["cases"]?.arrayValue ?? []
        #expect(cases.count == Fixture.cases.filter { $0.family == "pairing" }.count)
        for c in cases {
            #expect(c["status"] == "testee-garbled")
            #expect(c["detail"]?.stringValue?.contains("\"debug: got a request\"") == true, "\(c)")
        }
        // In step again after each stray line: started once for the whole run.
        let started = (try? String(contentsOf: pids, encoding: .utf8))?.split(separator: "\n").count
        #expect(started == 1)
    }

    @Test(.timeLimit(.minutes(2))) func aTesteeThatDiesInHelloFailsEachCaseQuotingItsError() async throws {
        let run = try await Fixture.run(
            "conformance", ["run", "--peer", "exec:node '\(Self.testee("crash-in-hello.js"))'", "--family", "pairing", "--format", "json"], limit: 90)
        #expect(run.status == 1, "a crashed testee is a failed run, not a usage error: \(run.stderr)")
        let cases = try Self.json(run.stdout)["cases"]?.arrayValue ?? []
        #expect(!cases.isEmpty)
        for c in cases {
            #expect(c["status"] == "testee-crashed")
            let detail = c["detail"]?.stringValue ?? ""
            #expect(detail.contains("TypeError: cannot read hello: boom"), "\(detail)")
            #expect(detail.contains("exited with status 1"), "\(detail)")
            #expect(!detail.contains("node:internal"), "the testee's own message, not Node's frames: \(detail)")
        }
        #expect(cases.last?["detail"]?.stringValue?.contains("not started again after 3 failed starts") == true)
    }

    /// The runner's threads may block signals; a child must not inherit that (seen here: every
    /// signal but a few blocked, so SIGTERM never arrived).
    @Test func childrenStartWithNoSignalBlocked() throws {
        let mask = try ThreadResult {
            var all = sigset_t()
            sigfillset(&all)
            pthread_sigmask(SIG_BLOCK, &all, nil)
            let child = try ChildProcess.spawn(shell: "grep SigBlk /proc/self/status")
            let output = LineChannel(fd: child.stdout)
            defer { child.terminateGroup() }
            guard case .line(let line) = output.readLine(timeout: 10) else { return "" }
            return String(decoding: line, as: UTF8.self)
        }.value()
        #expect(mask.hasSuffix("0000000000000000"), "\(mask)")
    }

    @Test(.timeLimit(.minutes(1))) func aGroupThatIgnoresTermIsKilledWithinTheGrace() async throws {
        let number = Int.random(in: 800_000...899_999)
        let (marker, other) = (String(number), String(number + 1))
        let child = try ChildProcess.spawn(shell: "trap '' TERM; sleep \(marker) & sleep \(other); wait")
        #expect(await Fixture.eventually { !Self.processes(containing: "sleep \(other)").isEmpty && !Self.processes(containing: "sleep \(marker)").isEmpty })
        let started = Date()
        child.terminateGroup(grace: 0.5)
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(await Fixture.eventually(within: 5) { Self.processes(containing: "sleep \(marker)").isEmpty })
        #expect(await Fixture.eventually(within: 5) { Self.processes(containing: "sleep \(other)").isEmpty })
        #expect(!child.isRunning)
    }

    @Test func stderrQuotesTheErrorNotTheStackFrames() {
        let node = """
            /tmp/x.js:5
                throw new TypeError('boom');
                ^

            TypeError: boom
                at Interface.<anonymous> (/tmp/x.js:5:11)
                at Interface.emit (node:events:517:28)

            Node.js v20.20.2
            """
        #expect(StderrTail.errorLines(node) == ["/tmp/x.js:5", "TypeError: boom"])
        let python = """
            Traceback (most recent call last):
              File "/tmp/t.py", line 3, in <module>
                raise ValueError("bad")
            ValueError: bad
            """
        #expect(StderrTail.errorLines(python) == ["Traceback (most recent call last):", "ValueError: bad"])
        let jvm = "Exception in thread \"main\" java.lang.IllegalStateException: nope\n\tat Testee.main(Testee.java:9)\n"
        #expect(StderrTail.errorLines(jvm) == ["Exception in thread \"main\" java.lang.IllegalStateException: nope"])
    }

    /// Issue 31.4: a testee that answers one case wrongly every second time passes a single run
    /// by chance, and `--repeat 5` reports it FLAKY with its five outcomes and fails the run.
    @Test(.timeLimit(.minutes(2))) func aFlakyTesteeIsReportedByRepeat() async throws {
        let reference = "'\(Fixture.executable("reference-peer"))' testee"
        let peer = "exec:python3 '\(Self.testee("wrap.py"))' --flaky pairing/pair-ack/seed-example -- \(reference)"
        let once = try await Fixture.run("conformance", ["run", "--peer", peer, "--case", "pairing/pair-ack/*"])
        #expect(once.status == 0, "\(once.stdout)")
        let repeated = try await Fixture.run("conformance", ["run", "--peer", peer, "--case", "pairing/pair-ack/*", "--repeat", "5"])
        #expect(repeated.status == 1, "\(repeated.stdout)")
        #expect(repeated.stdout.contains("FLAKY pairing/pair-ack/seed-example: passed, failed, passed, failed, passed\n"), "\(repeated.stdout)")
        #expect(repeated.stdout.components(separatedBy: "FLAKY ").count - 1 == 1, "only that case: \(repeated.stdout)")
        #expect(repeated.stdout.contains(", 1 flaky ("), "\(repeated.stdout)")
        let json = try await Fixture.run("conformance", ["run", "--peer", peer, "--case", "pairing/pair-ack/*", "--repeat", "2", "--format", "json"])
        let report = try JSONParser.parse(Array(json.stdout.utf8), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64))
        #expect(report["summary"]?["varied"] == 1)
        #expect(report["varied"]?.arrayValue?.first?["outcomes"] == ["passed", "failed"])
        // The reference itself does not vary.
        let steady = try await Fixture.run("conformance", ["run", "--peer", "exec:\(reference)", "--case", "pairing/pair-ack/*", "--repeat", "3"])
        #expect(steady.status == 0, "\(steady.stdout)")
        #expect(steady.stdout.contains("each case run 3 times"), "\(steady.stdout)")
    }

    /// Issue 31.3: every failing case prints the command that plays it again, and that command,
    /// run as printed by a shell, plays exactly that case with the same outcome.
    @Test(.timeLimit(.minutes(2))) func aFailureNamesTheCommandThatReplaysIt() async throws {
        let reference = "'\(Fixture.executable("reference-peer"))' testee"
        let peer = "exec:python3 '\(Self.testee("wrap.py"))' --wrong pairing/pair-ack/seed-example -- \(reference)"
        let run = try await Fixture.run(
            "conformance", ["run", "--peer", peer, "--case", "pairing/pair-ack/*", "--exclude", "pairing/pair-ack/zzz", "--format", "json"])
        #expect(run.status == 1)
        let report = try JSONParser.parse(Array(run.stdout.utf8), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64))
        let failing = (report["cases"]?.arrayValue ?? []).filter { $0["status"] == "failed" }
        #expect(failing.count == 1)
        let replay = try #require(failing.first?["replay"]?.stringValue)
        #expect(!replay.contains("--exclude") && !replay.contains("--format") && replay.hasSuffix(" --case pairing/pair-ack/seed-example"), "\(replay)")
        // As a user pastes it: through a shell, from the checkout.
        let again = try await Fixture.execute(URL(fileURLWithPath: "/bin/sh"), ["-c", replay])
        #expect(again.status == 1, "\(again.stdout)")
        #expect(again.stdout.contains("conformance run: 1 case against"), "\(again.stdout)")
        #expect(again.stdout.contains("FAIL  pairing/pair-ack/seed-example\n"), "\(again.stdout)")
        #expect(again.stdout.contains("       replay: \(replay)\n"), "\(again.stdout)")
    }

    /// A testee that only says accept or reject: the verdicts are graded, the diagnosis is "not
    /// given", per kind, and the run passes.
    @Test(.timeLimit(.minutes(2))) func verdictOnlyAnswersAreGradedApart() async throws {
        let reference = "'\(Fixture.executable("reference-peer"))' testee"
        let run = try await Fixture.run(
            "conformance", ["run", "--peer", "exec:python3 '\(Self.testee("wrap.py"))' --verdict-only -- \(reference)", "--family", "pairing"], limit: 120)
        #expect(run.status == 0, "\(run.stdout)")
        let rejecting = Fixture.cases.filter {
            guard $0.family == "pairing", $0.subject == "pair-ack", case .document(_, _, .reject) = $0.body else { return false }
            return true
        }.count
        let accepting = Fixture.cases.filter { $0.family == "pairing" && $0.subject == "pair-ack" }.count - rejecting
        #expect(run.stdout.contains("pair-ack                  \(accepting + rejecting)/\(accepting + rejecting) passed, \(rejecting) verdict only"), "\(run.stdout)")
        #expect(
            run.stdout.contains("verdict \(accepting + rejecting)/\(accepting + rejecting) · diagnosis 0/0 (\(rejecting) not given) · canonical \(accepting)/\(accepting)"),
            "\(run.stdout)")
        let json = try await Fixture.run(
            "conformance",
            ["run", "--peer", "exec:python3 '\(Self.testee("wrap.py"))' --verdict-only -- \(reference)", "--case", "pairing/pair-ack/*", "--format", "json"])
        let kinds = try Self.json(json.stdout)["kinds"]?.arrayValue ?? []
        let levels = kinds.first { $0["subject"] == "pair-ack" }?["levels"]
        #expect(levels?["diagnosis"]?["notGiven"] == .number(JSONNumber(Int64(rejecting))))
        #expect(levels?["verdict"]?["agreed"] == .number(JSONNumber(Int64(accepting + rejecting))))
    }

    /// Issue 26: the JSON summary counts verdict-only passes, and a rejecting case the testee
    /// accepted has no diagnosis to grade (not "not given").
    @Test(.timeLimit(.minutes(2))) func verdictOnlyIsCountedAndAnAcceptHasNoDiagnosis() async throws {
        let reference = "'\(Fixture.executable("reference-peer"))' testee"
        let json = try await Fixture.run(
            "conformance", ["run", "--peer", "exec:python3 '\(Self.testee("wrap.py"))' --verdict-only -- \(reference)", "--case", "pairing/pair-ack/*", "--format", "json"])
        let rejecting = Fixture.cases.filter {
            guard $0.family == "pairing", $0.subject == "pair-ack", case .document(_, _, .reject) = $0.body else { return false }
            return true
        }.count
        #expect(try Self.json(json.stdout)["summary"]?["verdictOnly"] == .number(JSONNumber(Int64(rejecting))))
        let faulty = try await Fixture.run(
            "conformance",
            ["run", "--peer", "exec:'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes", "--case", "pairing/pair-ack/code-five-digits", "--format", "json"])
        let diagnosis = try Self.json(faulty.stdout)["kinds"]?.arrayValue?.first?["levels"]?["diagnosis"]
        #expect(diagnosis?["notGiven"] == 0, "\(faulty.stdout)")
        #expect(diagnosis?["disagreed"] == 0)
    }

    /// A testee whose hello names what it implements: the rest is reported, never failed.
    @Test(.timeLimit(.minutes(2))) func helloNarrowsWhatIsAsked() async throws {
        let reference = "'\(Fixture.executable("reference-peer"))' testee"
        let hello = #"{"protocol":1,"implementation":"pair-ack only","families":["pairing"],"kinds":["pair-ack"],"machines":["flow-b"]}"#
        let run = try await Fixture.run(
            "conformance",
            ["run", "--peer", "exec:python3 '\(Self.testee("wrap.py"))' --hello '\(hello)' -- \(reference)", "--family", "pairing", "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)")
        let document = try Self.json(run.stdout)
        for c in document["cases"]?.arrayValue ?? [] {
            let subject = c["subject"]?.stringValue ?? ""
            #expect(c["status"] == ((subject == "pair-ack" || subject == "flow-b") ? "passed" : "not-implemented"), "\(c)")
        }
        let implemented = Fixture.cases.filter { $0.family == "pairing" && ($0.subject == "pair-ack" || $0.subject == "flow-b") }.count
        #expect(document["summary"]?["passed"] == .number(JSONNumber(Int64(implemented))))
        #expect(
            document["summary"]?["notImplemented"] == .number(JSONNumber(Int64(Fixture.cases.filter { $0.family == "pairing" }.count - implemented))))
        // A testee that declines every case selected: nothing was judged, so nothing passed
        // (it was `PASS 0 passed`, exit 0).
        let declined = try await Fixture.run(
            "conformance",
            ["run", "--peer", "exec:python3 '\(Self.testee("wrap.py"))' --hello '\(hello)' -- \(reference)", "--case", "pairing/desktop-pairing/*"])
        #expect(declined.status == 2, "\(declined.stdout)\(declined.stderr)")
        let count = Fixture.cases.filter { $0.id.hasPrefix("pairing/desktop-pairing/") }.count
        #expect(declined.stderr.contains("no case was judged (\(count) not implemented): a run that judges nothing is not a pass"), "\(declined.stderr)")
    }
}

/// Runs `body` on a thread of its own (whose signal mask it may change) and hands back its result.
final class ThreadResult<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            result = Result(catching: body)
            done.signal()
        }
        thread.start()
    }

    func value() throws -> T {
        done.wait()
        return try result!.get()
    }
}

extension ExecRunnerTests {
    /// Messages say what happened, in the testee protocol's terms: a testee that closed its
    /// output but runs on is not "exited", and a wrong case id is not a Spec rule.
    @Test(.timeLimit(.minutes(1))) func failuresAreDescribedAsTheyHappened() throws {
        let closed = ExecPeer(command: #"read line; echo '{"protocol":1}'; exec 1>&-; sleep 30"#, timeout: 5)
        defer { closed.close() }
        let vector = try #require(Fixture.cases.first { $0.family == "pairing" })
        guard case .failure(let failure) = closed.evaluate(TesteeRequest(vector)) else {
            Issue.record("a testee without an output cannot answer")
            return
        }
        #expect(failure.description.contains("closed its standard output but is still running"), "\(failure)")

        let wrongCase = ExecPeer(command: #"read line; echo '{"protocol":1}'; read line; echo '{"case":"another/case","outcome":"accept","canonical":{}}'; sleep 30"#)
        defer { wrongCase.close() }
        guard case .failure(.garbled(let detail)) = wrongCase.evaluate(TesteeRequest(vector)) else {
            Issue.record("an answer for another case is garbled")
            return
        }
        #expect(detail.contains(#"member /case: expected "\#(vector.id)", found "another/case""#), "\(detail)")
        #expect(!detail.contains("CORE-TYPE"), "\(detail)")
    }
}

/// Issue 24.3: every read honours the deadline, a flood of lines is counted rather than kept,
/// and a long answer line is scanned once.
extension ExecRunnerTests {
    /// `yes ''` writes empty lines as fast as it can: buffered lines used to be taken without a
    /// look at the deadline, so the run never ended and kept every line.
    @Test(.timeLimit(.minutes(2))) func aTesteeFloodingStdoutEndsInBoundedTime() async throws {
        let started = Date()
        let run = try await Fixture.run(
            "conformance", ["run", "--peer", "exec:yes ''", "--timeout", "2", "--case", "pairing/pair-ack/*", "--format", "json"], limit: 90)
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(run.status == 1, "\(run.stderr)")
        let cases = try Self.json(run.stdout)["cases"]?.arrayValue ?? []
        #expect(cases.count >= 30)
        #expect(cases.allSatisfy { $0["status"] == "testee-timeout" })
        let detail = cases.first?["detail"]?.stringValue ?? ""
        #expect(detail.contains("no answer to hello within 2 s; it wrote "), "\(detail)")
        #expect(detail.contains(" lines that are not answers, first \"\""), "\(detail)")
        #expect(!detail.contains("without a newline"), "\(detail)")
    }

    /// A 16 MiB answer line is read within a 10 s timeout (12 MiB took 24 s when every chunk
    /// rescanned and copied the buffer; a loaded CI machine once needed more than 3 s for a debug
    /// build's linear read), and the report keeps 512 bytes of its reason.
    @Test(.timeLimit(.minutes(2))) func aSixteenMebibyteAnswerIsReadAndCut() async throws {
        let run = try await Fixture.run(
            "conformance",
            ["run", "--peer", "exec:python3 '\(Self.testee("huge.py"))'", "--timeout", "10", "--case", "pairing/pair-ack/code-five-digits", "--format", "json"],
            limit: 90)
        let cases = try Self.json(run.stdout)["cases"]?.arrayValue ?? []
        #expect(cases.count == 1, "\(run.stdout.prefix(2000))")
        #expect(cases.first?["status"] != "testee-timeout", "\(cases.first ?? .null)")
        #expect(run.stdout.utf8.count < 64 << 10, "the report holds \(run.stdout.utf8.count) bytes")
        #expect(run.stdout.contains("… (16777216 bytes)"), "\(run.stdout.prefix(3000))")
    }

    /// `--jobs 3` plays the cases in three testee processes and reports exactly what one
    /// process does, case for case in the same order; a crashing testee is restarted in each.
    @Test func jobsReportWhatOneWorkerReports() async throws {
        let faulty = "exec:'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes"
        func report(_ jobs: Int) async throws -> JSONValue {
            let run = try await Fixture.run("conformance", ["run", "--peer", faulty, "--family", "pairing", "--jobs", "\(jobs)", "--format", "json"], limit: 600)
            #expect(run.status == 1, "\(run.stderr)")
            return try ReportMergeTests.timeless(run.stdout)
        }
        let one = try await report(1)
        let three = try await report(3)
        #expect(ReportMergeTests.differences(one, three) == "")
        #expect((three["cases"]?.arrayValue ?? []).count > 300)
        let live = try await Fixture.run("conformance", ["run", "--peer", "ws://127.0.0.1:9", "--role", "relay", "--jobs", "2"])
        #expect(live.status == 2)
        #expect(live.stderr.contains("live cases (--role) share one peer and run one at a time"), "\(live.stderr)")
    }
}
