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
    public let machines = ["flow-a", "flow-b", "manual", "relay", "connection", "mobile-bridge", "webrtc"]
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

    public func runMachine(_ machine: String, context: JSONValue, events: [JSONValue]) -> Outcome {
        do throws(ContextReader.Problem) {
            switch machine {
            case "flow-b": return .trace(try PairingMachineJSON.runFlowB(phone: try PairingMachineJSON.phone(from: context), events: events))
            case "flow-a": return .trace(try PairingMachineJSON.runFlowA(phone: try PairingMachineJSON.phone(from: context), events: events))
            case "manual":
                // context.confirmationWait: a phone's own wait, 1 to 300000 ms (PAIR-MAN-003).
                let wait = try ContextReader(value: context).integer("confirmationWait") ?? PairingTimeouts.validity
                guard (1...PairingTimeouts.validity).contains(wait) else {
                    return .invalidRequest(reason: "context.confirmationWait must be 1 to \(PairingTimeouts.validity) ms")
                }
                return .trace(try PairingMachineJSON.runManual(phone: try PairingMachineJSON.phone(from: context), confirmationWait: wait, events: events))
            case "relay": return .trace(try PairingMachineJSON.runRelay(events: events))
            case "connection": return .trace(try PairingMachineJSON.runConnection(policy: try PairingMachineJSON.connectionPolicy(from: context), events: events))
            case "mobile-bridge":
                return .trace(try PairingMachineJSON.runMobileBridge(desktop: try PairingMachineJSON.desktop(from: context), events: events))
            case "webrtc":
                guard let own = try ContextReader(value: context).string("localPeerId") else { return .invalidRequest(reason: "context.localPeerId is required") }
                return .trace(try PairingMachineJSON.runWebRTC(localPeerId: own, events: events))
            default: return .unsupported(reason: "the pairing family has no machine \(machine)")
            }
        } catch {
            return .invalidRequest(reason: error.message)
        }
    }
}
