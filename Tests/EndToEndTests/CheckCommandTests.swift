@testable import ConformanceKit
import Foundation
import Reference
import TestFixture
import TesteeProtocol
import Testing
import WireCore

@Suite("conformance check and the executables", .serialized)
struct CheckCommandTests {
    static let valid = #"{"type":"desktop-pairing","code":"048213","pcPeerId":"desktop-4f9c2a","deviceInfo":{"name":"DESKTOP-7F3K","platform":"win32"},"timestamp":1747299990000,"relayUrl":"wss://signaling.chainlesschain.com"}"#

    @Test func unknownTypeNamesTheClosestKinds() {
        let result = DocumentChecker.check(Array(#"{"type":"pair-ak"}"#.utf8), name: "x", kind: nil, context: ["now": 1_747_300_000_000])
        #expect(result.violations.count == 1)
        #expect(result.violations.first?.rule == CoreRule.knownKind)
        #expect(result.violations.first?.path.description == "/type")
        #expect(result.violations.first?.expected.contains("\"pair-ack\"") == true)
    }

    @Test func aKnownTypeIsAccepted() {
        let result = DocumentChecker.check(Array(#"{"type":"register","peerId":"did:cc:me"}"#.utf8), name: "x", kind: nil, context: ["now": 1_747_300_000_000])
        #expect(result.violations.isEmpty)
        #expect(result.kind == "register")
    }

    @Test func missingTypeIsCoreType001() {
        let result = DocumentChecker.check(Array("{}".utf8), name: "x", kind: nil, context: ["now": 1])
        #expect(result.violations.map(ExpectedViolation.init) == [ExpectedViolation(path: .root / "type", rule: CoreRule.required)])
    }

    @Test func exitStatusesAndJSONOutput() async throws {
        let ok = try await Fixture.run("conformance", ["check", "--now", "1747300000000", "-"], stdin: Array(Self.valid.utf8))
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        let bad = Self.valid.replacingOccurrences(of: "048213", with: "48213")
        let failed = try await Fixture.run("conformance", ["check", "--now", "1747300000000", "--format", "json", "-"], stdin: Array(bad.utf8))
        #expect(failed.status == 1)
        let json = try JSONParser.parse(failed.stdout)
        let violation = json["documents"]?.arrayValue?.first?["violations"]?.arrayValue?.first
        #expect(violation?["path"] == "/code")
        #expect(violation?["rule"] == "PAIR-CODE-001")
        let noDID = try await Fixture.run("conformance", ["check", "--now", "1747300000000", "--no-active-did", "-"], stdin: Array(Self.valid.utf8))
        #expect(noDID.status == 1)
        #expect(noDID.stdout.contains("PAIR-DID-002"))
        let missing = try await Fixture.run("conformance", ["check", "/nonexistent/file.json"])
        #expect(missing.status == 2)
        let usage = try await Fixture.run("conformance", ["check", "--kind", "no-such-kind", "-"], stdin: [])
        #expect(usage.status == 2)
    }

    @Test func checksPackagesAndExportsByTheirFileNames() async throws {
        let vectors = Fixture.root.appendingPathComponent("Vectors/migration")
        let password = FileManager.default.temporaryDirectory.appendingPathComponent("pw-\(UUID().uuidString)")
        try Data("correct horse 电池 staple\n".utf8).write(to: password)
        defer { try? FileManager.default.removeItem(at: password) }
        let golden = vectors.appendingPathComponent("envelope/golden-pack.enc").path
        let ok = try await Fixture.run(
            "conformance", ["check", golden, "--password-file", password.path, "--minimum-iterations", "1000", vectors.appendingPathComponent("package/complete.zip").path])
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        let slip = try await Fixture.run("conformance", ["check", "--format", "json", vectors.appendingPathComponent("package/zip-slip.zip").path])
        #expect(slip.status == 1)
        let violation = try JSONParser.parse(slip.stdout)["documents"]?.arrayValue?.first?["violations"]?.arrayValue?.first
        #expect(violation?["rule"] == "MIG-PKG-006")
        // Without its password an envelope cannot be read at all: a usage error, not a violation.
        let noPassword = try await Fixture.run("conformance", ["check", golden])
        #expect(noPassword.status == 2)
        #expect(noPassword.stderr.contains("is an encrypted package: pass --password-file FILE"), "\(noPassword.stderr)")
        // Test-only iteration counts are refused unless the check says the file is a test vector.
        let production = try await Fixture.run("conformance", ["check", golden, "--password-file", password.path])
        #expect(production.stdout.contains("MIG-ENV-003 at \"/header/iterations\""))
        // A file named like an export is checked as that export.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Data(#"[{"key":"theme","type":"bool","value":"yes","updatedAt":1736240000}]"#.utf8).write(to: scratch.appendingPathComponent("settings.json"))
        let settings = try await Fixture.run("conformance", ["check", scratch.appendingPathComponent("settings.json").path])
        #expect(settings.status == 1)
        #expect(settings.stdout.contains("MIG-EXP-004 at \"/0/value\""))
    }

    /// A file handed over by mistake (YAML, text) is said not to be JSON before any detail, and
    /// a file that cannot be read says why.
    @Test func notJSONAndUnreadableFilesSaySo() async throws {
        let yaml = try await Fixture.run("conformance", ["check", "-"], stdin: Array("type: desktop-pairing\ncode: \"048213\"\n".utf8))
        #expect(yaml.status == 1)
        #expect(yaml.stdout.contains("CORE-JSON-001 at \"\" (byte 1)\n        expected a JSON document (this is not JSON"), "\(yaml.stdout)")
        // The same text in a file that is neither named .json nor given a --kind is the wrong
        // file named (exit 2), not a document breaking CORE-JSON-001 (exit 1).
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("not-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let notes = scratch.appendingPathComponent("notes.yaml"), named = scratch.appendingPathComponent("pair.json")
        try Data("type: desktop-pairing\n".utf8).write(to: notes)
        try Data("type: desktop-pairing\n".utf8).write(to: named)
        let wrongFile = try await Fixture.run("conformance", ["check", notes.path])
        #expect(wrongFile.status == 2 && wrongFile.stdout.isEmpty, "\(wrongFile.stdout)")
        #expect(wrongFile.stderr.contains("notes.yaml is neither a JSON document, a model nor a package (give --kind to check it as a document)"), "\(wrongFile.stderr)")
        let asDocument = try await Fixture.run("conformance", ["check", "--kind", "pair-ack", notes.path])
        #expect(asDocument.status == 1 && asDocument.stdout.contains("CORE-JSON-001"), "\(asDocument.stdout)\(asDocument.stderr)")
        let namedJSON = try await Fixture.run("conformance", ["check", named.path])
        #expect(namedJSON.status == 1 && namedJSON.stdout.contains("CORE-JSON-001"), "\(namedJSON.stdout)\(namedJSON.stderr)")
        let missing = try await Fixture.run("conformance", ["check", "/nonexistent/pair-ack.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot read /nonexistent/pair-ack.json: no such file"), "\(missing.stderr)")
    }

    /// README's first `check`: every sample in Conformance/examples/ conforms, each known by its
    /// file name.
    @Test func theExamplesConform() async throws {
        let folder = Fixture.root.appendingPathComponent("Conformance/examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 25)
        let run = try await Fixture.run(
            "conformance", ["check", "--now", "1747300000000", "--active-did", "did:cc:phone-1"] + files.map { "Conformance/examples/" + $0 })
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("\(files.count) of \(files.count) documents conform"))
        // Without --now the same payload is judged by today's clock, and the report says how to check it.
        let today = try await Fixture.run("conformance", ["check", "--active-did", "did:cc:phone-1", "Conformance/examples/desktop-pairing.json"])
        #expect(today.status == 1)
        #expect(today.stdout.contains("PAIR-TIME-002 at \"/timestamp\""))
        #expect(today.stderr.contains("to check a recorded payload, pass --now with the time it was made"), "\(today.stderr)")
    }

    @Test func checksRecordsAndModels() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let log = #"{"recordName":"log-1","recordType":"HabitLog","fields":{"habit":{"value":"habit-1","type":"STRING"},"date":{"value":1747267200000,"type":"TIMESTAMP"},"count":{"value":1,"type":"INT64"}}}"#
        let record = try await Fixture.run("conformance", ["check", "-"], stdin: Array(log.utf8))
        #expect(record.status == 1)
        #expect(record.stdout.contains("REC-REC-004 at \"/fields/habit/type\""))
        let v1 = #"{"entities":[{"name":"Idea","attributes":[{"name":"title","type":"String","optional":true}]}]}"#
        let v2 = #"{"entities":[{"name":"Idea","attributes":[{"name":"title","type":"Integer64","optional":true}]}]}"#
        try Data(v1.utf8).write(to: scratch.appendingPathComponent("v1.json"))
        try Data(v2.utf8).write(to: scratch.appendingPathComponent("v2.json"))
        let ok = try await Fixture.run("conformance", ["check", scratch.appendingPathComponent("v1.json").path])
        #expect(ok.status == 0, "\(ok.stdout)")
        let evolved = try await Fixture.run(
            "conformance", ["check", scratch.appendingPathComponent("v2.json").path, "--previous", scratch.appendingPathComponent("v1.json").path])
        #expect(evolved.status == 1)
        #expect(evolved.stdout.contains("REC-EVOL-003 at \"/entities/0/attributes/0/type\""))
    }

    /// `--previous` takes any model form, from disk or from git, against any checked form: an
    /// attribute changed from Date to String in place (one version edited, as most apps do) is
    /// found against the commit before, and named `Solve.date`.
    @Test func previousComesInAnyFormAndFromGit() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("previous-\(UUID().uuidString)")
        let folder = scratch.appendingPathComponent("App/Model.xcdatamodeld/Model.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        func model(_ type: String) -> String {
            #"<?xml version="1.0" encoding="UTF-8"?><model type="com.apple.IDECoreDataModeler.DataModel"><entity name="Solve" syncable="YES">"#
                + #"<attribute name="date" optional="YES" attributeType="\#(type)"/></entity></model>"#
        }
        func git(_ arguments: [String]) async throws { try await Self.git(arguments, in: scratch) }
        try Data(model("Date").utf8).write(to: folder.appendingPathComponent("contents"))
        try await git(["init", "-q"])
        try await git(["add", "."])
        try await git(["commit", "-q", "-m", "v1"])
        try Data(model("String").utf8).write(to: folder.appendingPathComponent("contents"))
        let bundle = scratch.appendingPathComponent("App/Model.xcdatamodeld").path
        let json = scratch.appendingPathComponent("v1.json")
        try Data(#"{"entities":[{"name":"Solve","attributes":[{"name":"date","type":"Date","optional":true}]}]}"#.utf8).write(to: json)

        for previous in ["HEAD", "HEAD:\(bundle)", "HEAD:" + folder.path, json.path] {
            let run = try await Fixture.run("conformance", ["check", bundle, "--previous", previous])
            #expect(run.status == 1, "--previous \(previous): \(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains(#"REC-EVOL-003 at "/entities/0/attributes/0/type" (Solve.date)"#), "--previous \(previous): \(run.stdout)")
        }
        // The other way round: the JSON form checked against the Xcode model at the commit.
        let current = scratch.appendingPathComponent("v2.json")
        try Data(#"{"entities":[{"name":"Solve","attributes":[{"name":"date","type":"String","optional":true}]}]}"#.utf8).write(to: current)
        let mixed = try await Fixture.run("conformance", ["check", current.path, "--previous", "HEAD:\(bundle)"])
        #expect(mixed.status == 1, "\(mixed.stdout)\(mixed.stderr)")
        #expect(mixed.stdout.contains("REC-EVOL-003"), "\(mixed.stdout)")
        // A revision git does not know is the user's mistake, said as such.
        let unknown = try await Fixture.run("conformance", ["check", bundle, "--previous", "no-such-revision"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--previous no-such-revision:") && unknown.stderr.contains("failed: fatal"), "\(unknown.stderr)")
    }

    /// git in `folder`, with an author, its output dropped.
    static func git(_ arguments: [String], in folder: URL) async throws {
        let run = try await Fixture.execute(
            URL(fileURLWithPath: "/usr/bin/env"), ["git", "-C", folder.path, "-c", "user.name=kit", "-c", "user.email=kit@example.invalid"] + arguments)
        #expect(run.status == 0, "git \(arguments): \(run.stderr)")
    }

    /// An `.xcdatamodeld` of two versions: `Solve.date` a Date in the first, a String in the second.
    static func twoVersions(in scratch: URL, _ first: String, _ second: String) throws -> URL {
        let bundle = scratch.appendingPathComponent("Model.xcdatamodeld")
        for (name, type) in [(first, "Date"), (second, "String")] {
            let folder = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data((#"<?xml version="1.0"?><model><entity name="Solve" syncable="YES"><attribute name="date" optional="YES" attributeType="\#(type)"/></entity></model>"#).utf8)
                .write(to: folder.appendingPathComponent("contents"))
        }
        return bundle
    }

    /// Versions whose names Xcode's numbering cannot order are not compared by guess: the report
    /// says so and how to name the previous one.
    @Test func unorderedVersionsAreNotComparedByGuess() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("versions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let bundle = try Self.twoVersions(in: scratch, "Model", "ModelV2")
        let run = try await Fixture.run("conformance", ["check", bundle.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("do not say which came before it: no evolution check; name the previous version with --previous"), "\(run.stdout)")
        // The current version sorting first (a real app's txmerdata beside CubeTimeData) was
        // checked with no comparison and no word (issue 41, case 5).
        let real = try Self.twoVersions(in: scratch.appendingPathComponent("real"), "txmerdata", "CubeTimeData")
        let plist = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>CubeTimeData.xcdatamodel</string></dict></plist>"#
        try Data(plist.utf8).write(to: real.appendingPathComponent(".xccurrentversion"))
        let named = try await Fixture.run("conformance", ["check", real.path])
        #expect(named.stdout.contains("Model.xcdatamodeld (CubeTimeData.xcdatamodel; the version names (CubeTimeData.xcdatamodel, txmerdata.xcdatamodel) do not say which came before it"), "\(named.stdout)")
    }

    /// Versions before the first mirrored one bind nothing: `Model 2` against `Model` (Date to
    /// String) is a finding, unless `Model 2` is the first version that reached CloudKit.
    @Test func versionsBeforeTheFirstMirroredOneBindNothing() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mirrored-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let bundle = try Self.twoVersions(in: scratch, "Model", "Model 2")
        let compared = try await Fixture.run("conformance", ["check", bundle.path])
        #expect(compared.status == 1, "\(compared.stdout)")
        #expect(compared.stdout.contains("REC-EVOL-003"), "\(compared.stdout)")
        let unmirrored = try await Fixture.run("conformance", ["check", bundle.path, "--first-mirrored-version", "Model 2"])
        #expect(unmirrored.status == 0, "\(unmirrored.stdout)\(unmirrored.stderr)")
        #expect(unmirrored.stdout.contains("came before the first mirrored version"), "\(unmirrored.stdout)")
        let unknown = try await Fixture.run("conformance", ["check", bundle.path, "--first-mirrored-version", "Model 9"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("has no such version"), "\(unknown.stderr)")
    }

    @Test func runExitsZeroOnTheReferenceAndPrintsTheSummary() async throws {
        let run = try await Fixture.run("conformance", ["run"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("PASS  \(Fixture.cases.count) passed, 0 failed"))
        let none = try await Fixture.run("conformance", ["run", "--case", "no/such/*"])
        #expect(none.status == 2)
    }

    /// The example list in Conformance/ matches what the faulty testee really fails, and is
    /// stale against the correct reference.
    @Test func exampleExpectedFailureListIsExact() async throws {
        let list = "Conformance/expected-failures/example-accepts-five-digit-codes.txt"
        let faulty = "exec:'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes"
        let adopted = try await Fixture.run("conformance", ["run", "--peer", faulty, "--expected-failures", list])
        #expect(adopted.status == 0, "\(adopted.stdout)")
        let listed = try String(contentsOf: Fixture.root.appendingPathComponent(list), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.count
        #expect(adopted.stdout.contains("\(listed) expected failures"))
        let honest = try await Fixture.run("conformance", ["run", "--expected-failures", list])
        #expect(honest.status == 1)
        #expect(honest.stdout.contains("XPASS pairing/pair-ack/code-five-digits"))
    }
}

/// `conformance check` on a file far over every size limit refuses it unread (security review D7:
/// a 1 GB file took 2.1 GB of memory before the size rule).
@Suite("check bounds its memory")
struct CheckMemoryTests {
    @Test(.timeLimit(.minutes(1))) func aHugeFileIsRefusedUnread() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("huge-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = FileManager.default.createFile(atPath: file.path, contents: Data("{\"type\":\"pair-ack\",\"x\":\"".utf8))
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 1 << 30)  // sparse: a gigabyte of zero bytes, no disk used
        try handle.close()
        let peakFile = file.appendingPathExtension("peak")
        defer { try? FileManager.default.removeItem(at: peakFile) }
        let command = Fixture.measuringPeak([Fixture.executable("conformance"), "check", "--format", "json", file.path], into: peakFile)
        let child = try ChildProcess.spawn(shell: "exec " + command.map { "'\($0)'" }.joined(separator: " "))
        let output = LineChannel(fd: child.stdout)
        var text = ""
        while case .line(let line) = output.readLine(timeout: 50) { text += String(decoding: line, as: UTF8.self) }
        #expect(child.waitForExit(seconds: 10))
        #expect(child.exitDescription == "exited with status 1", "\(text)")
        #expect(text.contains("CORE-JSON-004"), "\(text)")
        #expect(text.contains("1073741824 bytes"), "\(text)")
        let peak = try Fixture.peakKiB(peakFile)
        #expect(peak < 96 * 1024, "peak \(peak) KiB")
    }
}

/// Xcode's model files, read directly (Spec records.md 7).
@Suite("check reads Core Data models")
struct ModelFileTests {
    static func xml(_ attributes: [String]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Card" representedClassName="Card" syncable="YES">
        \(attributes.map { "        " + $0 }.joined(separator: "\n"))
            </entity>
            <configuration name="Cloud" usedWithCloudKit="YES"><memberEntity name="Card"/></configuration>
        </model>
        """
    }

    static func bundle(_ versions: [(String, [String])], current: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("models-\(UUID().uuidString)/Vault.xcdatamodeld")
        for (name, attributes) in versions {
            let folder = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(xml(attributes).utf8).write(to: folder.appendingPathComponent("contents"))
        }
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(current)</string></dict></plist>
            """
        try Data(plist.utf8).write(to: root.appendingPathComponent(".xccurrentversion"))
        return root
    }

    static let v1 = [#"<attribute name="id" optional="YES" attributeType="UUID"/>"#, #"<attribute name="note" optional="YES" attributeType="String"/>"#]

    @Test func aBundleIsCheckedAtItsCurrentVersionAgainstThePreviousOne() async throws {
        let additive = try Self.bundle(
            [("Vault.xcdatamodel", Self.v1), ("Vault 2.xcdatamodel", Self.v1 + [#"<attribute name="rating" optional="YES" attributeType="Float"/>"#])],
            current: "Vault 2.xcdatamodel")
        let ok = try await Fixture.run("conformance", ["check", additive.path])
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.contains("Vault 2.xcdatamodel against Vault.xcdatamodel"), "\(ok.stdout)")
        // Version 10 sorts after version 2 (numbers, not text); it drops an attribute and adds a required one.
        let breaking = try Self.bundle(
            [("Vault.xcdatamodel", Self.v1), ("Vault 2.xcdatamodel", Self.v1), ("Vault 10.xcdatamodel", [Self.v1[0], #"<attribute name="title" attributeType="String"/>"#])],
            current: "Vault 10.xcdatamodel")
        let bad = try await Fixture.run("conformance", ["check", "--format", "json", breaking.path])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains(#""rule": "REC-MODEL-007""#), "\(bad.stdout)")
        #expect(bad.stdout.contains(#""rule": "REC-EVOL-001""#), "\(bad.stdout)")
        #expect(bad.stdout.contains("Vault 10.xcdatamodel against Vault 2.xcdatamodel"), "\(bad.stdout)")
    }

    /// `--model`: a record is checked against the CD_ types of the bundle's current version.
    @Test func recordsAreCheckedAgainstTheAppsModel() async throws {
        let version = Self.v1 + [
            #"<attribute name="scan" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>"#,
            #"<attribute name="secret" optional="YES" attributeType="String" allowsCloudEncryption="YES"/>"#,
        ]
        let model = try Self.bundle([("Vault.xcdatamodel", version)], current: "Vault.xcdatamodel")
        func record(_ fields: String) -> [UInt8] {
            Array(#"{"recordName":"C0A8E1D2-0000-4000-8000-00000000C0DE","recordType":"CD_Card","fields":{"CD_entityName":{"value":"Card","type":"STRING"},\#(fields)}}"#.utf8)
        }
        let asset = #""CD_scan_ckAsset":{"value":{"fileChecksum":"AQID","size":2000000},"type":"ASSETID"},"CD_secret":{"value":"PIN 1234","type":"ENCRYPTED_STRING"}"#
        let ok = try await Fixture.run("conformance", ["check", "--model", model.path, "-"], stdin: record(asset))
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.contains("(mirrored-record)"), "\(ok.stdout)")
        let wrong = #""CD_note":{"value":3,"type":"INT64"},"CD_secret":{"value":"PIN 1234","type":"STRING"},"CD_thumbnail":{"value":"AAEC","type":"BYTES"}"#
        func findings(_ options: [String]) async throws -> [String] {
            let bad = try await Fixture.run("conformance", ["check", "--format", "json", "--model", model.path] + options + ["-"], stdin: record(wrong))
            #expect(bad.status == 1)
            let found = try JSONParser.parse(Array(bad.stdout.utf8))["documents"]?.arrayValue?.first?["violations"]?.arrayValue ?? []
            return found.compactMap { v -> String? in
                guard let rule = v["rule"]?.stringValue, let path = v["path"]?.stringValue else { return nil }
                return rule + " " + path
            }
        }
        // CD_thumbnail may be a newer version's attribute: dropped, unless the model is the writer's newest.
        await #expect(try findings([]) == ["REC-REC-004 /fields/CD_note/type", "REC-ENC-002 /fields/CD_secret/type"])
        await #expect(
            try findings(["--strict-fields"]) == ["REC-REC-004 /fields/CD_note/type", "REC-ENC-002 /fields/CD_secret/type", "REC-CD-002 /fields/CD_thumbnail"])
        let unreadable = try await Fixture.run("conformance", ["check", "--model", "/nonexistent/Model.xcdatamodeld", "-"], stdin: record(asset))
        #expect(unreadable.status == 2, "\(unreadable.stdout)\(unreadable.stderr)")
    }

    /// `--time-zone`: a HabitLog dated at the writer's midnight is judged in the writer's zone.
    @Test func habitLogDaysFollowTheWritersZone() async throws {
        let log = Array(#"{"recordName":"log-1","recordType":"HabitLog","fields":{"habit":{"value":{"recordName":"habit-1"},"type":"REFERENCE"},"date":{"value":1736265600000,"type":"TIMESTAMP"},"count":{"value":1,"type":"INT64"}}}"#.utf8)
        #expect(try await Fixture.run("conformance", ["check", "--time-zone", "Asia/Shanghai", "-"], stdin: log).status == 0)
        let elsewhere = try await Fixture.run("conformance", ["check", "--time-zone", "Europe/Berlin", "-"], stdin: log)
        #expect(elsewhere.status == 1)
        #expect(elsewhere.stdout.contains(#"REC-HLOG-002 at "/fields/date/value""#), "\(elsewhere.stdout)")
        #expect(try await Fixture.run("conformance", ["check", "--time-zone", "Nowhere/City", "-"], stdin: log).status == 2)
    }

    /// Foundation's XMLParser on Linux traps on a name that is not UTF-8 (it force-unwraps the
    /// name); these files once killed `check`. Each is now refused before parsing, exit 2.
    static let hostile: [(bytes: [UInt8], reason: String)] = {
        let name: [UInt8] = Array(#"<model><entity name="A"/><e"#.utf8) + [0xFF, 0xFE] + Array("/></model>".utf8)
        let attribute: [UInt8] = Array("<model><entity n".utf8) + [0xC3] + Array(#"="A"/></model>"#.utf8)
        let nul: [UInt8] = Array(#"<model><entity name="A"/><e"#.utf8) + [0] + Array("x/></model>".utf8)
        let dtd: [UInt8] = Array(#"<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><model>&b;</model>"#.utf8)
        let latin1: [UInt8] = Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><model/>"#.utf8)
        // The fuzzer's finding: an empty processing instruction made XMLParser call strlen(NULL).
        let emptyPI: [UInt8] = Array("<?xm?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\"/>\n".utf8)
        let secondPI: [UInt8] = Array(#"<?xml version="1.0"?><model><?x?></model>"#.utf8)
        return [
            (name, "not UTF-8"), (attribute, "not UTF-8"), (nul, "NUL"), (dtd, "document type"), (latin1, "encoding other than UTF-8"),
            (emptyPI, "a processing instruction"), (secondPI, "a processing instruction"),
        ]
    }()

    @Test(arguments: 0..<7)
    func hostileModelFilesAreRefusedBeforeParsing(index: Int) async throws {
        let (bytes, reason) = Self.hostile[index]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(bytes).write(to: folder.appendingPathComponent("contents"))
        let run = try await Fixture.run("conformance", ["check", folder.path])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains(reason), "\(run.stderr)")
    }

    @Test func whatIsNotAModelIsAUsageError() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notmodel-\(UUID().uuidString).xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("{\"entities\": []}".utf8).write(to: folder.appendingPathComponent("contents"))
        let run = try await Fixture.run("conformance", ["check", folder.path])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("not XML"), "\(run.stderr)")
    }
}

extension CheckCommandTests {
    /// Issue 24.6: a 4 MB export of two million wrong elements lists the first 1000 violations and
    /// counts the rest (it took 2.8 GB and wrote a 499 MB report before).
    @Test func aDocumentWithMillionsOfViolationsListsAThousand() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("stories.json")
        try Data(("[" + Array(repeating: "1", count: 2_000_000).joined(separator: ",") + "]").utf8).write(to: file)
        let text = try await Fixture.run("conformance", ["check", file.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("CORE-TYPE-003 at \"/999\""))
        #expect(!text.stdout.contains("at \"/1000\""))
        #expect(text.stdout.contains("and 1999000 more violations (at most 1000 are listed per document)"), "\(text.stdout.suffix(300))")
        #expect(text.stdout.utf8.count < 1 << 20)
        let json = try await Fixture.run("conformance", ["check", "--format", "json", file.path])
        let document = try JSONParser.parse(json.stdout)["documents"]?.arrayValue?.first
        #expect(document?["violations"]?.arrayValue?.count == 1000)
        #expect(document?["omittedViolations"] == 1_999_000)
    }
}

extension CheckCommandTests {
    /// Issue 24.2: `?` then U+093E is one Character, so a Character-wise search missed `<?`; libxml2
    /// reported a processing instruction with no data and Foundation crashed (exit 139). And
    /// libxml2 recovers from errors that `parse()` does not report: the first one fails the read.
    @Test(arguments: [
        ("<?\u{93E}?>", "a processing instruction"),
        (#"<?xml version="1.0"?><model></model><entity name="x"/>"#, "not XML: content after the root element at line 1"),
        ("<model><entity></model>", "not XML: a closing tag that does not match its element at line 1"),
    ])
    func aModelThatIsNotXcodesXMLIsAUsageError(text: String, reason: String) async throws {
        let run = try await Fixture.run("conformance", ["check", "--kind", "xcdatamodel", "-"], stdin: Array(text.utf8))
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("conformance check: standard input: "), "\(run.stderr)")
        #expect(run.stderr.contains(reason), "\(run.stderr)")
    }
}

extension CheckCommandTests {
    /// Issue 26: the keepalives real clients and relays send are documents `check` knows
    /// (PAIR-RELAY-002), with the members they add; they failed CORE-KIND-001 before.
    @Test(arguments: [#"{"type":"pong"}"#, #"{"type":"ping","timestamp":1747300000000}"#, #"{"type":"pong","timestamp":1747300000000}"#])
    func keepalivesAreKnownKinds(text: String) async throws {
        let run = try await Fixture.run("conformance", ["check", "-"], stdin: Array(text.utf8))
        #expect(run.status == 0, "\(run.stdout)")
    }
}

extension CheckCommandTests {
    /// Issue 28: a real MyStory backup (`MYSTBACK1`, written here by the independent forge from
    /// MyStory's code) is named as MyStory's container, not "not JSON", and its JSON document is
    /// checked as a manifest, every violation under /document.
    @Test func aMyStoryBackupIsNamedAndItsDocumentChecked() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("backup-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let forge = try await Fixture.execute(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", Fixture.root.appendingPathComponent("Conformance/tools/mystory_forge.py").path, "sample", file.path])
        #expect(forge.status == 0, "\(forge.stderr)")
        let run = try await Fixture.run("conformance", ["check", "--format", "json", file.path])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let document = try JSONParser.parse(run.stdout)["documents"]?.arrayValue?.first
        let violations = document?["violations"]?.arrayValue ?? []
        #expect(document?["kind"]?.stringValue?.hasPrefix("mystory-backup") == true)
        #expect(violations.first?["rule"] == "MIG-ENV-001")
        #expect(violations.first?["path"] == "/magic")
        #expect(violations.first?["found"]?.stringValue?.contains("MyStory's backup container") == true)
        let paths = violations.compactMap { $0["path"]?.stringValue }
        #expect(paths.contains("/document/createdAt"), "\(paths)")
        #expect(paths.contains("/document/integrity"), "\(paths)")
        #expect(!paths.contains("/document/mediaFiles"), "the forge's media region matches its list: \(paths)")
    }
}
