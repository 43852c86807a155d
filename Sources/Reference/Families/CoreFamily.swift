import TesteeProtocol
import WireCore

/// The core chapter as a family: its one kind, `auto`, is a document whose kind the receiver
/// must find from its `type` member (CORE-KIND-001), as `conformance check` does and as any
/// receiver that dispatches on `type` must.
public struct CoreFamily: ConformanceFamily {
    public init() {}

    public let name = "core"
    public var registration: FamilyRegistration {
        var r = FamilyRegistration(rulePrefix: "CORE", chapter: "core")
        // Samples of every JSON kind (Conformance/examples/), written from the other families' vectors.
        r.generators = [.init("gen_examples", writes: "Conformance/examples")]
        return r
    }
    public let kinds = ["auto"]
    public let machineRegistrations: [MachineRegistration] = []
    public var rules: [RuleID] { CoreRule.all }

    public func kind(forType type: String) -> String? { nil }

    public func validate(kind: String, document: [UInt8], context: JSONValue) -> Outcome {
        guard kind == "auto" else { return .unsupported(reason: "the core family has no kind \(kind)") }
        let result = DocumentChecker.check(document, name: "document", kind: nil, context: context)
        if result.violations.isEmpty, let canonical = result.canonical { return .accept(canonical: canonical) }
        return .reject(result.violations.map { v in
            var copy = v
            copy.subject = nil
            return copy
        })
    }
}
