import Foundation
import TestFixture
import Testing

/// README's "A release gate for the model", run as written on a history of releases: a SwiftData
/// app that tags each release, edits between them, and started syncing at v1.0 (issue 41.6).
@Suite("the README's release gate for the model")
struct ReleaseGateTests {
    /// The README's shell recipe, with the kit's binary in place of `swift run --package-path KIT conformance`.
    static func recipe() throws -> String {
        let readme = try String(contentsOf: Fixture.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "# plain shell, in the app's repository\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
        let block = String(readme[start.lowerBound..<end.lowerBound])
        let kit = "swift run --package-path KIT conformance"
        #expect(block.contains(kit), "\(block)")
        return block.replacingOccurrences(of: kit, with: "'\(Fixture.executable("conformance"))'")
    }

    @Test func theRecipeGatesOnTheLastReleaseTag() async throws {
        let repo = FileManager.default.temporaryDirectory.appendingPathComponent("release-gate-\(UUID().uuidString)")
        let models = repo.appendingPathComponent("MyApp/Models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: repo) }
        func git(_ arguments: [String]) async throws { try await CheckCommandTests.git(arguments, in: repo) }
        func write(card: String) throws {
            try Data("@Model final class Card {\n\(card)    var deck: Deck?\n    init() {}\n}\n".utf8).write(to: models.appendingPathComponent("Card.swift"))
        }
        func release(_ message: String, tag: String? = nil) async throws {
            try await git(["add", "."])
            try await git(["commit", "-q", "-m", message])
            if let tag { try await git(["tag", tag]) }
        }
        let recipe = try Self.recipe()
        func gate() async throws -> (status: Int32, stdout: String, stderr: String) {
            try await Fixture.execute(URL(fileURLWithPath: "/bin/sh"), ["-c", recipe], directory: repo)
        }
        func check(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await Fixture.execute(URL(fileURLWithPath: Fixture.executable("conformance")), ["check"] + arguments + ["MyApp/Models/Card.swift", "MyApp/Models/Deck.swift"], directory: repo)
        }

        // v0.9, before the app synced; its one finding (a unique attribute) accepted by a baseline.
        try Data("""
            @Model final class Deck {
                var title: String = ""
                @Relationship(deleteRule: .cascade, inverse: \\Card.deck) var cards: [Card]? = []
                init() {}
            }

            """.utf8).write(to: models.appendingPathComponent("Deck.swift"))
        try write(card: "    @Attribute(.unique) var front: String = \"\"\n    var back: String = \"\"\n    var due: Date = Date.now\n")
        try await git(["init", "-q"])
        let baseline = try await check(["--write-baseline", "check-baseline.txt"])
        #expect(baseline.status == 1 && baseline.stdout.contains("REC-MODEL-001"), "\(baseline.stdout)\(baseline.stderr)")
        try await release("v0.9", tag: "v0.9")
        // v1.0, the first release that synced: `due` renamed, which v0.9 never mirrored.
        try write(card: "    @Attribute(.unique) var front: String = \"\"\n    var back: String = \"\"\n    var dueDate: Date = Date.now\n")
        try await release("v1.0", tag: "v1.0")
        // Between releases: `back` made Data, then put back, and an optional hint added.
        try write(card: "    @Attribute(.unique) var front: String = \"\"\n    var back: Data = Data()\n    var dueDate: Date = Date.now\n")
        try await release("try back as Data")
        try write(card: "    @Attribute(.unique) var front: String = \"\"\n    var back: String = \"\"\n    var dueDate: Date = Date.now\n    var hint: String? = nil\n")
        try await release("back as String again; a hint")

        let ok = try await gate()
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.hasSuffix("model ok\n") && ok.stdout.contains("1 baselined finding"), "\(ok.stdout)")
        // HEAD~1 instead of the tag flags an edit that never shipped.
        let previousCommit = try await check(["--previous", "HEAD~1", "--baseline", "check-baseline.txt"])
        #expect(previousCommit.status == 1 && previousCommit.stdout.contains("REC-EVOL-003"), "\(previousCommit.stdout)\(previousCommit.stderr)")
        // v0.9 never reached CloudKit: named as the first mirrored release's ancestor, not compared.
        let unsynced = try await check(["--previous", "v0.9", "--first-mirrored-version", "v1.0", "--baseline", "check-baseline.txt"])
        #expect(unsynced.status == 0, "\(unsynced.stdout)\(unsynced.stderr)")
        #expect(unsynced.stdout.contains("note: --previous v0.9 came before the first mirrored revision, v1.0: no evolution check"), "\(unsynced.stdout)")
        let compared = try await check(["--previous", "v0.9", "--baseline", "check-baseline.txt"])
        #expect(compared.status == 1 && compared.stdout.contains("REC-EVOL-001") && compared.stdout.contains("Card.due"), "\(compared.stdout)\(compared.stderr)")
        let mirrored = try await check(["--previous", "v1.0", "--first-mirrored-version", "v1.0", "--baseline", "check-baseline.txt"])
        #expect(mirrored.status == 0 && !mirrored.stdout.contains("no evolution check"), "\(mirrored.stdout)\(mirrored.stderr)")
        let unknown = try await check(["--previous", "v1.0", "--first-mirrored-version", "v9"])
        #expect(unknown.status == 2 && unknown.stderr.contains("--first-mirrored-version v9:"), "\(unknown.stderr)")

        // After v1.1 shipped, `back` removed: the gate fails on the removed member, by name.
        try await git(["tag", "v1.1"])
        try write(card: "    @Attribute(.unique) var front: String = \"\"\n    var dueDate: Date = Date.now\n    var hint: String? = nil\n")
        try await release("drop back")
        let broken = try await gate()
        #expect(broken.status == 1, "\(broken.stdout)\(broken.stderr)")
        #expect(broken.stdout.contains("REC-EVOL-001") && broken.stdout.contains("Card.back") && broken.stdout.hasSuffix("model breaks a rule (see above)\n"), "\(broken.stdout)")
    }
}
