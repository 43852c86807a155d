import TesteeProtocol
import WireCore

extension RecordsMachineJSON {
    /// The sync machines (Spec records.md 5 and 8.7): their states are plain data, named as the
    /// tables' text derives them.
    static let machines: [MachineRegistration] = [
        MachineRegistration(
            "idea-sync", initial: "pending", play: { context, events throws(Problem) in try runSyncState(context: context, events: events) },
            derivedState: { state in
                if state["isObsolete"] == .bool(true) { return "obsolete" }
                return state["isPendingSync"] == .bool(true) ? "pending" : "synced"
            }),
        MachineRegistration(
            "log-retention", initial: "empty", play: { _, events throws(Problem) in try runSyncLog(events: events) },
            derivedState: { MachineRegistration.count($0, "entries") > 0 ? "holding" : "empty" }),
        MachineRegistration(
            "sync-queue", initial: "idle", play: { _, events throws(Problem) in try runSyncQueue(events: events) },
            derivedState: { state in
                MachineRegistration.count(state, "inFlight") > 0 ? "uploading" : MachineRegistration.count(state, "pending") > 0 ? "pending" : "idle"
            }),
        MachineRegistration(
            "initial-sync", initial: "start", play: { _, events throws(Problem) in try runInitialSync(events: events) },
            label: { event in
                let name = event["event"]?.stringValue ?? "?"
                for key in ["reinstall", "pro", "available", "found"] where event[key] != nil {
                    return "\(name) \(key)=\(event[key] == .bool(true))"
                }
                return name == "user-choice" ? "\(name) \(event["choice"]?.stringValue ?? "?")" : name
            }),
        MachineRegistration(
            "record-zone", initial: "empty", play: { _, events throws(Problem) in try runRecordZone(events: events) },
            derivedState: { MachineRegistration.count($0, "tags") > 0 ? "holding" : "empty" }),
    ]
}
