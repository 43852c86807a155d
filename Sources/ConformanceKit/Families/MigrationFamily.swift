import Crypto
import Migration
import WireCore

/// The migration family (Spec migration.md) behind the kit's JSON interface.
public struct MigrationFamily: ConformanceFamily {
    public init() {}

    public let name = "migration"
    public let kinds = ["envelope"]
    public let machines: [String] = []
    public var rules: [RuleID] { MigrationRule.all }

    public func kind(forType type: String) -> String? { nil }

    public func validate(kind: String, document: [UInt8], context: JSONValue) -> Outcome {
        guard kind == "envelope" else { return .unsupported(reason: "the migration family has no kind \(kind)") }
        let reader = ContextReader(value: context)
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

    public func runMachine(_ machine: String, context: JSONValue, events: [JSONValue]) -> Outcome {
        .unsupported(reason: "the migration family has no machines yet")
    }
}
