import Foundation
import Testing

/// The CI recipe's step (Conformance/ci/run-conformance), run as an outside repository would:
/// a deliberately wrong testee passes with its expected-failure list and fails without it, and
/// both reports are written.
@Suite("CI recipe", .serialized)
struct CIRecipeTests {
    static func recipe(expectedFailures: String?) throws -> (status: Int32, output: String, reports: URL) {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("ci-recipe-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = Fixture.root.appendingPathComponent("Conformance/ci/run-conformance")
        process.currentDirectoryURL = Fixture.root
        var environment = ProcessInfo.processInfo.environment
        environment["CONFORMANCE_BUNDLE"] = Fixture.executable("conformance")
        environment["TESTEE"] = "'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes"
        environment["FAMILY"] = "pairing"
        environment["REPORTS"] = reports.path
        environment["EXPECTED_FAILURES"] = expectedFailures
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, reports)
    }

    @Test func failsOnlyOnNewBreaks() throws {
        let known = try Self.recipe(expectedFailures: "Conformance/expected-failures/example-accepts-five-digit-codes.txt")
        defer { try? FileManager.default.removeItem(at: known.reports) }
        #expect(known.status == 0, "\(known.output)")
        #expect(known.output.contains("conformance 1.0.0 (vectors sha256:"), "\(known.output)")
        let junit = try String(contentsOf: known.reports.appendingPathComponent("conformance.xml"), encoding: .utf8)
        #expect(junit.contains("<skipped message=\"expected failure: "), "expected failures are skipped in JUnit")
        let html = try String(contentsOf: known.reports.appendingPathComponent("conformance.html"), encoding: .utf8)
        #expect(html.contains(#"id="verdict">PASS</span>"#))

        let unknown = try Self.recipe(expectedFailures: nil)
        defer { try? FileManager.default.removeItem(at: unknown.reports) }
        #expect(unknown.status == 1, "\(unknown.output)")
        let failing = try String(contentsOf: unknown.reports.appendingPathComponent("conformance.xml"), encoding: .utf8)
        #expect(failing.contains("PAIR-CODE-001"))
    }
}
