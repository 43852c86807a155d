import Records
import TesteeProtocol
import WireCore

/// JSON forms of the records machines' events, states and actions (Spec records.md section 5).
enum RecordsMachineJSON {
    typealias Problem = ContextReader.Problem
    typealias Events = MachineDriver.EventReader

    static func int(_ v: Int64) -> JSONValue { .number(JSONNumber(v)) }

    // MARK: sync-state

    static func runSyncState(context: JSONValue, events: [JSONValue]) throws(Problem) -> [MachineStep] {
        let c = ContextReader(value: context)
        guard let ideaId = try c.string("ideaId") else { throw Problem(message: "context.ideaId is required") }
        let machine = SyncStateMachine(ideaId: ideaId, createdAt: try c.requiredTime("createdAt"))
        return try MachineDriver.run(
            machine, events: events,
            decode: { e throws(Problem) -> SyncStateMachine.Event in
                switch e.name {
                case "local-change": return .localChange(at: try e.at())
                case "sync-succeeded": return .syncSucceeded(remoteVersion: try e.integer("remoteVersion"), recordName: try e.string("recordName"), at: try e.at())
                case "sync-failed": return .syncFailed(errorCode: try e.integer("errorCode"), at: try e.at())
                case "retry": return .retry(at: try e.at())
                case "conflict": return .conflict(at: try e.at())
                case "tick": return .tick(at: try e.at())
                default: throw e.unknown
                }
            },
            handle: { machine, event in machine.handle(event).map(json) }, state: { json($0.state) })
    }

    static func json(_ s: SyncStateDocument) -> JSONValue {
        var o = JSONObject(["ideaId": .string(s.ideaId), "localVersion": int(s.localVersion)])
        if let v = s.remoteVersion { o["remoteVersion"] = int(v) }
        if let v = s.cloudKitRecordName { o["cloudKitRecordName"] = .string(v) }
        if let v = s.lastSyncedAt { o["lastSyncedAt"] = .string(formatISOMillis(v)) }
        if let v = s.lastConflictAt { o["lastConflictAt"] = .string(formatISOMillis(v)) }
        o["lastModifiedAt"] = .string(formatISOMillis(s.lastModifiedAt))
        o["isPendingSync"] = .bool(s.isPendingSync)
        o["isObsolete"] = .bool(s.isObsolete)
        o["conflictResolutionStrategy"] = "lastWrite"
        return .object(o)
    }

    static func json(_ action: SyncStateMachine.Action) -> JSONValue {
        switch action {
        case .log(let event):
            var o = JSONObject(["action": "log", "eventType": .string(event.eventType), "timestamp": .string(formatISOMillis(event.at))])
            if let code = event.errorCode { o["errorCode"] = int(code) }
            return .object(o)
        case .obsolete:
            return ["action": "obsolete", "rule": .string(RecordRule.obsolete.rawValue)]
        case .drop:
            return ["action": "drop", "rule": .string(RecordRule.transitions.rawValue)]
        }
    }

    // MARK: sync-log retention

    static func runSyncLog(events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            SyncLogStore(), events: events,
            decode: { e throws(Problem) -> SyncLogStore.Event in
                switch e.name {
                case "append": return .append(try e.document())
                case "launch": return .launch(at: try e.at())
                default: throw e.unknown
                }
            },
            handle: { log, event in
                log.handle(event).map { action -> JSONValue in
                    switch action {
                    case .drop(let error): return ["action": "drop", "rule": .string(error.rule.rawValue), "path": .string(error.path.description)]
                    case .prune(let ids): return ["action": "prune", "ids": .array(ids.map { .string($0) }), "rule": .string(RecordRule.retention.rawValue)]
                    }
                }
            },
            state: { ["entries": .array($0.entries.map { .string($0.id) })] })
    }

    // MARK: sync-queue

    static func runSyncQueue(events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            SyncQueue(), events: events,
            decode: { e throws(Problem) -> SyncQueue.Event in
                switch e.name {
                case "change": return .change(ideaId: try e.string("ideaId"), at: try e.at())
                case "flush": return .flush
                case "uploaded": return .uploaded
                case "upload-failed": return .uploadFailed
                case "download": return .download(total: Int(try e.integer("total")))
                default: throw e.unknown
                }
            },
            handle: { queue, event in
                queue.handle(event).map { action -> JSONValue in
                    switch action {
                    case .upload(let ids):
                        var o = JSONObject(["action": "upload", "ideaIds": .array(ids.map { .string($0) })])
                        let deferred = queue.pending.count - ids.count
                        if deferred > 0 {
                            o["deferred"] = int(Int64(deferred))
                            o["rule"] = .string(RecordRule.batches.rawValue)
                        }
                        return .object(o)
                    case .fetchPage(let offset, let limit):
                        return ["action": "fetch-page", "offset": int(Int64(offset)), "limit": int(Int64(limit))]
                    }
                }
            },
            state: { ["pending": int(Int64($0.pending.count)), "inFlight": int(Int64($0.inFlight.count))] })
    }

    // MARK: initial-sync

    static func runInitialSync(events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            InitialSyncMachine(), events: events,
            decode: { e throws(Problem) -> InitialSyncMachine.Event in
                switch e.name {
                case "launched": return .launched(reinstall: try e.flag("reinstall"), at: try e.at())
                case "pro-purchased": return .proPurchased(at: try e.at())
                case "purchase-restored": return .purchaseRestored(pro: try e.flag("pro"), at: try e.at())
                case "account-status": return .accountStatus(available: try e.flag("available"), at: try e.at())
                case "query-result": return .queryResult(found: try e.flag("found"), at: try e.at())
                case "user-choice": return .userChoice(try e.string("choice"), at: try e.at())
                case "succeeded": return .succeeded(at: try e.at())
                case "failed": return .failed(at: try e.at())
                case "tick": return .tick(at: try e.at())
                default: throw e.unknown
                }
            },
            handle: { machine, event in
                machine.handle(event).map { action -> JSONValue in
                    switch action {
                    case .ignored: return ["action": "drop", "rule": .string(RecordRule.initialSync.rawValue)]
                    case .perform(let op): return ["action": "perform", "operation": .string(op.rawValue)]
                    case .promptRestore: return ["action": "prompt-restore"]
                    case .promptRetryOrDelete: return ["action": "prompt-retry-or-delete"]
                    case .uploadLocal: return ["action": "upload-local"]
                    case .showError(let code):
                        var o = JSONObject(["action": "show-error", "code": .string(code)])
                        if code == "sync-unavailable" { o["rule"] = .string(RecordRule.backoff.rawValue) }
                        return .object(o)
                    }
                }
            },
            state: { ["name": .string($0.state.name), "failures": int(Int64($0.failures))] })
    }

    // MARK: record-zone

    static func runRecordZone(events: [JSONValue]) throws(Problem) -> [MachineStep] {
        try MachineDriver.run(
            RecordZone(), events: events,
            decode: { e throws(Problem) -> RecordZone.Event in
                switch e.name {
                case "save": return .save(try e.document(), force: false)
                case "save-forced": return .save(try e.document(), force: true)
                default: throw e.unknown
                }
            },
            handle: { zone, event in
                zone.handle(event).map { action -> JSONValue in
                    switch action {
                    case .saved(let tag):
                        return ["action": "saved", "recordChangeTag": .string(tag)]
                    case .serverRecordChanged(let client, let server, let ancestor):
                        return [
                            "action": "server-record-changed", "client": client, "server": server, "ancestor": ancestor ?? .null,
                            "rule": .string(RecordRule.staleTag.rawValue),
                        ]
                    }
                }
            },
            state: { zone in
                var o = JSONObject()
                for name in zone.records.keys.sorted() { o[name] = zone.records[name]?["recordChangeTag"] ?? .null }
                return ["tags": .object(o)]
            })
    }
}
