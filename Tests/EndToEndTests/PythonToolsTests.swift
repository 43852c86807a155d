import ConformanceKit
import Foundation
import MigrationPackage
import Reference
import TestFixture
import Testing
import WireCore

/// The schemas, the vector generators and the vectors are held against each other.
@Suite("Schemas and generators (Python tools)", .serialized)
struct PythonToolsTests {
    func python(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let run = try await Fixture.execute(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments)
        return (run.status, run.stdout + run.stderr)
    }

    /// A package from the one-pass packer (many segments, zero-byte files, a broken media
    /// record), opened by the independent Python forge: envelope, zip (CRC-32 of every entry,
    /// by `zipfile`), the manifest's sizes and SHA-256 digests.
    @Test func pythonOpensAFreshPackage() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("py-pack-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var sample = SampleStore.Options()
        sample.mediaBytes = 3 << 20
        sample.stories = 20
        sample.brokenMedia = 1
        sample.zeroByteFiles = true
        let store = DeviceStore(scratch.appendingPathComponent("store"))
        try SampleStore.generate(at: store.root, seed: 8, options: sample)
        var options = Packer.Options()
        options.iterations = 1000
        options.segmentSize = 1 << 12
        var random = GeneratorBytes(SplitMix64(seed: 8))
        let package = scratch.appendingPathComponent("backup.enc")
        let packed = try Packer.pack(store, to: package, password: "pässword", options: options, now: 1_747_300_000, random: &random)
        let run = try await python([
            "-c",
            """
            import json, sys, io, zipfile
            sys.path.insert(0, "Conformance/tools")
            import msbk_forge as forge
            plain, header = forge.open_envelope(open(sys.argv[1], "rb").read(), "pässword", (1000, 10_000_000))
            assert zipfile.ZipFile(io.BytesIO(plain)).testzip() is None
            summary = forge.package_summary(plain)
            print(json.dumps({"backupId": summary["backupId"], "files": summary["files"], "brokenMedia": summary["brokenMedia"],
                              "segments": header["segments"], "zipSize": len(plain)}, sort_keys=True))
            """, package.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        let files = try store.inventory().count
        let segments = (packed.zipSize + (1 << 12) - 1) >> 12
        #expect(
            run.output.trimmingCharacters(in: .whitespacesAndNewlines)
                == #"{"backupId": "\#(packed.backupId)", "brokenMedia": 1, "files": \#(files), "segments": \#(segments), "zipSize": \#(packed.zipSize)}"#)
    }

    @Test func schemasAgreeWithTheVectors() async throws {
        let run = try await python(["Conformance/tools/check_schemas.py"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains(", 0 problems"))
    }

    /// The vector files' own format (Vectors/README.md): ids, members, rules in the catalog,
    /// every triggered rule listed; read by a second reader, not by the Swift loader.
    @Test func vectorsPassTheLint() async throws {
        let run = try await python(["Conformance/tools/lint_vectors.py"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains(", 0 problems, 0 warnings"), "\(run.output)")
    }

    /// The independent Python implementation agrees with every migration vector (envelope,
    /// package, transfer messages and machines), through the testee protocol other
    /// implementations use.
    @Test func pythonTesteeAgreesOnEveryMigrationVector() async throws {
        let run = try await Fixture.run(
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
    func generatedFilesAreUpToDate(generator: String, folder: String) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(generator)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let run = try await python(["Conformance/tools/\(generator).py", scratch.path])
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
