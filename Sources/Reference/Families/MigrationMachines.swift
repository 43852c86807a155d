import TesteeProtocol
import WireCore

extension MigrationTransferJSON {
    /// The transfer machines and the PIN lockout (Spec migration.md 5.3, MIG-PIN-003).
    static let machines: [MachineRegistration] = [
        MachineRegistration(
            "sender", initial: "listening", play: { context, events throws(Problem) in try runSender(context: context, events: events) },
            label: transferLabel),
        MachineRegistration(
            "receiver", initial: "idle", play: { context, events throws(Problem) in try runReceiver(context: context, events: events) },
            label: transferLabel),
        MachineRegistration(
            "pin-lockout", initial: "clear", play: { _, events throws(Problem) in try runPINLockout(events: events) },
            label: { event in
                let name = event["event"]?.stringValue ?? "?"
                return name == "session-ended" ? "\(name) \(event["outcome"]?.stringValue ?? "?")" : name
            },
            derivedState: { MachineRegistration.count($0, "lockedInARow") > 0 ? "locking" : "clear" }),
    ]

    /// A transfer event as the tables name it: a message by its type and what decides its
    /// row (`message AuthPIN accepted`, `message ChunkAck retransmit`), a user's answer by its value.
    @Sendable static func transferLabel(_ event: JSONValue) -> String {
        let name = event["event"]?.stringValue ?? "?"
        switch name {
        case "message", "text":
            var document = event["document"]
            if name == "text" {
                document = (event["text"]?.stringValue).flatMap { try? JSONParser.parse(Array($0.utf8)) }
            }
            guard let document, let type = document["type"]?.stringValue else { return "text" }
            let payload = document["payload"]
            switch type {
            case "AuthPIN": return "message AuthPIN " + (payload?["pin"] != nil ? "request" : payload?["result"]?.stringValue ?? "?")
            case "Complete": return "message Complete " + (payload?["result"]?.stringValue ?? "sent")
            case "ChunkAck": return "message ChunkAck " + (payload?["status"]?.stringValue ?? "?")
            case "ResumeTransfer": return "message ResumeTransfer " + (payload?["resumeToken"] != nil ? "token" : "plain")
            default: return "message " + type
            }
        case "user-confirmed": return "user-confirmed " + (event["yes"] == .bool(true) ? "yes" : "no")
        case "file-verified": return "file-verified " + (event["ok"] == .bool(true) ? "ok" : "bad")
        case "password-checked": return "password-checked " + (event["result"]?.stringValue ?? "?")
        default: return name
        }
    }
}
