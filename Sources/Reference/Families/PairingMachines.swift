import Pairing
import TesteeProtocol
import WireCore

extension PairingMachineJSON {
    /// The pairing machines (Spec pairing.md 4 and 5), each with its table's names.
    static let machines: [MachineRegistration] = [
        MachineRegistration("flow-a", initial: "idle") { context, events throws(Problem) in
            try runFlowA(phone: try phone(from: context), events: events)
        },
        MachineRegistration("flow-b", initial: "scanning") { context, events throws(Problem) in
            try runFlowB(phone: try phone(from: context), events: events)
        },
        MachineRegistration("manual", initial: "entering") { context, events throws(Problem) in
            // context.confirmationWait: a phone's own wait, 1 to 300000 ms (PAIR-MAN-003).
            let wait = try ContextReader(value: context).integer("confirmationWait") ?? PairingTimeouts.validity
            guard (1...PairingTimeouts.validity).contains(wait) else {
                throw Problem(message: "context.confirmationWait must be 1 to \(PairingTimeouts.validity) ms")
            }
            return try runManual(phone: try phone(from: context), confirmationWait: wait, events: events)
        },
        MachineRegistration(
            "relay", initial: "empty", play: { _, events throws(Problem) in try runRelay(events: events) }, label: relayLabel,
            derivedState: { state in
                guard case .array(let ids)? = state["registered"], !ids.isEmpty else { return "empty" }
                return ids.contains(where: isAlias) ? "aliases" : "peers"
            }),
        MachineRegistration("connection", initial: "idle") { context, events throws(Problem) in
            try runConnection(policy: try connectionPolicy(from: context), events: events)
        },
        MachineRegistration("mobile-bridge", initial: "idle") { context, events throws(Problem) in
            try runMobileBridge(desktop: try desktop(from: context), events: events)
        },
        MachineRegistration(
            "webrtc", initial: "idle",
            play: { context, events throws(Problem) in
                guard let own = try ContextReader(value: context).string("localPeerId") else { throw Problem(message: "context.localPeerId is required") }
                return try runWebRTC(localPeerId: own, events: events)
            }, label: webRTCLabel),
    ]

    /// `start phone`, `signal offer`: the role started and the signal's kind (the kind table's,
    /// byte for byte: anything else is `other`).
    @Sendable static func webRTCLabel(_ event: JSONValue) -> String {
        let name = event["event"]?.stringValue ?? "?"
        switch name {
        case "start": return "start " + (event["role"]?.stringValue ?? "?")
        case "signal":
            guard case .signal(let kind) = PairingFrame.payload(event["document"]?["payload"]) else { return "signal other" }
            return "signal " + kind.rawValue
        default: return name
        }
    }

    /// `received register alias`, `received message`: what the relay received, by the kind table,
    /// and whether it names an alias.
    @Sendable static func relayLabel(_ event: JSONValue) -> String {
        let name = event["event"]?.stringValue ?? "?"
        guard name == "received" else { return name }
        guard let document = event["document"] else { return "received text" }
        switch PairingFrame(document).documentKind {
        case .register?: return "received register" + (isAlias(document["peerId"]) ? " alias" : "")
        case .message?: return "received message" + (isAlias(document["to"]) ? " alias" : "")
        case .ping?: return "received ping"
        default: return "received other"
        }
    }

    /// A `pairing-code:` alias, read as the relay reads ids (`PeerID.aliasCode`).
    @Sendable static func isAlias(_ id: JSONValue?) -> Bool {
        id?.stringValue.flatMap(PeerID.aliasCode) != nil
    }
}
