import ConformanceKit
import Foundation
import WireCore

/// A pairing scenario from `Conformance/scenarios/pairing.json` (format: the README there).
struct PairingScenario: Sendable {
    var id: String
    var comment: String
    var role: LiveRole
    var rules: [RuleID]
    /// `flow-b` (a QR text), `manual` (a typed code) or `flow-a` (the phone shows its own QR and
    /// the desktop scans it): what the phone under test does, or how the runner's phone answers
    /// the desktop under test.
    var flow: String
    /// Role phone: the QR names a LAN URL whose every attempt the runner refuses.
    var lanRefused = false
    /// Role phone: the QR is this much older than the Spec allows (PAIR-TIME-002).
    var qrAgeMs: Int64?
    /// Role phone: the code handed over is not the one on display (nobody holds its alias).
    var codeNotLive = false
    /// Role desktop: an ack with another code comes first, on the desktop's own id.
    var wrongCodeFirst = false
    /// Role desktop: the ack, with the right code, comes only after the code expired.
    var lateAck = false
    /// Drop the peer's connection once it registered, and refuse this many attempts after.
    var dropRefusing: Int?
    /// Wait for this many keepalives on the peer's connection before pairing.
    var keepalives = 0
    /// Go silent on the peer's connections (no frame, no pong) and wait for it to take them for
    /// dead and come back on new ones (PAIR-CONN-003, then PAIR-CONN-001).
    var silent = false
    /// Once paired, the WebRTC exchange (Spec pairing.md 4.6) follows on the same relay.
    var webrtc = false
    /// Whether the runner's side must end paired.
    var expectPaired: Bool
    /// With `webrtc`: whether the runner's side must end the exchange negotiated.
    var expectNegotiated: Bool?
    /// At most this many signaling messages from the peer (role phone).
    var maxMessages: Int?

    var vector: VectorCase {
        VectorCase(
            id: id, family: "pairing", comment: comment, flags: ["live"], rules: rules, triggers: [], context: .null,
            body: .machine(name: "live-\(role.rawValue)", events: [], expected: []), file: "Conformance/scenarios/pairing.json")
    }

    static let members: Set<String> = [
        "id", "role", "comment", "rules", "flow", "lan", "qrAgeMs", "codeNotLive", "wrongCodeFirst", "lateAck", "drop", "keepalives", "silent", "webrtc", "expect",
    ]

    static func load(_ file: URL) throws -> [PairingScenario] {
        guard let data = FileManager.default.contents(atPath: file.path) else { throw LiveError("cannot read \(file.path)") }
        let name = file.lastPathComponent
        let root: JSONValue
        do {
            root = try JSONParser.parse([UInt8](data))
        } catch {
            throw LiveError("\(name): \(error)")
        }
        guard let list = root["scenarios"]?.arrayValue else { throw LiveError("\(name): no scenarios array") }
        return try list.enumerated().map { i, s in
            guard let id = s["id"]?.stringValue, let roleName = s["role"]?.stringValue, let role = LiveRole(rawValue: roleName),
                role == .phone || role == .desktop, let flow = s["flow"]?.stringValue, ["flow-a", "flow-b", "manual"].contains(flow),
                let paired = s["expect"]?["paired"]?.boolValue
            else {
                throw LiveError("\(name): scenario \(i) needs id, role (phone or desktop), flow (flow-a, flow-b or manual) and expect.paired")
            }
            // A misspelt member would otherwise make a scenario pass without doing what it says.
            if let unknown = s.objectValue?.members.map(\.key).first(where: { !members.contains($0) }) {
                throw LiveError("\(name): scenario \(id): unknown member \(unknown); known: \(members.sorted().joined(separator: ", "))")
            }
            var scenario = PairingScenario(
                id: id, comment: s["comment"]?.stringValue ?? "", role: role,
                rules: (s["rules"]?.arrayValue ?? []).compactMap(\.stringValue).map { RuleID($0) }, flow: flow, expectPaired: paired)
            scenario.lanRefused = s["lan"]?.stringValue == "refused"
            scenario.qrAgeMs = s["qrAgeMs"]?.integerValue
            scenario.codeNotLive = s["codeNotLive"]?.boolValue ?? false
            scenario.wrongCodeFirst = s["wrongCodeFirst"]?.boolValue ?? false
            scenario.lateAck = s["lateAck"]?.boolValue ?? false
            scenario.dropRefusing = s["drop"]?["refuse"]?.integerValue.map(Int.init)
            scenario.keepalives = s["keepalives"]?.integerValue.map(Int.init) ?? 0
            scenario.silent = s["silent"]?.boolValue ?? false
            scenario.webrtc = s["webrtc"]?.boolValue ?? false
            scenario.expectNegotiated = s["expect"]?["negotiated"]?.boolValue
            if scenario.expectNegotiated != nil && !scenario.webrtc { throw LiveError("\(name): scenario \(id): expect.negotiated needs webrtc: true") }
            scenario.maxMessages = s["expect"]?["maxMessages"]?.integerValue.map(Int.init)
            return scenario
        }
    }
}
