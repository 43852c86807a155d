import ConformanceKit
import Foundation
import WebSocketTransport
import Migration
import MigrationPackage
import MigrationPeer
import WireCore

/// How to reach the peer under test, and what the scenarios share.
public struct LiveOptions: Sendable {
    public var role: LiveRole
    /// A peer that listens (sender, relay): `ws://HOST:PORT`.
    public var peerURL: String?
    /// Where the runner listens for a peer that connects (receiver).
    public var listen: (String, Int)?
    /// Role sender: the file the runner writes the PIN to (the sender under test reads it there).
    public var pinOut: URL?
    /// Role receiver: the file the receiver under test writes its PIN to.
    public var pinFile: URL?
    /// The migration password: role receiver packs with it; role sender restores with it.
    public var password: String?
    /// Progress lines for the person running the kit.
    public var announce: @Sendable (String) -> Void

    public init(role: LiveRole, announce: @escaping @Sendable (String) -> Void) {
        self.role = role
        self.announce = announce
    }

    /// The package the runner sends a receiver under test: a generated store, packed once per run.
    func package(_ scratch: URL) throws -> PreparedPackage {
        let file = scratch.appendingPathComponent("live-package.enc")
        let store = scratch.appendingPathComponent("live-store")
        var sample = SampleStore.Options()
        sample.mediaBytes = 1 << 20
        try SampleStore.generate(at: store, seed: 42, options: sample)
        var random = GeneratorBytes(SystemRandomNumberGenerator())
        let result = try Packer.pack(
            DeviceStore(store), to: file, password: password ?? LiveRunner.defaultPassword, now: Int64(Date().timeIntervalSince1970), random: &random)
        return try PreparedPackage(file: file, backupId: result.backupId, zipSize: result.zipSize, chunkSize: 16 << 10, schemaVersion: 1, appVersion: "1.0.0")
    }
}

/// `conformance run --role ...`: the vectors and scenarios that can be played over the network,
/// against a live peer, reported like any other run.
public enum LiveRunner {
    public static let defaultPassword = "conformance"

    public static func run(
        _ options: LiveOptions, repository: Repository, cases: [VectorCase], filter: CaseFilter, expectedFailures: ExpectedFailures
    ) async throws -> RunReport {
        let start = Date()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var results: [CaseResult] = []

        func record(_ vector: VectorCase, _ outcome: LiveOutcome) {
            var result = CaseResult(vector: vector, status: outcome.status, violations: outcome.violations, verdict: .pass, expectedEntry: expectedFailures.entries[vector.id])
            result.verdict = Runner.verdict(result, entry: result.expectedEntry)
            results.append(result)
        }

        switch options.role {
        case .relay:
            guard let url = options.peerURL else { throw LiveError("--role relay needs --peer ws://HOST:PORT") }
            let relayCases = cases.filter { $0.family == "pairing" && $0.subject == "relay" && filter.matches($0) }
            let playable = relayCases.filter(RelayReplay.playable)
            if playable.count < relayCases.count {
                options.announce("\(relayCases.count - playable.count) relay vectors need 5 minutes of the relay's clock: the in-process run covers them")
            }
            for (i, vector) in playable.enumerated() {
                options.announce("\(vector.id)")
                record(vector, await RelayReplay.run(vector, index: i, url: url))
            }
        case .sender, .receiver:
            let file = repository.root.appendingPathComponent("Conformance/scenarios/migration.json")
            let scenarios = try MigrationScenario.load(file).filter { $0.role == options.role && filter.matches($0.vector) }
            // A receiver under test connects once per scenario to one listener for the whole run,
            // so a receiver that reconnects early is queued for the next scenario, never lost.
            var listener: WebSocketListener?
            var package: PreparedPackage?
            if options.role == .receiver, !scenarios.isEmpty {
                guard let (host, port) = options.listen else { throw LiveError("--role receiver needs --listen HOST:PORT") }
                listener = try await WebSocketListener.bind(host: host, port: port, maxFrameSize: 1 << 16)
                package = try options.package(scratch)
            }
            let player = MigrationScenarioPlayer(options: options, scratch: scratch, listener: listener, package: package)
            for scenario in scenarios {
                options.announce("\(scenario.id)")
                record(scenario.vector, await player.play(scenario))
            }
            await listener?.close()
        }
        guard !results.isEmpty else { throw LiveError("no live case matches the selection") }
        let peer = options.peerURL ?? options.listen.map { "ws://\($0.0):\($0.1) (listening)" } ?? "?"
        return RunReport(peer: "\(peer), \(options.role.rawValue) under test", results: results, seconds: Date().timeIntervalSince(start), unknownExpectedFailures: [])
    }
}
