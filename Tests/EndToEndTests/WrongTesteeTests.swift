import ConformanceKit
import Foundation
import TestFixture
import TesteeProtocol
import Testing
import WireCore

/// The kit catches regressions: a deliberately wrong testee fails exactly the cases it should,
/// on exactly the rule and path it breaks, and nothing else.
@Suite("Deliberately wrong testees", .serialized)
struct WrongTesteeTests {
    /// Rejecting cases whose first violation is PAIR-CODE-001 on a five-digit string.
    static var fiveDigitCases: [String: ExpectedViolation] {
        var result: [String: ExpectedViolation] = [:]
        for c in Fixture.cases {
            guard case .document(_, let input, .reject(let expected)) = c.body, let first = expected.first,
                first.rule == "PAIR-CODE-001", let doc = try? JSONParser.parse(input),
                case .string(let code)? = first.path.resolve(in: doc)
            else { continue }
            let digits = code.hasPrefix("pairing-code:") ? String(code.dropFirst(13)) : code
            if digits.utf8.count == 5 && digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { result[c.id] = first }
        }
        return result
    }

    @Test func acceptingFiveDigitCodesFailsExactlyTheFiveDigitCases() throws {
        let expected = Self.fiveDigitCases
        #expect(expected.count >= 3, "the vectors must hold several five-digit code cases")
        let peer = ExecPeer(command: "'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes")
        _ = try peer.start().get()
        let report = Runner.run(Fixture.cases, against: peer)
        peer.close()
        let failed = report.results.filter { $0.verdict != .pass }
        #expect(Set(failed.map(\.vector.id)) == Set(expected.keys))
        for r in failed {
            guard let want = expected[r.vector.id] else { continue }
            let found = r.violations.map(ExpectedViolation.init)
            #expect(found.first == want, "\(r.vector.id): \(r.violations)")
            // Either the buggy testee accepts, or, past its buggy code check, a later check of the
            // same document fails (e.g. PAIR-DID-002): the kit then names both, the code first.
            if found.count == 1 {
                #expect(r.violations.first?.found == "accepted", "\(r.vector.id)")
            } else {
                #expect(found.count == 2, "\(r.vector.id): \(r.violations)")
                #expect(r.violations.last?.expected == "no violation here", "\(r.vector.id)")
            }
        }
    }

    @Test func theSameFailuresListedAsExpectedLetTheRunPass() throws {
        // Without signatures: each case may fail on its own rules only.
        let lines = Self.fiveDigitCases.keys.map { "\($0)  # accepts five-digit codes" }.joined(separator: "\n")
        let expected = try ExpectedFailures.parse(lines)
        let peer = ExecPeer(command: "'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes")
        _ = try peer.start().get()
        let report = Runner.run(Fixture.cases, against: peer, expectedFailures: expected)
        peer.close()
        let reportOK = report.ok
        #expect(reportOK)
        #expect(report.count(.expectedFailure) == Self.fiveDigitCases.count)
        // Against the correct reference, the same list is stale: every listed case now passes.
        let honest = Runner.run(Fixture.cases, against: LocalPeer(), expectedFailures: expected)
        let honestOK = honest.ok
        #expect(!honestOK)
        #expect(honest.count(.unexpectedPass) == Self.fiveDigitCases.count)
    }

    @Test func aCrashingTesteeFailsItsCasesAndIsRestarted() throws {
        let peer = ExecPeer(command: "'\(Fixture.executable("reference-peer"))' testee --fault crash-on-machines", timeout: 5)
        _ = try peer.start().get()
        let report = Runner.run(Fixture.cases, against: peer)
        peer.close()
        for r in report.results {
            switch r.vector.body {
            case .machine:
                #expect(r.status == .broken(.crashed(r.summary.replacingOccurrences(of: "testee-crashed: ", with: ""))))
                #expect(r.signatures == ["testee-crashed"])
            case .document:
                #expect(r.verdict == .pass, "\(r.vector.id) must pass after restarts: \(r.summary)")
            }
        }
    }
}
