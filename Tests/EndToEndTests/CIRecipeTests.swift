import Foundation
import TestFixture
import Testing

/// The CI recipe's step (Conformance/ci/run-conformance), run as an outside repository would:
/// a deliberately wrong testee passes with its expected-failure list and fails without it, and
/// both reports are written.
@Suite("CI recipe", .serialized)
struct CIRecipeTests {
    static func recipe(
        expectedFailures: String?, script: String = "run-conformance", shard: String? = nil,
        reports: URL = FileManager.default.temporaryDirectory.appendingPathComponent("ci-recipe-\(UUID().uuidString)")
    ) async throws -> (status: Int32, output: String, reports: URL) {
        var environment = ProcessInfo.processInfo.environment
        environment["CONFORMANCE_BUNDLE"] = Fixture.executable("conformance")
        environment["TESTEE"] = "'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes"
        environment["FAMILY"] = "pairing"
        environment["REPORTS"] = reports.path
        environment["EXPECTED_FAILURES"] = expectedFailures
        environment["SHARD"] = shard
        environment["SHARDS"] = shard == nil && script == "merge-conformance" ? "4" : nil
        let run = try await Fixture.execute(Fixture.root.appendingPathComponent("Conformance/ci/" + script), [], environment: environment)
        return (run.status, run.stdout + run.stderr, reports)
    }

    @Test func failsOnlyOnNewBreaks() async throws {
        let known = try await Self.recipe(expectedFailures: "Conformance/expected-failures/example-accepts-five-digit-codes.txt")
        defer { try? FileManager.default.removeItem(at: known.reports) }
        #expect(known.status == 0, "\(known.output)")
        #expect(known.output.contains("conformance 1.0.0 (vectors sha256:"), "\(known.output)")
        let junit = try String(contentsOf: known.reports.appendingPathComponent("conformance.xml"), encoding: .utf8)
        #expect(junit.contains("<skipped message=\"expected failure: "), "expected failures are skipped in JUnit")
        let html = try String(contentsOf: known.reports.appendingPathComponent("conformance.html"), encoding: .utf8)
        #expect(html.contains(#"id="verdict">PASS</span>"#))

        let unknown = try await Self.recipe(expectedFailures: nil)
        defer { try? FileManager.default.removeItem(at: unknown.reports) }
        #expect(unknown.status == 1, "\(unknown.output)")
        let failing = try String(contentsOf: unknown.reports.appendingPathComponent("conformance.xml"), encoding: .utf8)
        #expect(failing.contains("PAIR-CODE-001"))
    }

    /// The sharded recipe (github-actions-sharded.yml): four shard steps and the merge decide
    /// as the one run does, with the list and without it, and the merged JUnit report is the
    /// one run's.
    @Test func shardsAndTheirMergeDecideAsOneRun() async throws {
        for list in ["Conformance/expected-failures/example-accepts-five-digit-codes.txt", nil] {
            let reports = FileManager.default.temporaryDirectory.appendingPathComponent("ci-shards-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: reports) }
            for i in 1...4 {
                let shard = try await Self.recipe(expectedFailures: list, shard: "\(i)/4", reports: reports)
                #expect(shard.status == 0, "a shard step leaves the verdict to the merge: \(shard.output)")
            }
            let merged = try await Self.recipe(expectedFailures: list, script: "merge-conformance", reports: reports)
            let whole = try await Self.recipe(expectedFailures: list)
            defer { try? FileManager.default.removeItem(at: whole.reports) }
            #expect(merged.status == (list == nil ? 1 : 0), "\(merged.output)")
            #expect(whole.status == merged.status)
            func junit(_ folder: URL) throws -> String {
                try String(contentsOf: folder.appendingPathComponent("conformance.xml"), encoding: .utf8)
                    .replacingOccurrences(of: #"time="[0-9.]+""#, with: "time", options: .regularExpression)
            }
            let sameJUnit = try junit(reports) == junit(whole.reports)
            #expect(sameJUnit, "the merged JUnit report differs from the unsharded run's")
            #expect(FileManager.default.fileExists(atPath: reports.appendingPathComponent("conformance.html").path))
        }
        // A shard missing is not a pass.
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("ci-shards-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: reports) }
        _ = try await Self.recipe(expectedFailures: nil, shard: "1/4", reports: reports)
        let partial = try await Self.recipe(expectedFailures: nil, script: "merge-conformance", reports: reports)
        #expect(partial.status == 2 && partial.output.contains("1 shard reports in"), "\(partial.output)")
    }
}
