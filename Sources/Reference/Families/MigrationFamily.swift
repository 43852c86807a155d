import Crypto
import Foundation
import Migration
import MigrationPackage
import TesteeProtocol
import WireCore

/// The migration family (Spec migration.md) behind the kit's JSON interface. Kinds: the
/// envelope (binary), `manifest` and the five exports (JSON, named after their files), and
/// `package` (a zip, checked whole).
public struct MigrationFamily: ConformanceFamily {
    public init() {}

    public let name = "migration"
    public var registration: FamilyRegistration {
        var r = FamilyRegistration(rulePrefix: "MIG", chapter: "migration")
        r.summaryKinds = ["envelope", "package", "backup-chunk"]
        // Every JSON kind has a schema (Spec/schemas/migration); the binary ones cannot.
        r.schemaKinds = kinds.filter { !["envelope", "package", "backup-chunk"].contains($0) }
        r.generators = [
            .init("gen_migration_envelope_vectors", writes: "Vectors/migration"), .init("gen_migration_package_vectors", writes: "Vectors/migration"),
            .init("gen_migration_transfer_vectors", writes: "Vectors/migration"), .init("gen_migration_schemas", writes: "Spec/schemas/migration"),
        ]
        return r
    }
    public var kinds: [String] { ["envelope", "manifest"] + ExportKind.allCases.map(\.rawValue) + ["package", "control-message", "backup-chunk", "restored-store"] }
    public var machineRegistrations: [MachineRegistration] { MigrationTransferJSON.machines }
    public var rules: [RuleID] { MigrationRule.all }

    /// A control message names its type in `type` (`Handshake`, `AuthPIN`, ...).
    public func kind(forType type: String) -> String? { ControlMessage.types.contains(type) ? "control-message" : nil }

    /// An export array by its elements' members; a manifest by `backupId` with `integrity` or
    /// `entityStats` (neither has a `type`).
    public func detectKind(_ document: JSONValue) -> KindDetection? {
        if case .array(let elements) = document {
            if let kind = Self.exportKind(of: elements) { return .kind(kind.rawValue) }
            return .refused(
                Violation(
                    rule: CoreRule.type, path: .root,
                    expected: "an object with a type member, or an array of one export's elements ("
                        + ExportKind.allCases.map(\.rawValue).joined(separator: ", ") + "; --kind names it)",
                    found: elements.isEmpty ? "an empty array" : "an array of no export's elements"))
        }
        if document["backupId"] != nil, document["integrity"] != nil || document["entityStats"] != nil { return .kind("manifest") }
        return nil
    }

    /// `manifest.json`, the exports' file names, and `<kind>.json`.
    public func kind(forFileName name: String) -> String? {
        if name == PackagePath.manifest { return "manifest" }
        if let export = ExportKind.allCases.first(where: { $0.fileName == name }) { return export.rawValue }
        return kinds.first { $0 + ".json" == name }
    }

    /// The export whose declared members cover most of the first element's members: at least
    /// two of them, and at least half.
    static func exportKind(of elements: [JSONValue]) -> ExportKind? {
        guard case .object(let first)? = elements.first else { return nil }
        let names = Set(first.keys)
        let scored = ExportKind.allCases.map { kind in (kind, names.intersection(kind.memberNames).count) }
        guard let best = scored.max(by: { $0.1 < $1.1 }), best.1 * 2 >= names.count, best.1 >= 2 else { return nil }
        return best.0
    }

    public func validate(kind: String, document: [UInt8], context: JSONValue) -> Outcome {
        let reader = ContextReader(value: context)
        let supported: Int64
        do throws(ContextReader.Problem) {
            supported = try reader.integer("supportedSchemaVersion") ?? 1
        } catch {
            return .invalidRequest(reason: error.message)
        }
        switch kind {
        case "envelope": return envelope(document, reader)
        case "package": return package(document, supportedSchemaVersion: supported)
        case "backup-chunk": return MigrationTransferJSON.chunk(document, context: context)
        case "control-message":
            return json(document) { value throws(Violation) in try ControlMessage.decode(value).json }
        case "manifest":
            return all(document) { Manifest.check($0, supportedSchemaVersion: supported).map(\.canonical) }
        case "restored-store":
            do throws(Violation) {
                let (canonical, violations) = try RestoredStore.check(try JSONParser.parse(document, limits: PackageDocument.limits))
                return violations.isEmpty ? .accept(canonical: canonical) : .reject(violations)
            } catch {
                return .reject([error])
            }
        default:
            guard let export = ExportKind(rawValue: kind) else { return .unsupported(reason: "the migration family has no kind \(kind)") }
            return all(document) { Export.check($0, as: export).map(\.canonical) }
        }
    }

    static let maxDocumentBytes = PackageDocument.maxBytes

    /// Documents whose checks are independent report every violation (Spec/core.md, Order of checks).
    func all(_ document: [UInt8], _ check: (JSONValue) -> Result<JSONValue, ViolationList>) -> Outcome {
        do throws(Violation) {
            switch check(try JSONParser.parse(document, limits: PackageDocument.limits)) {
            case .success(let canonical): return .accept(canonical: canonical)
            case .failure(let list): return .reject(list.all, omitted: list.omitted)
            }
        } catch {
            return .reject([error])
        }
    }

    func json(_ document: [UInt8], _ decode: (JSONValue) throws(Violation) -> JSONValue) -> Outcome {
        do throws(Violation) {
            return .accept(canonical: try decode(try JSONParser.parse(document, limits: PackageDocument.limits)))
        } catch {
            return .reject([error])
        }
    }

    func envelope(_ document: [UInt8], _ reader: ContextReader) -> Outcome {
        let password: String
        let policy: EnvelopePolicy
        do throws(ContextReader.Problem) {
            guard let p = try reader.string("password") else { return .invalidRequest(reason: "context.password is required") }
            password = p
            // Test-only vectors lower the floor; production readers never do.
            if let floor = try reader.integer("minimumIterations") {
                guard floor >= 1, floor <= Int64(EnvelopePolicy.standard.iterations.upperBound) else {
                    return .invalidRequest(reason: "context.minimumIterations out of range")
                }
                policy = EnvelopePolicy(iterations: UInt32(floor)...EnvelopePolicy.standard.iterations.upperBound)
            } else {
                policy = .standard
            }
        } catch {
            return .invalidRequest(reason: error.message)
        }
        do throws(EnvelopeError) {
            let (header, plaintext) = try Envelope.openWithHeader(document, password: password, policy: policy)
            return .accept(canonical: [
                "plaintextLength": .number(JSONNumber(Int64(plaintext.count))),
                "plaintextSHA256": .string(SHA256.hash(data: plaintext).hexEncoded),
                "segmentSize": .number(JSONNumber(Int64(header.segmentSize))),
                "iterations": .number(JSONNumber(Int64(header.iterations))),
                "segments": .number(JSONNumber(Int64(header.segmentCount))),
            ])
        } catch {
            return .reject([error.violation])
        }
    }

    func package(_ document: [UInt8], supportedSchemaVersion: Int64) -> Outcome {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        let zip = scratch.appendingPathExtension("zip")
        defer { try? FileManager.default.removeItem(at: zip) }
        do {
            try Data(document).write(to: zip)
            let manifest = try Restorer.check(zip: zip, scratch: scratch, supportedSchemaVersion: supportedSchemaVersion)
            var counts = JSONObject()
            for name in Manifest.entityNames { counts[name] = .number(JSONNumber(manifest.entityCounts[name] ?? 0)) }
            return .accept(canonical: [
                "backupId": .string(manifest.backupId), "entityCounts": .object(counts),
                "files": .number(JSONNumber(Int64(manifest.files.count))), "brokenMedia": .number(JSONNumber(manifest.brokenMediaCount)),
            ])
        } catch let error as PackageError {
            if let violation = error.violation { return .reject([violation]) }
            return .invalidRequest(reason: error.description)
        } catch {
            return .invalidRequest(reason: "\(error)")
        }
    }
}
