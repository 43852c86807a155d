import Pairing
import TesteeProtocol
import WireCore

/// JSON forms of the pairing machines' events, states and actions (Spec pairing.md section 4).
enum PairingMachineJSON {
    typealias Problem = ContextReader.Problem

    static func phone(from context: JSONValue) throws(Problem) -> PhoneContext {
        let reader = ContextReader(value: context)
        let device = ContextReader(value: try reader.object()["device"] ?? .null)
        let info = MobileDeviceInfo(
            deviceId: try device.string("deviceId") ?? "", name: try device.string("name") ?? "",
            platform: try device.string("platform") ?? "")
        return PhoneContext(activeDid: try reader.string("activeDid"), device: info, signalingUrl: try reader.string("signalingUrl"))
    }

    static func runFlowB(phone: PhoneContext, events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            ScanDesktopPairingMachine(phone: phone), events: events,
            decode: { e throws(Problem) -> ScanDesktopPairingMachine.Event in
                switch e.name {
                case "scanned": return .scanned(text: Array(try e.string("text").utf8), at: try e.at())
                case "send-succeeded": return .sendSucceeded(at: try e.at())
                case "send-failed": return .sendFailed(at: try e.at())
                case "retry": return .retry
                default: throw e.unknown
                }
            }, handle: { $0.handle($1).map(json) }, state: { json($0.state) })
    }

    static func runFlowA(phone: PhoneContext, events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            DesktopPairingMachine(phone: phone), events: events,
            decode: { e throws(Problem) -> DesktopPairingMachine.Event in
                switch e.name {
                case "start": return .start(at: try e.at(), code: try drawCode(e))
                case "confirmation": return .confirmation(document: try e.document(), at: try e.at())
                case "tick": return .tick(at: try e.at())
                case "signaling-failed": return .signalingFailed(at: try e.at())
                case "retry": return .retry
                default: throw e.unknown
                }
            }, handle: { $0.handle($1).map(json) }, state: { json($0.state) })
    }

    static func runManual(phone: PhoneContext, confirmationWait: EpochMillis, events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            ManualPairingMachine(phone: phone, confirmationWait: confirmationWait), events: events,
            decode: { e throws(Problem) -> ManualPairingMachine.Event in
                switch e.name {
                case "submit": return .submit(code: try e.string("code"), at: try e.at())
                case "send-succeeded": return .sendSucceeded(at: try e.at())
                case "send-failed": return .sendFailed(at: try e.at())
                case "peer-offline": return .peerOffline(at: try e.at())
                case "confirmation": return .confirmation(document: try e.document(), at: try e.at())
                case "tick": return .tick(at: try e.at())
                case "retry": return .retry
                default: throw e.unknown
                }
            }, handle: { $0.handle($1).map(json) }, state: { json($0.state) })
    }

    static func desktop(from context: JSONValue) throws(Problem) -> DesktopContext {
        let reader = ContextReader(value: context)
        let device = ContextReader(value: try reader.object()["device"] ?? .null)
        let info = DesktopDeviceInfo(name: try device.string("name") ?? "", platform: try device.string("platform") ?? "", version: try device.string("version"))
        return DesktopContext(
            pcPeerId: try reader.string("pcPeerId") ?? "", device: info, relayUrl: try reader.string("relayUrl") ?? "",
            signalingUrl: try reader.string("signalingUrl"))
    }

    static func runMobileBridge(desktop: DesktopContext, events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            MobileBridgeMachine(desktop: desktop), events: events,
            decode: { e throws(Problem) -> MobileBridgeMachine.Event in
                switch e.name {
                case "start": return .start(at: try e.at(), code: try drawCode(e))
                case "message": return .message(document: try e.document(), at: try e.at())
                case "scanned": return .scanned(text: Array(try e.string("text").utf8), at: try e.at())
                case "tick": return .tick(at: try e.at())
                case "retry": return .retry
                default: throw e.unknown
                }
            }, handle: { $0.handle($1).map(json) }, state: { json($0.state) })
    }

    /// The WebRTC exchange (Spec pairing.md 4.6); context.localPeerId is this side's own id.
    static func runWebRTC(localPeerId: String, events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            WebRTCNegotiationMachine(localPeerId: localPeerId), events: events,
            decode: { e throws(Problem) -> WebRTCNegotiationMachine.Event in
                switch e.name {
                case "start":
                    guard let role = WebRTCNegotiationMachine.Role(rawValue: try e.string("role")) else {
                        throw Problem(message: "events[\(e.index)] (start): role must be \"offerer\" or \"answerer\"")
                    }
                    let list = e.object["candidates"]?.arrayValue
                    guard let candidates = list?.compactMap(\.stringValue), candidates.count == list?.count else {
                        throw Problem(message: "events[\(e.index)] (start) needs \"candidates\", an array of strings")
                    }
                    let local = WebRTCNegotiationMachine.Local(sdp: try e.string("sdp"), candidates: candidates)
                    return .start(role: role, peerId: try e.string("peerId"), url: try e.string("url"), local: local, at: try e.at())
                case "signal": return .signal(document: try e.document(), at: try e.at())
                case "peer-offline": return .peerOffline(peerId: try e.string("peerId"), at: try e.at())
                case "tick": return .tick(at: try e.at())
                default: throw e.unknown
                }
            }, handle: { $0.handle($1).map(json) }, state: { json($0.state) })
    }

    static func json(_ state: WebRTCNegotiationMachine.State) -> JSONValue {
        switch state {
        case .idle: return ["name": "idle"]
        case .negotiating(_, let described, let candidates):
            return ["name": "negotiating", "described": .bool(described), "remoteCandidates": .number(JSONNumber(Int64(candidates)))]
        case .negotiated: return ["name": "negotiated"]
        case .failed(let reason): return ["name": "failed", "reason": json(reason)]
        }
    }

    /// context.backoff, context.keepaliveInterval and context.unansweredLimit: the client's own
    /// schedule, within the Spec's bounds (PAIR-CONN-002, -003); the seed's when absent.
    static func connectionPolicy(from context: JSONValue) throws(Problem) -> SignalingConnectionMachine.Policy {
        let reader = ContextReader(value: context)
        var policy = SignalingConnectionMachine.Policy.seed
        if let value = try reader.object()["backoff"] {
            let delays = value.arrayValue?.compactMap(\.integerValue)
            guard let delays, delays.count == value.arrayValue?.count else { throw Problem(message: "context.backoff must be an array of integers (ms)") }
            policy.backoff = delays
        }
        if let interval = try reader.integer("keepaliveInterval") { policy.keepaliveInterval = interval }
        if let limit = try reader.integer("unansweredLimit") { policy.unansweredLimit = Int(clamping: limit) }
        if let problem = policy.problem { throw Problem(message: "context: \(problem)") }
        return policy
    }

    static func runConnection(policy: SignalingConnectionMachine.Policy, events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            SignalingConnectionMachine(policy: policy), events: events,
            decode: { e throws(Problem) -> SignalingConnectionMachine.Event in
                switch e.name {
                case "start": return .start(at: try e.at())
                case "register": return .register(peerId: try e.string("peerId"), at: try e.at())
                case "release": return .release(peerId: try e.string("peerId"), at: try e.at())
                case "opened": return .opened(at: try e.at())
                case "failed": return .failed(at: try e.at())
                case "heard": return .heard(at: try e.at())
                case "tick": return .tick(at: try e.at())
                case "stop": return .stop(at: try e.at())
                default: throw e.unknown
                }
            }, handle: { $0.handle($1).map(json) }, state: { json($0) })
    }

    static func runRelay(events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            SignalingRelay(), events: events,
            decode: { e throws(Problem) -> SignalingRelay.Event in
                switch e.name {
                case "connected": return .connected(try e.connection(), source: try e.string("source"), at: try e.at())
                case "received":
                    // `text` carries exact bytes (malformed input); `document` embedded JSON.
                    let text: [UInt8]
                    if case .string(let raw)? = e.object["text"] {
                        text = Array(raw.utf8)
                    } else {
                        text = Array(JSONSerializer.compact(try e.document()).utf8)
                    }
                    return .received(try e.connection(), text: text, at: try e.at())
                case "disconnected": return .disconnected(try e.connection(), at: try e.at())
                default: throw e.unknown
                }
            }, handle: { $0.handle($1).map(json) }, state: { ["registered": .array($0.registeredPeerIds.map { .string($0) })] })
    }

    static func json(_ action: SignalingRelay.Action) -> JSONValue {
        switch action {
        case .send(let connection, let document, let rule):
            var o = JSONObject(["action": "send", "connection": .number(JSONNumber(Int64(connection))), "document": document])
            if let rule { o["rule"] = .string(rule.rawValue) }
            return .object(o)
        }
    }

    /// The code Flow A shows, drawn from the event's `random` hex bytes (Spec pairing.md 4.2).
    static func drawCode(_ e: MachineDriver.EventReader) throws(Problem) -> String {
        guard let bytes = Hex.decode(try e.string("random")) else {
            throw Problem(message: "events[\(e.index)].random must be hex")
        }
        var source = ScriptedBytes(bytes)
        guard let code = PairingCode.draw(from: &source) else {
            throw Problem(message: "events[\(e.index)].random ran out before a code could be drawn")
        }
        return code
    }

    // MARK: states and actions

    static func json(_ state: ScanDesktopPairingMachine.State) -> JSONValue {
        switch state {
        case .scanning: return ["name": "scanning"]
        case .sending(let s): return ["name": "sending", "desktopName": .string(s.desktopName)]
        case .success(let name): return ["name": "success", "desktopName": .string(name)]
        case .failed(let reason): return ["name": "failed", "reason": json(reason)]
        }
    }

    static func json(_ state: DesktopPairingMachine.State) -> JSONValue {
        switch state {
        case .idle: return ["name": "idle"]
        case .displaying(let payload, let payloadJson, let expiresAt):
            return [
                "name": "displaying", "payload": payload.canonical, "payloadJson": .string(payloadJson),
                "expiresAt": .number(JSONNumber(expiresAt)),
            ]
        case .completed: return ["name": "completed"]
        case .expired: return ["name": "expired"]
        case .failed(let reason): return ["name": "failed", "reason": json(reason)]
        }
    }

    static func json(_ state: ManualPairingMachine.State) -> JSONValue {
        switch state {
        case .entering: return ["name": "entering"]
        case .submitting(let code, _): return ["name": "submitting", "code": .string(code)]
        case .success(let name): return ["name": "success", "desktopName": .string(name)]
        case .failed(let reason): return ["name": "failed", "reason": json(reason)]
        }
    }

    static func json(_ state: MobileBridgeMachine.State) -> JSONValue {
        switch state {
        case .idle: return ["name": "idle"]
        case .showing(let qr, let qrJson, let expiresAt):
            return ["name": "showing", "qr": qr.canonical, "qrJson": .string(qrJson), "expiresAt": .number(JSONNumber(expiresAt))]
        case .paired(let name, let did): return ["name": "paired", "deviceName": .string(name), "mobileDid": .string(did)]
        case .expired: return ["name": "expired"]
        case .failed(let reason): return ["name": "failed", "reason": json(reason)]
        }
    }

    static func json(_ machine: SignalingConnectionMachine) -> JSONValue {
        let count = { (n: Int) in JSONValue.number(JSONNumber(Int64(n))) }
        var o: JSONObject
        switch machine.state {
        case .idle: o = JSONObject(["name": "idle"])
        case .connecting(let failures): o = JSONObject(["name": "connecting", "failures": count(failures)])
        case .open(let next, let unanswered): o = JSONObject(["name": "open", "nextPingAt": .number(JSONNumber(next)), "unanswered": count(unanswered)])
        case .waiting(let failures, let until):
            o = JSONObject(["name": "waiting", "failures": count(failures), "until": .number(JSONNumber(until))])
        case .closed: o = JSONObject(["name": "closed"])
        }
        o["held"] = .array(machine.held.map { .string($0) })
        return .object(o)
    }

    static func json(_ action: SignalingConnectionMachine.Action) -> JSONValue {
        switch action {
        case .connect(let rule):
            var o = JSONObject(["action": "connect"])
            if let rule { o["rule"] = .string(rule.rawValue) }
            return .object(o)
        case .sendRegister(let peerId, let rule):
            var o = JSONObject(["action": "send", "document": ["type": "register", "peerId": .string(peerId)]])
            if let rule { o["rule"] = .string(rule.rawValue) }
            return .object(o)
        // Every ping is the keepalive's (PAIR-CONN-003).
        case .ping: return ["action": "ping", "rule": .string(PairingRule.keepaliveInterval.rawValue)]
        case .drop(let rule): return ["action": "drop", "rule": .string(rule.rawValue)]
        case .close: return ["action": "close"]
        }
    }

    static func json(_ reason: FailureReason) -> JSONValue {
        ["rule": .string(reason.rule.rawValue), "path": .string(reason.path.description)]
    }

    static func json(_ action: PairingAction) -> JSONValue {
        switch action {
        case .register(let url, let peerId): return ["action": "register", "url": .string(url), "peerId": .string(peerId)]
        case .send(let url, let message): return ["action": "send", "url": .string(url), "message": message.canonical]
        case .release(let url, let peerId): return ["action": "release", "url": .string(url), "peerId": .string(peerId)]
        case .reset: return ["action": "reset"]
        case .persist(let record): return ["action": "persist", "record": record.canonical]
        case .drop(let reason): return ["action": "drop", "rule": .string(reason.rule.rawValue), "path": .string(reason.path.description)]
        }
    }
}

extension MachineDriver.EventReader {
    /// The relay machine's connection number.
    func connection() throws(ContextReader.Problem) -> SignalingRelay.ConnectionID {
        guard case .number(let n)? = object["connection"], let i = n.int64, i >= 0, i <= Int64(Int32.max) else {
            throw ContextReader.Problem(message: "events[\(index)] (\(name)) needs an integer \"connection\"")
        }
        return Int(i)
    }
}
