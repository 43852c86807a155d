import Pairing
import TesteeProtocol
import WireCore

/// The pairing family (Spec pairing.md) behind the kit's JSON interface.
public struct PairingFamily: ConformanceFamily {
    public init() {}

    public let name = "pairing"
    public var registration: FamilyRegistration {
        var r = FamilyRegistration(rulePrefix: "PAIR", chapter: "pairing")
        r.firstViolationOnly = true
        r.schemaKinds = kinds
        r.generators = [
            .init("gen_pairing_vectors", writes: "Vectors/pairing"), .init("gen_flow_vectors", writes: "Vectors/pairing"),
            .init("gen_relay_vectors", writes: "Vectors/pairing"), .init("gen_connection_vectors", writes: "Vectors/pairing"),
            .init("gen_webrtc_vectors", writes: "Vectors/pairing"),
            .init("gen_pairing_schemas", writes: "Spec/schemas/pairing"),
        ]
        return r
    }
    public var kinds: [String] { PairingKind.allCases.map(\.rawValue) }
    public var machineRegistrations: [MachineRegistration] { PairingMachineJSON.machines }
    public var rules: [RuleID] { PairingRule.all }

    public func kind(forType type: String) -> String? {
        guard let kind = PairingKind.named(type), kind.hasTypeMember else { return nil }
        return kind.rawValue
    }

    public func validate(kind: String, document: [UInt8], context: JSONValue) -> Outcome {
        guard let pairingKind = PairingKind.named(kind) else {
            return .unsupported(reason: "the pairing family has no kind \(kind)")
        }
        let reader = ContextReader(value: context)
        let pairingContext: PairingContext
        do throws(ContextReader.Problem) {
            pairingContext = PairingContext(
                now: try reader.requiredTime("now"), activeDid: try reader.string("activeDid"),
                localPeerId: try reader.string("localPeerId"))
        } catch {
            return .invalidRequest(reason: error.message)
        }
        do throws(Violation) {
            let decoded = try PairingCodec.decode(document, as: pairingKind, context: pairingContext)
            return .accept(canonical: decoded.canonical)
        } catch {
            return .reject([error])
        }
    }
}
