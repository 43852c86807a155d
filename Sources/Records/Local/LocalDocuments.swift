import Foundation
import WireCore

/// ISO 8601 with milliseconds in UTC, exactly `YYYY-MM-DDTHH:MM:SS.sssZ` (seed 001: "ISO 8601
/// 格式，毫秒精度"; REC-TIME-002). Returns epoch milliseconds.
public func parseISOMillis(_ text: String) -> Int64? {
    let b = Array(text.utf8)
    guard b.count == 24, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x2E, b[23] == 0x5A else { return nil }
    func number(_ range: Range<Int>) -> Int? {
        var n = 0
        for i in range {
            guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
            n = n * 10 + Int(b[i] - 0x30)
        }
        return n
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
        let minute = number(14..<16), let second = number(17..<19), let millis = number(20..<23),
        (1...12).contains(month), hour < 24, minute < 60, second < 60, year >= 1970
    else { return nil }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard (1...lengths[month - 1]).contains(day) else { return nil }
    // Days from 1970-01-01 (proleptic Gregorian).
    var days = 0
    for y in 1970..<year { days += ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0) ? 366 : 365 }
    for m in 0..<(month - 1) { days += lengths[m] }
    days += day - 1
    return Int64(days) * 86_400_000 + Int64(hour * 3_600_000 + minute * 60_000 + second * 1000 + millis)
}

public func formatISOMillis(_ ms: Int64) -> String {
    let date = Date(timeIntervalSince1970: TimeInterval(ms) / 1000)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    func pad(_ v: Int?, _ w: Int) -> String {
        let s = String(v ?? 0)
        return String(repeating: "0", count: max(0, w - s.count)) + s
    }
    return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)).\(pad(Int(ms % 1000), 3))Z"
}

enum LocalFields {
    static func iso(_ r: ObjectReader, _ key: String, required: Bool) throws(Violation) -> Int64? {
        guard let text = required ? try r.string(key) : try r.optionalString(key) else { return nil }
        guard let ms = parseISOMillis(text) else {
            throw Violation(rule: RecordRule.isoTime, path: r.pointer(key), expected: "ISO 8601 UTC with milliseconds, YYYY-MM-DDTHH:MM:SS.sssZ", found: JSONSerializer.quoted(text))
        }
        return ms
    }

    static func uuid(_ r: ObjectReader, _ key: String, rule: RuleID) throws(Violation) -> String {
        let text = try r.string(key)
        guard isUUIDText(text) else {
            throw Violation(rule: rule, path: r.pointer(key), expected: "a UUID", found: JSONSerializer.quoted(text))
        }
        return text
    }
}

/// A `SyncState` as the app stores it (seed 001 §2), times in ISO 8601.
public struct SyncStateDocument: Sendable, Hashable {
    public var ideaId: String
    public var localVersion: Int64
    public var remoteVersion: Int64?
    public var cloudKitRecordName: String?
    public var lastSyncedAt: Int64?
    public var lastConflictAt: Int64?
    public var lastModifiedAt: Int64
    public var isPendingSync: Bool
    public var isObsolete: Bool

    public static let keys = [
        "ideaId", "localVersion", "remoteVersion", "cloudKitRecordName", "lastSyncedAt", "lastConflictAt", "lastModifiedAt",
        "isPendingSync", "isObsolete", "conflictResolutionStrategy",
    ]

    public static func decode(_ document: JSONValue) throws(Violation) -> SyncStateDocument {
        let r = try ObjectReader(document: document)
        let ideaId = try LocalFields.uuid(r, "ideaId", rule: RecordRule.syncState)
        let local = try r.integer("localVersion")
        guard local >= 0 else { throw Violation(rule: RecordRule.syncState, path: r.pointer("localVersion"), expected: "≥ 0", found: "\(local)") }
        let remote = try r.optionalInteger("remoteVersion")
        if let remote, remote < 0 { throw Violation(rule: RecordRule.syncState, path: r.pointer("remoteVersion"), expected: "≥ 0", found: "\(remote)") }
        let recordName = try r.optionalString("cloudKitRecordName")
        if let recordName { try checkRecordName(recordName, at: r.pointer("cloudKitRecordName")) }
        let synced = try LocalFields.iso(r, "lastSyncedAt", required: false)
        let conflict = try LocalFields.iso(r, "lastConflictAt", required: false)
        let modified = try LocalFields.iso(r, "lastModifiedAt", required: true) ?? 0
        let pending = try r.bool("isPendingSync")
        let obsolete = try r.bool("isObsolete")
        let strategy = try r.string("conflictResolutionStrategy")
        guard strategy == "lastWrite" else {
            throw Violation(rule: RecordRule.syncState, path: r.pointer("conflictResolutionStrategy"), expected: "\"lastWrite\" (the only strategy of seed 001)", found: JSONSerializer.quoted(strategy))
        }
        // REC-SYNC-002: a first successful sync sets remoteVersion, cloudKitRecordName and lastSyncedAt together.
        let syncedMembers = [remote != nil, recordName != nil, synced != nil]
        if syncedMembers.contains(true) && syncedMembers.contains(false) {
            let missing = ["remoteVersion", "cloudKitRecordName", "lastSyncedAt"][syncedMembers.firstIndex(of: false) ?? 0]
            throw Violation(rule: RecordRule.syncStateConsistency, path: r.pointer(missing), expected: "given with the other results of a sync", found: "absent")
        }
        if !pending && synced == nil {
            throw Violation(rule: RecordRule.syncStateConsistency, path: r.pointer("isPendingSync"), expected: "true until a first sync succeeded", found: "false")
        }
        if let remote, remote > local {
            throw Violation(rule: RecordRule.syncStateConsistency, path: r.pointer("remoteVersion"), expected: "at most localVersion \(local)", found: "\(remote)")
        }
        return SyncStateDocument(
            ideaId: ideaId, localVersion: local, remoteVersion: remote, cloudKitRecordName: recordName, lastSyncedAt: synced,
            lastConflictAt: conflict, lastModifiedAt: modified, isPendingSync: pending, isObsolete: obsolete)
    }
}

/// A `SyncLog` entry (seed 001 §3).
public struct SyncLogDocument: Sendable, Hashable {
    public var id: String
    public var ideaId: String
    public var eventType: String
    public var timestamp: Int64

    public static let eventTypes = ["sync_success", "sync_failure", "conflict", "retry"]
    public static let keys = ["id", "ideaId", "eventType", "timestamp", "details", "deviceId", "errorCode"]

    public static func decode(_ document: JSONValue) throws(Violation) -> SyncLogDocument {
        let r = try ObjectReader(document: document)
        let id = try LocalFields.uuid(r, "id", rule: RecordRule.syncLog)
        let ideaId = try LocalFields.uuid(r, "ideaId", rule: RecordRule.syncLog)
        let type = try r.string("eventType")
        guard eventTypes.contains(type) else {
            throw Violation(rule: RecordRule.syncLog, path: r.pointer("eventType"), expected: eventTypes.joined(separator: ", "), found: JSONSerializer.quoted(type))
        }
        let timestamp = try LocalFields.iso(r, "timestamp", required: true) ?? 0
        if let details = try r.optionalString("details"), (try? JSONParser.parse(details)) == nil {
            throw Violation(rule: RecordRule.syncLog, path: r.pointer("details"), expected: "JSON text (seed 001: 詳細信息（JSON 格式）)", found: "not JSON")
        }
        let device = try r.string("deviceId")
        if device.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            throw Violation(rule: RecordRule.syncLog, path: r.pointer("deviceId"), expected: "a non-blank device id", found: JSONSerializer.quoted(device))
        }
        _ = try r.optionalInteger("errorCode")
        return SyncLogDocument(id: id, ideaId: ideaId, eventType: type, timestamp: timestamp)
    }
}
