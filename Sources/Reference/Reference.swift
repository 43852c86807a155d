import TesteeProtocol
import WireCore

/// The reference's answers to testee requests; shared by `LocalPeer` and `reference-peer testee`,
/// so the in-process run and the run through the protocol differ only by the protocol.
public enum Reference {
    public static let implementation = "devicedata-conformance reference (Swift)"

    public static var hello: TesteeHello {
        TesteeHello(implementation: implementation, families: Families.all.map(\.name))
    }

    public static func answer(_ request: TesteeRequest) -> Outcome {
        switch request {
        case .validate(_, let familyName, let kind, let document, let context):
            guard let family = Families.named(familyName) else { return .unsupported(reason: "no family \(familyName)") }
            return family.validate(kind: kind, document: document, context: context)
        case .runMachine(_, let familyName, let machine, let context, let events):
            guard let family = Families.named(familyName) else { return .unsupported(reason: "no family \(familyName)") }
            return family.runMachine(machine, context: context, events: events)
        case .hello, .bye:
            return .invalidRequest(reason: "hello and bye carry no case")
        }
    }
}
