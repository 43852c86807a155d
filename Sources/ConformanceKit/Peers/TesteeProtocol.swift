import Foundation
import WireCore

/// The testee protocol (`Conformance/testee-protocol.md`): one JSON object per line each way.
/// Both ends use this one codec: the runner to ask, `reference-peer testee` to answer.
public enum TesteeRequest: Sendable, Hashable {
    case hello
    case validate(caseID: String, family: String, kind: String, document: [UInt8], context: JSONValue)
    case runMachine(caseID: String, family: String, machine: String, context: JSONValue, events: [JSONValue])
    case bye

    public static let protocolVersion: Int64 = 1

    public var caseID: String? {
        switch self {
        case .validate(let id, _, _, _, _), .runMachine(let id, _, _, _, _): return id
        default: return nil
        }
    }

    /// The request for one vector case.
    public init(_ vector: VectorCase) {
        switch vector.body {
        case .document(let kind, let input, _):
            self = .validate(caseID: vector.id, family: vector.family, kind: kind, document: input, context: vector.context)
        case .machine(let name, let events, _):
            self = .runMachine(caseID: vector.id, family: vector.family, machine: name, context: vector.context, events: events)
        }
    }

    public var json: JSONValue {
        switch self {
        case .hello:
            return ["op": "hello", "protocol": .number(JSONNumber(Self.protocolVersion))]
        case .validate(let id, let family, let kind, let document, let context):
            return [
                "op": "validate", "case": .string(id), "family": .string(family), "kind": .string(kind),
                "document": .string(Data(document).base64EncodedString()), "context": context,
            ]
        case .runMachine(let id, let family, let machine, let context, let events):
            return [
                "op": "run-machine", "case": .string(id), "family": .string(family), "machine": .string(machine),
                "context": context, "events": .array(events),
            ]
        case .bye:
            return ["op": "bye"]
        }
    }

    public static func decode(_ line: [UInt8]) throws(Violation) -> TesteeRequest {
        let reader = try ObjectReader(document: try JSONParser.parse(line, limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 128)))
        switch try reader.string("op") {
        case "hello": return .hello
        case "bye": return .bye
        case "validate":
            let text = try reader.string("document")
            guard let data = Data(base64Encoded: text) else {
                throw Violation(rule: CoreRule.type, path: reader.pointer("document"), expected: "base64", found: "invalid base64")
            }
            return .validate(
                caseID: try reader.string("case"), family: try reader.string("family"), kind: try reader.string("kind"),
                document: [UInt8](data), context: reader.optional("context") ?? .null)
        case "run-machine":
            return .runMachine(
                caseID: try reader.string("case"), family: try reader.string("family"), machine: try reader.string("machine"),
                context: reader.optional("context") ?? .null, events: try reader.array("events"))
        case let other:
            throw Violation(rule: CoreRule.type, path: reader.pointer("op"), expected: "hello, validate, run-machine or bye", found: other)
        }
    }
}

/// The testee's self-description, its answer to `hello`.
public struct TesteeHello: Sendable, Hashable {
    public var implementation: String
    public var families: [String]

    public init(implementation: String, families: [String]) {
        self.implementation = implementation
        self.families = families
    }

    public var json: JSONValue {
        [
            "protocol": .number(JSONNumber(TesteeRequest.protocolVersion)), "implementation": .string(implementation),
            "families": .array(families.map { .string($0) }),
        ]
    }

    public static func decode(_ line: [UInt8]) throws(Violation) -> TesteeHello {
        let reader = try ObjectReader(document: try JSONParser.parse(line))
        let version = try reader.integer("protocol")
        guard version == TesteeRequest.protocolVersion else {
            throw Violation(rule: CoreRule.type, path: reader.pointer("protocol"), expected: "\(TesteeRequest.protocolVersion)", found: "\(version)")
        }
        var families: [String] = []
        for (i, f) in (try reader.optionalArray("families") ?? []).enumerated() {
            families.append(try asString(f, at: reader.pointer("families") / i))
        }
        return TesteeHello(implementation: try reader.optionalString("implementation") ?? "unnamed", families: families)
    }
}

/// Answers to `validate` and `run-machine`.
public enum TesteeAnswer {
    public static func json(caseID: String, outcome: Outcome) -> JSONValue {
        var o = JSONObject(["case": .string(caseID)])
        switch outcome {
        case .accept(let canonical):
            o["outcome"] = "accept"
            o["canonical"] = canonical
        case .reject(let violations):
            o["outcome"] = "reject"
            o["violations"] = .array(
                violations.map {
                    ["path": .string($0.path.description), "rule": .string($0.rule.rawValue), "expected": .string($0.expected), "found": .string($0.found)]
                })
        case .trace(let steps):
            o["outcome"] = "trace"
            o["steps"] = .array(steps.map(\.json))
        case .unsupported(let reason):
            o["outcome"] = "unsupported"
            o["reason"] = .string(reason)
        case .invalidRequest(let reason):
            o["outcome"] = "invalid-request"
            o["reason"] = .string(reason)
        }
        return .object(o)
    }

    /// Reads an answer for `caseID`; a garbled answer is a violation of the testee protocol.
    public static func decode(_ line: [UInt8], caseID: String) throws(Violation) -> Outcome {
        let reader = try ObjectReader(document: try JSONParser.parse(line, limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 128)))
        let answered = try reader.string("case")
        guard answered == caseID else {
            throw Violation(rule: CoreRule.type, path: reader.pointer("case"), expected: JSONSerializer.quoted(caseID), found: JSONSerializer.quoted(answered))
        }
        switch try reader.string("outcome") {
        case "accept":
            return .accept(canonical: try reader.required("canonical", expecting: "object"))
        case "reject":
            var violations: [Violation] = []
            for (i, v) in try reader.array("violations").enumerated() {
                let r = try ObjectReader(document: v, path: reader.pointer("violations") / i)
                let at = try ExpectedViolation.read(r)
                violations.append(
                    Violation(
                        rule: at.rule, path: at.path, expected: try r.optionalString("expected") ?? "",
                        found: try r.optionalString("found") ?? ""))
            }
            return .reject(violations)
        case "trace":
            var steps: [MachineStep] = []
            for (i, s) in try reader.array("steps").enumerated() {
                let r = try ObjectReader(document: s, path: reader.pointer("steps") / i)
                steps.append(MachineStep(state: try r.required("state", expecting: "object"), actions: try r.array("actions")))
            }
            return .trace(steps)
        case "unsupported":
            return .unsupported(reason: try reader.optionalString("reason") ?? "")
        case "invalid-request":
            return .invalidRequest(reason: try reader.optionalString("reason") ?? "")
        case let other:
            throw Violation(
                rule: CoreRule.type, path: reader.pointer("outcome"), expected: "accept, reject, trace, unsupported or invalid-request",
                found: other)
        }
    }
}
