import ConformanceKit
import Foundation
import TestFixture
import Testing
import WireCore

/// `conformance run --shard I/N` (issue 31.2): the shards of a run hold every selected case once.
@Suite("Shards of a run")
struct ShardTests {
    static func caseIDs(_ arguments: [String]) async throws -> [String] {
        let run = try await Fixture.run("conformance", ["run", "--format", "json"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONParser.parse(Array(run.stdout.utf8), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64))
        return (report["cases"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    @Test func fourShardsHoldEveryCaseOnce() async throws {
        let all = try await Self.caseIDs([])
        var seen: [String] = []
        for i in 1...4 {
            let shard = try await Self.caseIDs(["--shard", "\(i)/4"])
            // Roughly even: a hash of the id, not a count, decides.
            #expect(shard.count > all.count / 8, "shard \(i) holds \(shard.count) of \(all.count)")
            seen += shard
        }
        #expect(seen.count == all.count)
        #expect(Set(seen) == Set(all))
    }

    @Test func aShardIsChosenByTheCaseIDAlone() {
        // The same id falls in the same shard whatever else is selected, on every machine.
        #expect(CaseFilter.shard(of: "pairing/webrtc/offerer-answer-then-candidate", among: 4) == CaseFilter.shard(of: "pairing/webrtc/offerer-answer-then-candidate", among: 4))
        #expect((1...4).contains(CaseFilter.shard(of: "", among: 4)))
        #expect(CaseFilter.parseShard("2/4")! == (2, 4))
        for bad in ["0/4", "5/4", "4", "1/0", "a/b", "1/4/2", "-1/4", "", "+1/4", "2/9223372036854775807", "1/1001"] {
            #expect(CaseFilter.parseShard(bad) == nil, "\(bad)")
        }
        #expect(CaseFilter.parseShard("1000/1000")! == (1000, 1000))
    }

    /// A run that selects no case passes having judged nothing: each way to select none is exit
    /// 2 with the reason (`--shard 2/9223372036854775807` was `PASS 0 passed`, exit 0).
    @Test func aSelectionOfNoCaseIsRefused() async throws {
        let huge = try await Fixture.run("conformance", ["run", "--shard", "2/9223372036854775807"])
        #expect(huge.status == 2)
        #expect(huge.stderr.contains("--shard 2/9223372036854775807: expected I/N with 1 <= I <= N <= 1000"), "\(huge.stderr)")
        // One case selected, split in a thousand: all but one shard hold none of it.
        let id = "pairing/desktop-pairing/seed-example"
        let home = CaseFilter.shard(of: id, among: 1000)
        let empty = try await Fixture.run("conformance", ["run", "--case", id, "--shard", "\(home % 1000 + 1)/1000"])
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("holds none of the 1 case(s) selected (a case falls in a shard by its id); split into fewer shards"), "\(empty.stderr)")
        let held = try await Fixture.run("conformance", ["run", "--case", id, "--shard", "\(home)/1000"])
        #expect(held.status == 0, "\(held.stdout)\(held.stderr)")
        let repeated = try await Fixture.run("conformance", ["run", "--case", id, "--repeat", "101"])
        #expect(repeated.status == 2)
        #expect(repeated.stderr.contains("--repeat must be 1 to 100"), "\(repeated.stderr)")
        let family = try await Fixture.run("conformance", ["list", "cases", "--family", "pairng"])
        #expect(family.status == 2)
        #expect(family.stderr.contains("unknown family pairng"), "\(family.stderr)")
    }

    /// A linked Vectors/ is read where it leads (it listed nothing); a link inside it is refused
    /// by name, not skipped.
    @Test func aLinkedVectorsFolderIsReadAndALinkInsideIsRefused() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("linked-vectors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("Spec"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.copyItem(at: Fixture.repository.catalogFile, to: scratch.appendingPathComponent("Spec/catalog.json"))
        try FileManager.default.createSymbolicLink(at: scratch.appendingPathComponent("Vectors"), withDestinationURL: Fixture.repository.vectors)
        let listed = try await Fixture.run("conformance", ["list", "cases", "--repo", scratch.path])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").count == Fixture.cases.count)
        // A folder of vectors with a link in it.
        let own = scratch.appendingPathComponent("own")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        try FileManager.default.removeItem(at: scratch.appendingPathComponent("Vectors"))
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("Vectors"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: scratch.appendingPathComponent("Vectors/pairing"), withDestinationURL: Fixture.repository.vectors.appendingPathComponent("pairing"))
        let refused = try await Fixture.run("conformance", ["list", "cases", "--repo", scratch.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("pairing: a symbolic link; vector files and folders are read only as they are"), "\(refused.stderr)")
    }

    @Test func aShardOutsideItsCountIsRefused() async throws {
        let run = try await Fixture.run("conformance", ["run", "--shard", "5/4"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--shard 5/4: expected I/N with 1 <= I <= N"), "\(run.stderr)")
    }

    /// Globs compare Unicode scalars: `?` is one scalar, so a combining mark after a letter is
    /// one more, and `/` followed by a combining mark is still `/` then the mark.
    @Test func globsCompareScalarsNotCharacters() {
        #expect(!CaseFilter.matches(pattern: "a/?", id: "a/e\u{301}"))
        #expect(CaseFilter.matches(pattern: "a/??", id: "a/e\u{301}"))
        #expect(CaseFilter.matches(pattern: "a/*", id: "a/\u{301}x"))
        #expect(!CaseFilter.matches(pattern: "caf\u{E9}", id: "cafe\u{301}"), "canonically equal, but not the same bytes")
    }
}
