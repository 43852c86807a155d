import Foundation
import Testing
import TestFixture

/// The fuzz targets in every test run: each target's seeds (`Conformance/fuzz/seeds.py`, from the
/// vectors), any finding kept in `Conformance/fuzz/findings/TARGET/`, and a fixed number of seeded
/// mutations, through `fuzz-replay` (the same targets and oracles as the libFuzzer binary, in a
/// debug build). libFuzzer's own runs are `Conformance/fuzz/run` (README, "Security and fuzzing").
/// One target at a time, at the lowest priority: 35 s of both cores at once starved the suite's
/// network tests of their deadlines (every WebSocket bound test timed out beside eight replays).
@Suite("Fuzz targets replayed", .serialized)
struct FuzzReplayTests {
    /// About 3 s of a debug build each, at most 8 (envelope, session-log and zip: files and PBKDF2).
    static let mutations = [
        "json": 50000, "pairing": 50000, "records": 20000, "migration": 50000, "backup-chunk": 50000, "envelope": 10000,
        "session-log": 10000, "zip": 2000,
    ]

    @Test(arguments: mutations.keys.sorted())
    func aTargetFindsNothingInItsSeedsAndTheirMutations(_ target: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let seeds = try await Fixture.execute(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", Fixture.root.appendingPathComponent("Conformance/fuzz/seeds.py").path, folder.path])
        try #require(seeds.status == 0, "seeds.py: \(seeds.stderr)")
        var inputs = [folder.appendingPathComponent(target).path]
        let findings = Fixture.root.appendingPathComponent("Conformance/fuzz/findings/\(target)")
        if FileManager.default.fileExists(atPath: findings.path) { inputs.append(findings.path) }
        let current = folder.appendingPathComponent("current")
        let replay = try await Fixture.execute(
            URL(fileURLWithPath: "/usr/bin/nice"),
            ["-n", "19", Fixture.executable("fuzz-replay"), target, "--mutations", "\(Self.mutations[target]!)", "--time-scale", "20", "--current", current.path]
                + inputs,
            environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": folder.path]) { $1 }, limit: 900)
        let last = (try? Data(contentsOf: current)).map { $0.prefix(512).base64EncodedString() } ?? "none"
        #expect(replay.status == 0, "\(target): exit \(replay.status)\n\(replay.stderr.suffix(2000))\nlast input (base64, first 512 bytes): \(last)")
        #expect(replay.stdout.hasSuffix("mutations, no finding\n"), "\(replay.stdout)")
    }

    @Test func anUnknownTargetIsAUsageError() async throws {
        let replay = try await Fixture.run("fuzz-replay", ["jsn", "/dev/null"])
        #expect(replay.status == 2)
        #expect(replay.stderr.contains("no target 'jsn': json, pairing, records"), "\(replay.stderr)")
    }
}
