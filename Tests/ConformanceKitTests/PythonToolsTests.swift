import ConformanceKit
import Foundation
import Testing
import WireCore

/// The schemas, the vector generators and the vectors are held against each other.
@Suite("Schemas and generators (Python tools)", .serialized)
struct PythonToolsTests {
    func python(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.currentDirectoryURL = Fixture.root
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func schemasAgreeWithTheVectors() throws {
        let run = try python(["Conformance/tools/check_schemas.py"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains(", 0 problems"))
    }

    /// The vector files' own format (Vectors/README.md): ids, members, rules in the catalog,
    /// every triggered rule listed; read by a second reader, not by the Swift loader.
    @Test func vectorsPassTheLint() throws {
        let run = try python(["Conformance/tools/lint_vectors.py"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains(", 0 problems, 0 warnings"), "\(run.output)")
    }

    /// The independent Python implementation agrees with every migration vector (envelope,
    /// package, transfer messages and machines), through the testee protocol other
    /// implementations use.
    @Test func pythonTesteeAgreesOnEveryMigrationVector() throws {
        let run = try Fixture.run(
            "conformance", ["run", "--family", "migration", "--peer", "exec:python3 Conformance/testees/python/testee.py"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(", 0 failed"))
    }

    /// Each generator's output is committed as it writes it: nobody edited a generated file by hand.
    /// The Python tools read the families' registrations from this file: it is what
    /// `conformance list families --json` prints.
    @Test func familiesFileIsTheRegistration() throws {
        let committed = try Data(contentsOf: Fixture.root.appendingPathComponent("Conformance/families.json"))
        #expect(String(decoding: committed, as: UTF8.self) == JSONSerializer.pretty(Families.registrationJSON) + "\n",
                "run: swift run conformance list families --json > Conformance/families.json")
    }

    @Test(arguments: Families.all.flatMap { f in f.registration.generators.map { ($0.script, $0.folder) } })
    func generatedFilesAreUpToDate(generator: String, folder: String) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(generator)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let run = try python(["Conformance/tools/\(generator).py", scratch.path])
        #expect(run.status == 0, "\(run.output)")
        let files = try FileManager.default.subpathsOfDirectory(atPath: scratch.path).filter {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: scratch.appendingPathComponent($0).path, isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }
        #expect(!files.isEmpty)
        for file in files {
            let fresh = try Data(contentsOf: scratch.appendingPathComponent(file))
            let committed = try? Data(contentsOf: Fixture.root.appendingPathComponent(folder).appendingPathComponent(file))
            #expect(fresh == committed, "\(folder)/\(file) differs from what \(generator).py writes")
        }
    }
}
