import ConformanceKit
import Foundation
import Migration
import Records
import Reference
import TesteeProtocol
import WireCore

/// The fuzz targets, shared by the libFuzzer binary (`Conformance/fuzz`, where `FUZZ_TARGET`
/// picks one) and `fuzz-replay` (the tests' replay of the seeds and their mutations). Each feeds
/// the input to the same code that reads untrusted bytes in the product: the JSON parser, each
/// family's document decoders, the BackupChunk frame, the envelope opener, the zip reader and the
/// session-log judge (the SwiftData source reader is `fuzz-swift`'s: it needs swift-syntax). A crash, a hang (libFuzzer's -timeout) or an oracle failure
/// (`fatalError`) is a finding; a violation is the expected answer to most inputs.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case json, pairing, records, migration, backupChunk = "backup-chunk", envelope, zip
    case sessionLog = "session-log"

    /// The kinds a document target takes; the input's first line names the kind.
    var kinds: [String] {
        switch self {
        case .pairing: return PairingFamily().kinds
        case .records: return RecordsFamily().kinds
        case .migration: return MigrationFamily().kinds.filter { !["envelope", "package", "backup-chunk"].contains($0) }
        default: return []
        }
    }

    var family: any ConformanceFamily {
        switch self {
        case .pairing: return PairingFamily()
        case .records: return RecordsFamily()
        default: return MigrationFamily()
        }
    }

    static let context: JSONValue = [
        "now": 1_747_300_000_000, "activeDid": "did:cc:phone-1",
        "meta": [
            "backupId": "3f2c6a1e-9b7d-4c2e-8f10-5a6b7c8d9e0f", "fileSize": 5000, "chunkSize": 4096, "chunkCount": 2,
            "envelopeSHA256": "30f3b7a1dd092dedd90df3905d0d95e538c70ddaa6ec8f4e9b4bb43ba2efa216", "zipSize": 4000, "schemaVersion": 1,
            "appVersion": "1.2.0",
        ],
    ]

    /// Feeds one input to the target; an oracle failure is a `fatalError` (a finding).
    /// `timeScale` widens the time oracle for a debug build (the budget is release code's).
    public func run(_ input: [UInt8], timeScale: Double = 1) {
        switch self {
        case .json:
            guard let value = try? JSONParser.parse(input, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 64)) else { return }
            // Oracle: the canonical text of what was accepted parses back to the same value.
            let text = Array(JSONSerializer.compact(value).utf8)
            guard let again = try? JSONParser.parse(text, limits: JSONLimits(maxBytes: 4 << 20, maxDepth: 64)) else {
                fatalError("the serializer wrote text its own parser refuses")
            }
            guard JSONDiff.differences(expected: value, found: again).isEmpty else { fatalError("a round trip changed the value") }
        case .pairing, .records, .migration:
            guard let newline = input.firstIndex(of: 0x0A) else { return }
            let kind = String(decoding: input[..<newline], as: UTF8.self)
            guard kinds.contains(kind) else { return }
            let document = Array(input[(newline + 1)...])
            let outcome = family.validate(kind: kind, document: document, context: Self.context)
            check(outcome)
            if kind == "xcdatamodel" { Self.modelOracle(document, outcome) }
        case .backupChunk:
            check(MigrationFamily().validate(kind: "backup-chunk", document: input, context: Self.context))
        case .envelope:
            // The seeds are sealed with 1000 iterations; more would make each input slow, not deeper.
            _ = try? Envelope.open(input, password: "correct horse battery staple", policy: EnvelopePolicy(iterations: 1...2000))
            _ = try? EnvelopeHeader.parse(input, policy: .standard)
        case .zip:
            let sandbox = Sandbox.shared
            check(MigrationFamily().validate(kind: "package", document: input, context: Self.context))
            sandbox.checkNothingEscaped()
        case .sessionLog:
            withinTimeBudget(input, scale: timeScale) {
                guard let log = try? SessionLog.read(input), let result = WatchResult.replay(log) else { return }
                // Oracle: what the text report shows steers no terminal, whatever the log held.
                steersNothing(WatchReport.text(result, color: false))
                for event in result.events { steersNothing(WatchReport.line(event)) }
                _ = WatchReport.json(result)
                _ = WatchReport.junit(result)
                _ = WatchReport.html(result, specBase: "Spec/")
            }
        }
    }

    /// Oracle for Xcode's XML: a model read from it, written as the JSON model form, is judged
    /// exactly as the XML was (the reader's output is a model the JSON path reads the same).
    static func modelOracle(_ document: [UInt8], _ outcome: Outcome) {
        guard let model = try? CoreDataModelXML.read(document) else { return }
        let json = Array(JSONSerializer.compact(model).utf8)
        let again = RecordsFamily().validate(kind: "model", document: json, context: [:])
        switch (outcome, again) {
        case (.accept, .accept): return
        case (.reject(let a, _), .reject(let b, _)) where a.map { "\($0.rule) \($0.path)" } == b.map { "\($0.rule) \($0.path)" }: return
        default: fatalError("the XML and its JSON model form were judged differently: \(outcome) vs \(again)")
        }
    }

    /// Every answer is a verdict: a reject names at least one violation, an accept a canonical form.
    func check(_ outcome: Outcome) {
        if case .reject(let violations, _) = outcome, violations.isEmpty { fatalError("a reject without a violation") }
    }
}
