import Foundation
import TestFixture
import Testing
import WireCore

/// `check Models/*.swift`: SwiftData's classes read from source, checked as one model, each
/// finding with its declaration's file and line (Spec records.md 7, "SwiftData's classes").
@Suite("check reads SwiftData models")
struct CheckSwiftDataTests {
    @Test func theFilesAreOneModelAndFindingsSayWhere() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let trip = scratch.appendingPathComponent("Trip.swift"), stop = scratch.appendingPathComponent("Stop.swift")
        try Data("@Model final class Trip {\n    @Attribute(.unique) var name: String = \"\"\n    var stops: [Stop]? = []\n}\n".utf8).write(to: trip)
        // Stop's end of the relationship is in the other file: read alone, Trip's is not placed.
        try Data("@Model final class Stop {\n    var trip: Trip?\n    var weather: Forecast?\n}\n".utf8).write(to: stop)
        // Forecast is declared in no file passed: it may be a model read as bytes (issue 41, case 3).
        let unresolved = try await Fixture.run("conformance", ["check", "--format", "json", trip.path, stop.path])
        #expect(unresolved.status == 2 && unresolved.stdout.isEmpty, "\(unresolved.stdout)\(unresolved.stderr)")
        // One line per type, each escaped on its own (the list was one line of \u{A}s).
        #expect(unresolved.stderr.contains("read as bytes):\n  \(stop.path):3: Stop.weather is a Forecast, declared in none of the files read\npass the files"), "\(unresolved.stderr)")
        let run = try await Fixture.run("conformance", ["check", "--format", "json", "--allow-unresolved", trip.path, stop.path])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let documents = try JSONParser.parse(Array(run.stdout.utf8))["documents"]?.arrayValue ?? []
        #expect(documents.count == 1)
        #expect(documents.first?["document"]?.stringValue == scratch.relativePath + "/*.swift")
        let violations = documents.first?["violations"]?.arrayValue ?? []
        #expect(violations.map { [$0["rule"]?.stringValue, $0["names"]?.stringValue, $0["location"]?.stringValue] } == [["REC-MODEL-001", "Trip.name", trip.path + ":2"]])
        #expect(documents.first?["notes"]?.arrayValue?.compactMap(\.stringValue) == ["\(stop.path):3: Stop.weather is a Forecast, declared in none of the files read: taken as a Codable value (Binary), --allow-unresolved"], "\(run.stdout)")
        let text = try await Fixture.run("conformance", ["check", "--allow-unresolved", trip.path, stop.path])
        #expect(text.stdout.contains("      note: \(stop.path):3: Stop.weather is a Forecast"), "\(text.stdout)")
        #expect(text.stdout.contains(#"REC-MODEL-001 at "/entities/0/attributes/0/unique" (Trip.name, \#(trip.path):2)"#), "\(text.stdout)")
        // A record checked against the classes of one file: Trip's CD_ type.
        let record = #"{"recordName":"C0A8E1D2-0000-4000-8000-00000000C0DE","recordType":"CD_Trip","fields":{"CD_entityName":{"value":"Trip","type":"STRING"},"CD_name":{"value":3,"type":"INT64"}}}"#
        let mirrored = try await Fixture.run("conformance", ["check", "--model", trip.path, "-"], stdin: Array(record.utf8))
        #expect(mirrored.status == 1)
        #expect(mirrored.stdout.contains(#"REC-REC-004 at "/fields/CD_name/type""#), "\(mirrored.stdout)\(mirrored.stderr)")
        // A file over the largest document is refused by its size, unread (sparse: no disk used).
        let huge = scratch.appendingPathComponent("Huge.swift")
        _ = FileManager.default.createFile(atPath: huge.path, contents: nil)
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: UInt64(1 << 30))
        try handle.close()
        let refused = try await Fixture.run("conformance", ["check", huge.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("1073741824 bytes, more than the"), "\(refused.stderr)")
        // A transformer class named by type and declared nowhere may not exist in the app, or
        // not be the secure one its name suggests: exit 2 naming it, like any unresolved type.
        let note = scratch.appendingPathComponent("Note.swift"), transformer = scratch.appendingPathComponent("ColorTransformer.swift")
        try Data("""
            @Model final class Note {
                @Attribute(.transformable(by: ColorTransformer.self)) var color: UIColor? = nil
                @Attribute(.transformable(by: Foundation.NSSecureUnarchiveFromDataTransformer.self)) var tags: [String]? = nil
            }

            """.utf8).write(to: note)
        let unregistered = try await Fixture.run("conformance", ["check", note.path])
        #expect(unregistered.status == 2, "\(unregistered.stdout)\(unregistered.stderr)")
        #expect(unregistered.stderr.contains("\(note.path):2: Note.color is transformed by ColorTransformer, declared in none of the files read\n"), "\(unregistered.stderr)")
        #expect(!unregistered.stderr.contains("Note.tags"), "\(unregistered.stderr)")
        try Data("final class ColorTransformer: NSSecureUnarchiveFromDataTransformer {}\n".utf8).write(to: transformer)
        let registered = try await Fixture.run("conformance", ["check", note.path, transformer.path])
        #expect(registered.status == 0, "\(registered.stdout)\(registered.stderr)")
        // A folder of sources is not a package missing its manifest (it was MIG-PKG-005, exit 1).
        let folder = try await Fixture.run("conformance", ["check", scratch.path])
        #expect(folder.status == 2, "\(folder.stdout)\(folder.stderr)")
        #expect(folder.stderr.contains("is a folder that is neither a package (no manifest.json, not Backup-{id}) nor a model"), "\(folder.stderr)")
        #expect(folder.stderr.contains("for SwiftData, pass its .swift files (\(scratch.path)/*.swift)"), "\(folder.stderr)")
        // Source without a @Model class is not a model: the user's mistake.
        let view = scratch.appendingPathComponent("ContentView.swift")
        try Data("struct ContentView { var body: String }\n".utf8).write(to: view)
        let none = try await Fixture.run("conformance", ["check", view.path])
        #expect(none.status == 2)
        #expect(none.stderr.contains("no @Model class"), "\(none.stderr)")
    }

    /// History from git: the one change an app made the day after its submission, Date to String.
    @Test func previousRevisionOfTheSources() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-git-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let solve = scratch.appendingPathComponent("Solve.swift"), added = scratch.appendingPathComponent("Tag.swift")
        try Data("@Model final class Solve {\n    var date: Date?\n}\n".utf8).write(to: solve)
        try await CheckCommandTests.git(["init", "-q"], in: scratch)
        try await CheckCommandTests.git(["add", "."], in: scratch)
        try await CheckCommandTests.git(["commit", "-q", "-m", "v1"], in: scratch)
        try Data("@Model final class Solve {\n    var date: String?\n}\n".utf8).write(to: solve)
        // A file added since the revision is new entities, not a failure to read the old one.
        try Data("@Model final class Tag {\n    var name: String?\n}\n".utf8).write(to: added)
        for previous in ["HEAD", "HEAD:\(solve.path)"] {
            let run = try await Fixture.run("conformance", ["check", solve.path, added.path, "--previous", previous])
            #expect(run.status == 1, "\(previous): \(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains(#"REC-EVOL-003 at "/entities/0/attributes/0/type" (Solve.date, \#(solve.path):2)"#), "\(previous): \(run.stdout)")
            #expect(!run.stdout.contains("Tag"), "\(run.stdout)")
        }
        // A revision git does not know is said in git's words, not as files missing at it.
        let unknown = try await Fixture.run("conformance", ["check", solve.path, added.path, "--previous", "no-such-revision"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--previous no-such-revision:") && unknown.stderr.contains("failed: fatal"), "\(unknown.stderr)")
        // A revision is never an option to git: `--output=FILE` once made `git show` write FILE.
        // (`git show --output=DIR/planted:./Solve.swift` writes into the folder `planted:.`: it exists.)
        let planted = scratch.appendingPathComponent("planted"), folder = scratch.appendingPathComponent("planted:.")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for previous in ["--output=\(planted.path)", "--output=\(planted.path):Solve.swift", "-O\(planted.path)"] {
            let run = try await Fixture.run("conformance", ["check", solve.path, "--previous=\(previous)"])
            #expect(run.status == 2, "\(previous): \(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains("a revision does not begin with '-' (git would read it as an option)"), "\(run.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [], "\(previous) wrote into \(folder.path)")
        }
    }
}
