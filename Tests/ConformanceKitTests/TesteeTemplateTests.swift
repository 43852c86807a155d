import Foundation
import Testing

/// The testee templates outside teams copy (Conformance/testees/js, .../java) pass every pairing
/// document case through the testee protocol, written from the documentation alone. Machine
/// cases are narrowed away in their `hello` and reported not implemented.
@Suite("Testee templates for other languages", .serialized)
struct TesteeTemplateTests {
    static func passesEveryPairingDocument(_ command: String) throws {
        let run = try Fixture.run("conformance", ["run", "--family", "pairing", "--peer", "exec:\(command)", "--timeout", "30"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let documents = Fixture.cases.filter { c in
            guard c.family == "pairing", case .document = c.body else { return false }
            return true
        }.count
        let machines = Fixture.cases.filter { $0.family == "pairing" }.count - documents
        #expect(run.stdout.contains("PASS  \(documents) passed, 0 failed, 0 expected failures, \(machines) not implemented"), "\(run.stdout)")
    }

    @Test func nodeTemplate() throws {
        try Self.passesEveryPairingDocument("node Conformance/testees/js/testee.js")
    }

    /// One file, `java Testee.java` (the JDK compiles it at each start, about a second).
    @Test func javaTemplate() throws {
        try Self.passesEveryPairingDocument("java Conformance/testees/java/Testee.java")
    }
}
