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
        for bad in ["0/4", "5/4", "4", "1/0", "a/b", "1/4/2", "-1/4", ""] { #expect(CaseFilter.parseShard(bad) == nil, "\(bad)") }
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
