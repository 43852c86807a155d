import Foundation
import TestFixture
import Testing
import WireCore

/// The testee templates outside teams copy (Conformance/testees/js, .../java) pass every pairing
/// (and, in Java, migration) document case of the kinds they implement, and every records case, through the testee
/// protocol, written from the documentation alone. A pairing template's `hello` lists its kinds
/// (its dispatch table) and no machines: a kind the Spec gains is "not implemented" for it until
/// someone writes it there, so adding a kind does not mean editing the templates.
@Suite("Testee templates for other languages", .serialized)
struct TesteeTemplateTests {
    static func passesEveryDocumentOfItsKinds(_ command: String, family: String = "pairing") async throws {
        let hello = try await Fixture.execute(
            URL(fileURLWithPath: "/bin/sh"), ["-c", command], stdin: Array("{\"op\":\"hello\",\"protocol\":1}\n{\"op\":\"bye\"}\n".utf8), limit: 60)
        let line = hello.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let kinds = Set((try? JSONParser.parse(Array(line.utf8)))?["kinds"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let pairing = Fixture.cases.filter { $0.family == family }
        let documentKinds = Set(pairing.compactMap { c -> String? in
            guard case .document(let kind, _, _) = c.body else { return nil }
            return kind
        })
        // Kinds it names exist, and it implements some: a hello that lists nothing would pass vacuously.
        #expect(!kinds.isEmpty && kinds.isSubset(of: documentKinds), "\(line)\(hello.stderr)")
        let run = try await Fixture.run("conformance", ["run", "--family", family, "--peer", "exec:\(command)", "--timeout", "30"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let documents = pairing.filter { c in
            guard case .document(let kind, _, _) = c.body else { return false }
            return kinds.contains(kind)
        }.count
        #expect(run.stdout.contains("PASS  \(documents) passed, 0 failed, 0 expected failures, \(pairing.count - documents) not implemented"), "\(run.stdout)")
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
        try await Self.passesEveryDocumentOfItsKinds("node Conformance/testees/js/testee.js")
    }

    /// One file, `java Testee.java` (the JDK compiles it at each start, about a second).
    @Test func javaTemplate() async throws {
        try await Self.passesEveryDocumentOfItsKinds("java Conformance/testees/java/Testee.java")
    }

    /// The migration family's documents in one Java file (envelope, manifest, exports, package),
    /// written from the Spec alone (issue 39.7): every case of its kinds passes.
    @Test func javaMigrationTemplate() async throws {
        try await Self.passesEveryDocumentOfItsKinds("java Conformance/testees/java/MigrationTestee.java", family: "migration")
    }
}
