import WireCore

/// Resolving a `serverRecordChanged` conflict (seed 001 lastWrite, seed 004 §6 user choice,
/// seed 003 NSMergeByPropertyObjectTrumpMergePolicy). Input: the ancestor (the server record the
/// client last saw), the client's record and the server's; output: the record to save (carrying
/// the server's change tag, so the save succeeds) and the SyncLog events.
public enum ConflictResolver {
    public enum Strategy: String, CaseIterable, Sendable {
        case lastWrite, keepLocal, keepServer, merge
    }

    public struct Resolution: Sendable {
        public var record: JSONValue
        public var winner: String
        public var events: [JSONValue]
    }

    /// The time a record was last written by its user: its `updatedAt` field when the model has
    /// one, else its `modified` timestamp.
    public static func writeTime(_ record: JSONValue) -> Int64? {
        if case .number(let n)? = record["fields"]?["updatedAt"]?["value"], let v = n.int64 { return v }
        if case .number(let n)? = record["modified"]?["timestamp"], let v = n.int64 { return v }
        return nil
    }

    public static func resolve(ancestor: JSONValue?, local: JSONValue, server: JSONValue, strategy: Strategy) -> Resolution {
        let serverTag = server["recordChangeTag"] ?? .null
        func saved(_ fields: JSONValue?) -> JSONValue {
            var record = local.objectValue ?? JSONObject()
            record["fields"] = fields
            record["recordChangeTag"] = serverTag == .null ? nil : serverTag
            return .object(record)
        }
        switch strategy {
        case .keepLocal:
            // Seed 004 §6 "保留本地版本": the local fields overwrite the server's (a forced save).
            return Resolution(record: saved(local["fields"]), winner: "local", events: [event("conflict", "local")])
        case .keepServer:
            return Resolution(record: server, winner: "server", events: [event("conflict", "server")])
        case .lastWrite:
            // REC-CONF-002: the later write wins; equal times fall to the greater canonical (JCS)
            // text of the fields, so every device picks the same winner whichever side it is on.
            let l = writeTime(local) ?? 0
            let s = writeTime(server) ?? 0
            let localWins: Bool
            if l != s {
                localWins = l > s
            } else {
                let lt = JSONSerializer.canonical(local["fields"] ?? .null)
                let st = JSONSerializer.canonical(server["fields"] ?? .null)
                localWins = lt.utf8.lexicographicallyPrecedes(st.utf8) == false && !lt.bytesEqual(st)
            }
            return localWins
                ? Resolution(record: saved(local["fields"]), winner: "local", events: [event("conflict", "local")])
                : Resolution(record: server, winner: "server", events: [event("conflict", "server")])
        case .merge:
            // REC-CONF-004: property by property, a field the client changed since the ancestor
            // keeps the client's value ("object trumps"); every other field takes the server's.
            let a = ancestor?["fields"]?.objectValue ?? JSONObject()
            let l = local["fields"]?.objectValue ?? JSONObject()
            let s = server["fields"]?.objectValue ?? JSONObject()
            var names: [String] = []
            for name in s.keys + l.keys + a.keys where !names.contains(name) { names.append(name) }
            var merged = JSONObject()
            for name in names {
                let value = l[name] != a[name] ? l[name] : s[name]
                if let value { merged[name] = value }
            }
            return Resolution(record: saved(.object(merged)), winner: "merged", events: [event("conflict", "merged")])
        }
    }

    static func event(_ type: String, _ winner: String) -> JSONValue {
        ["eventType": .string(type), "winner": .string(winner)]
    }
}

/// A record zone as the server keeps it, for the optimistic-concurrency rule (REC-CONF-001): a
/// save must name the record's current change tag; a stale tag yields `serverRecordChanged`
/// with the client's record, the server's, and the ancestor (the version the stale tag names).
public struct RecordZone: Machine {
    public private(set) var records: [String: JSONValue] = [:]
    /// Every version ever saved, by change tag: the ancestors of later conflicts.
    private var history: [String: JSONValue] = [:]
    private var counter = 0

    public enum Event: Sendable, Hashable {
        /// `force` is seed 004 §6's forced save: it overwrites whatever the server has.
        case save(JSONValue, force: Bool)
    }

    public enum Action: Sendable, Hashable {
        case saved(recordChangeTag: String)
        case serverRecordChanged(client: JSONValue, server: JSONValue, ancestor: JSONValue?)
    }

    public init() {}

    public mutating func step(_ event: Event) -> Step<Action> {
        switch event {
        case .save(let record, let force): return [save(record, force: force)]
        }
    }

    private mutating func save(_ record: JSONValue, force: Bool) -> Action {
        let name = record["recordName"]?.stringValue ?? ""
        if let current = records[name], !force {
            let sent = record["recordChangeTag"]?.stringValue
            if sent != current["recordChangeTag"]?.stringValue {
                // Tags count every save of the zone: another record's tag names no ancestor of this one.
                let ancestor = sent.flatMap { history[$0] }.flatMap { $0["recordName"]?.stringValue == name ? $0 : nil }
                return .serverRecordChanged(client: record, server: current, ancestor: ancestor)
            }
        }
        counter += 1
        let tag = "t\(counter)"
        var stored = record.objectValue ?? JSONObject()
        stored["recordChangeTag"] = .string(tag)
        records[name] = .object(stored)
        history[tag] = .object(stored)
        return .saved(recordChangeTag: tag)
    }
}
