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

/// The testee's self-description, its answer to `hello`. `families`, `kinds` and `machines`
/// each narrow what the testee is asked when given: a case outside them is *not implemented*
/// (reported, never failed).
public struct TesteeHello: Sendable, Hashable {
    public var implementation: String
    public var families: [String]?
    public var kinds: [String]?
    public var machines: [String]?

    public init(implementation: String, families: [String]? = nil, kinds: [String]? = nil, machines: [String]? = nil) {
        self.implementation = implementation
        self.families = families
        self.kinds = kinds
        self.machines = machines
    }

    public var json: JSONValue {
        var o = JSONObject(["protocol": .number(JSONNumber(TesteeRequest.protocolVersion)), "implementation": .string(implementation)])
        for (key, list) in [("families", families), ("kinds", kinds), ("machines", machines)] {
            if let list { o[key] = .array(list.map { .string($0) }) }
        }
        return .object(o)
    }

    /// Why this testee is not asked `request`, or nil when it implements it.
    public func declines(_ request: TesteeRequest) -> String? {
        switch request {
        case .validate(_, let family, let kind, _, _):
            if let families, !families.contains(family) { return "family \(family) is not in the testee's hello families" }
            if let kinds, !kinds.contains(kind) { return "kind \(kind) is not in the testee's hello kinds" }
        case .runMachine(_, let family, let machine, _, _):
            if let families, !families.contains(family) { return "family \(family) is not in the testee's hello families" }
            if let machines, !machines.contains(machine) { return "machine \(machine) is not in the testee's hello machines" }
        case .hello, .bye:
            break
        }
        return nil
    }

    public static func decode(_ line: [UInt8]) throws(Violation) -> TesteeHello {
        try decode(try JSONParser.parse(line))
    }

    public static func decode(_ value: JSONValue) throws(Violation) -> TesteeHello {
        let reader = try ObjectReader(document: value)
        let version = try reader.integer("protocol")
        guard version == TesteeRequest.protocolVersion else {
            throw Violation(rule: CoreRule.type, path: reader.pointer("protocol"), expected: "\(TesteeRequest.protocolVersion)", found: "\(version)")
        }
        func names(_ key: String) throws(Violation) -> [String]? {
            guard let list = try reader.optionalArray(key) else { return nil }
            var result: [String] = []
            for (i, f) in list.enumerated() { result.append(try asString(f, at: reader.pointer(key) / i)) }
            return result
        }
        return TesteeHello(
            implementation: Violation.capped(try reader.optionalString("implementation") ?? "unnamed"), families: try names("families"), kinds: try names("kinds"),
            machines: try names("machines"))
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
        case .reject(let violations, _):
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
        try decode(try JSONParser.parse(line, limits: limits), caseID: caseID)
    }

    /// An answer line's limits: a canonical form may be as large as a package's largest document.
    public static let limits = JSONLimits(maxBytes: 64 << 20, maxDepth: 128)

    /// Reads an answer already parsed (the runner parses each line once to find the answer).
    public static func decode(_ value: JSONValue, caseID: String) throws(Violation) -> Outcome {
        let reader = try ObjectReader(document: value)
        let answered = try reader.string("case")
        guard answered == caseID else {
            throw Violation(rule: CoreRule.type, path: reader.pointer("case"), expected: JSONSerializer.quoted(caseID), found: JSONSerializer.quoted(answered))
        }
        switch try reader.string("outcome") {
        case "accept":
            return .accept(canonical: try reader.required("canonical", expecting: "object"))
        case "reject":
            var violations: [Violation] = []
            // No violations: "rejected, rule unknown" (graded on the verdict only).
            let listed = try reader.optionalArray("violations") ?? []
            for (i, v) in listed.prefix(ViolationList.maxListed).enumerated() {
                let r = try ObjectReader(document: v, path: reader.pointer("violations") / i)
                let at = try ExpectedViolation.read(r)
                violations.append(
                    Violation(
                        rule: at.rule, path: at.path, expected: try r.optionalString("expected") ?? "",
                        found: try r.optionalString("found") ?? ""))
            }
            return .reject(violations, omitted: max(0, listed.count - ViolationList.maxListed))
        case "trace":
            var steps: [MachineStep] = []
            for (i, s) in try reader.array("steps").enumerated() {
                let r = try ObjectReader(document: s, path: reader.pointer("steps") / i)
                steps.append(try MachineStep.read(r))
            }
            return .trace(steps)
        case "unsupported":
            return .unsupported(reason: Violation.capped(try reader.optionalString("reason") ?? ""))
        case "invalid-request":
            return .invalidRequest(reason: Violation.capped(try reader.optionalString("reason") ?? ""))
        case let other:
            throw Violation(
                rule: CoreRule.type, path: reader.pointer("outcome"), expected: "accept, reject, trace, unsupported or invalid-request",
                found: other)
        }
    }
}
