import ConformanceKit
import Foundation
import Reference
import TestFixture
import TesteeProtocol
import Testing
import WireCore

@Suite("The reference passes every vector, in-process and through the testee protocol", .serialized)
struct ReferenceRunTests {
    @Test func inProcess() {
        let report = Runner.run(Fixture.cases, against: LocalPeer())
        for r in report.results where r.verdict != .pass {
            Issue.record("\(r.vector.id): \(r.summary)")
        }
        let reportOK = report.ok
        #expect(reportOK)
        #expect(report.results.count == Fixture.cases.count)
    }

    @Test func throughExecGivesIdenticalResults() throws {
        let peer = ExecPeer(command: "'\(Fixture.executable("reference-peer"))' testee")
        let hello = try peer.start().get()
        #expect(hello.families == Families.all.map(\.name))
        let viaExec = Runner.run(Fixture.cases, against: peer)
        peer.close()
        let inProcess = Runner.run(Fixture.cases, against: LocalPeer())
        #expect(viaExec.results.count == inProcess.results.count)
        for (a, b) in zip(viaExec.results, inProcess.results) {
            #expect(a.vector.id == b.vector.id)
            #expect(a.status == b.status, "\(a.vector.id): \(a.summary) vs \(b.summary)")
            #expect(a.violations.map(ExpectedViolation.init) == b.violations.map(ExpectedViolation.init))
        }
        let viaExecOK = viaExec.ok
        #expect(viaExecOK)
    }

    /// Every accepted JSON document's canonical form is a fixed point: re-validating its JCS
    /// text gives the same form back (kinds whose canonical form is a summary are left out).
    @Test func canonicalFormsAreStable() {
        for c in Fixture.cases {
            guard case .document(let kind, _, .accept(let canonical)) = c.body, let family = Families.named(c.family),
                !family.registration.summaryKinds.contains(kind)
            else { continue }
            let again = family.validate(kind: kind, document: Array(JSONSerializer.canonical(canonical).utf8), context: c.context)
            #expect(again == .accept(canonical: canonical) || {
                if case .accept(let other) = again { return JSONDiff.differences(expected: canonical, found: other).isEmpty }
                return false
            }(), "\(c.id): \(again)")
        }
    }
}
