import Foundation
import TestFixture
import Testing

/// The testee templates outside teams copy (Conformance/testees/js, .../java) pass every pairing
/// document case, and every records case, through the testee protocol, written from the
/// documentation alone. The pairing templates narrow machine cases away in their `hello`.
@Suite("Testee templates for other languages", .serialized)
struct TesteeTemplateTests {
    static func passesEveryPairingDocument(_ command: String) async throws {
        let run = try await Fixture.run("conformance", ["run", "--family", "pairing", "--peer", "exec:\(command)", "--timeout", "30"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let documents = Fixture.cases.filter { c in
            guard c.family == "pairing", case .document = c.body else { return false }
            return true
        }.count
        let machines = Fixture.cases.filter { $0.family == "pairing" }.count - documents
        #expect(run.stdout.contains("PASS  \(documents) passed, 0 failed, 0 expected failures, \(machines) not implemented"), "\(run.stdout)")
    }

    /// Every records case, machines and models included: nothing narrowed away.
    static func passesEveryRecordsCase(_ command: String) async throws {
        let run = try await Fixture.run("conformance", ["run", "--family", "records", "--peer", "exec:\(command)", "--timeout", "30"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let cases = Fixture.cases.filter { $0.family == "records" }.count
        #expect(run.stdout.contains("PASS  \(cases) passed, 0 failed, 0 expected failures ("), "\(run.stdout)")
    }

    @Test func nodeRecordsTemplate() async throws {
        try await Self.passesEveryRecordsCase("node Conformance/testees/js/records-testee.js")
    }

    @Test func javaRecordsTemplate() async throws {
        try await Self.passesEveryRecordsCase("java Conformance/testees/java/RecordsTestee.java")
    }

    @Test func nodeTemplate() async throws {
        try await Self.passesEveryPairingDocument("node Conformance/testees/js/testee.js")
    }

    /// One file, `java Testee.java` (the JDK compiles it at each start, about a second).
    @Test func javaTemplate() async throws {
        try await Self.passesEveryPairingDocument("java Conformance/testees/java/Testee.java")
    }
}
