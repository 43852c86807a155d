import Foundation
import WireCore

extension ControlMessage {
    /// Reads `{type, payload}`; the first failing check is reported (Spec migration.md §5.1).
    public static func decode(_ document: JSONValue) throws(Violation) -> ControlMessage {
        let r = try ObjectReader(document: document)
        let type = try r.string("type")
        guard types.contains(type) else {
            throw Violation(rule: MigrationRule.message, path: r.pointer("type"), expected: "one of " + types.joined(separator: ", "), found: JSONSerializer.quoted(type))
        }
        let p = try r.objectReader("payload")
        switch type {
        case "Handshake": return .handshake(try handshake(p))
        case "AuthPIN": return .authPIN(try authPIN(p))
        case "StartBackup": return .startBackup
        case "BackupMeta": return .backupMeta(try backupMeta(p))
        case "StartTransfer": return .startTransfer(backupId: try MigrationFields.uuid(p, "backupId"), window: try window(p, required: true) ?? 1)
        case "PauseTransfer": return .pauseTransfer(backupId: try MigrationFields.uuid(p, "backupId"))
        case "ResumeTransfer": return .resumeTransfer(try resume(p))
        case "CancelTransfer":
            let id = try MigrationFields.optionalUUID(p, "backupId")
            let text = try p.string("reason")
            guard let reason = CancelReason(rawValue: text) else {
                throw Violation(
                    rule: MigrationRule.cancel, path: p.pointer("reason"), expected: CancelReason.allCases.map(\.rawValue).joined(separator: ", "),
                    found: JSONSerializer.quoted(text))
            }
            return .cancelTransfer(backupId: id, reason: reason)
        case "ChunkAck":
            let id = try MigrationFields.uuid(p, "backupId")
            let index = try MigrationFields.nonNegative(p, "index", rule: MigrationRule.chunkAck)
            let text = try p.string("status")
            guard let status = ChunkStatus(rawValue: text) else {
                throw Violation(rule: MigrationRule.chunkAck, path: p.pointer("status"), expected: "\"ok\" or \"retransmit\"", found: JSONSerializer.quoted(text))
            }
            return .chunkAck(backupId: id, index: Int(index), status: status)
        default:
            return .complete(try complete(p))
        }
    }

    static func handshake(_ p: ObjectReader) throws(Violation) -> Handshake {
        let version = try p.integer("protocolVersion")
        guard version == 1 else {
            throw Violation(rule: MigrationRule.handshake, path: p.pointer("protocolVersion"), expected: "1", found: "\(version)")
        }
        let roleText = try p.string("role")
        guard let role = Handshake.Role(rawValue: roleText) else {
            throw Violation(rule: MigrationRule.handshake, path: p.pointer("role"), expected: "\"sender\" or \"receiver\"", found: JSONSerializer.quoted(roleText))
        }
        let session = try MigrationFields.uuid(p, "sessionId")
        let app = try MigrationFields.nonBlank(p, "appVersion", rule: MigrationRule.handshake)
        let schema = try p.integer("schemaVersion")
        guard schema >= 1 else { throw Violation(rule: MigrationRule.handshake, path: p.pointer("schemaVersion"), expected: "≥ 1", found: "\(schema)") }
        let device = try MigrationFields.nonBlank(try p.objectReader("device"), "name", rule: MigrationRule.handshake)
        let window = try p.integer("maxWindow")
        guard (1...Int64(maxWindow)).contains(window) else {
            throw Violation(rule: MigrationRule.handshake, path: p.pointer("maxWindow"), expected: "1...\(maxWindow)", found: "\(window)")
        }
        let chunk = try p.integer("maxChunkSize")
        guard chunkSizes.contains(Int(clamping: chunk)) else {
            throw Violation(rule: MigrationRule.handshake, path: p.pointer("maxChunkSize"), expected: "4096...16777216", found: "\(chunk)")
        }
        return Handshake(role: role, sessionId: session, appVersion: app, schemaVersion: schema, deviceName: device, maxWindow: Int(window), maxChunkSize: Int(chunk))
    }

    static func authPIN(_ p: ObjectReader) throws(Violation) -> AuthPIN {
        let hasPIN = p.optional("pin") != nil
        let hasResult = p.optional("result") != nil
        guard hasPIN != hasResult else {
            throw Violation(rule: MigrationRule.authPIN, path: p.path, expected: "either a pin (request) or a result", found: hasPIN ? "both" : "neither")
        }
        if hasPIN {
            let pin = try p.string("pin")
            guard SixDigitCode.isValid(pin) else {
                throw Violation(rule: MigrationRule.authPIN, path: p.pointer("pin"), expected: "six ASCII digits", found: JSONSerializer.quoted(pin))
            }
            return .request(pin: pin)
        }
        switch try p.string("result") {
        case "accepted":
            let token = try p.string("resumeToken")
            guard token.utf8.count == 32, token.utf8.allSatisfy({ Hex.isDigit($0) && !($0 >= 0x41 && $0 <= 0x46) }) else {
                throw Violation(rule: MigrationRule.authPIN, path: p.pointer("resumeToken"), expected: "32 lower-case hex digits", found: JSONSerializer.quoted(token))
            }
            return .accepted(resumeToken: token)
        case "rejected":
            let left = try p.integer("attemptsLeft")
            guard (1...4).contains(left) else {
                throw Violation(rule: MigrationRule.authPIN, path: p.pointer("attemptsLeft"), expected: "1...4 (0 left is \"locked\")", found: "\(left)")
            }
            return .rejected(attemptsLeft: Int(left))
        case "locked":
            return .locked
        case let other:
            throw Violation(rule: MigrationRule.authPIN, path: p.pointer("result"), expected: "accepted, rejected or locked", found: JSONSerializer.quoted(other))
        }
    }

    static func backupMeta(_ p: ObjectReader) throws(Violation) -> BackupMeta {
        let id = try MigrationFields.uuid(p, "backupId")
        let size = try p.integer("fileSize")
        guard size >= Int64(EnvelopeHeader.length) else {
            throw Violation(rule: MigrationRule.backupMeta, path: p.pointer("fileSize"), expected: "at least an envelope header (97 bytes)", found: "\(size)")
        }
        let chunk = try p.integer("chunkSize")
        guard chunkSizes.contains(Int(clamping: chunk)) else {
            throw Violation(rule: MigrationRule.backupMeta, path: p.pointer("chunkSize"), expected: "4096...16777216", found: "\(chunk)")
        }
        let count = try p.integer("chunkCount")
        let expected = (size + chunk - 1) / chunk
        guard count == expected else {
            throw Violation(rule: MigrationRule.backupMeta, path: p.pointer("chunkCount"), expected: "\(expected) (⌈fileSize / chunkSize⌉)", found: "\(count)")
        }
        let digest = try p.string("envelopeSHA256")
        guard digest.utf8.count == 64, digest.utf8.allSatisfy({ Hex.isDigit($0) && !($0 >= 0x41 && $0 <= 0x46) }) else {
            throw Violation(rule: MigrationRule.backupMeta, path: p.pointer("envelopeSHA256"), expected: "64 lower-case hex digits", found: JSONSerializer.quoted(digest))
        }
        let zip = try MigrationFields.nonNegative(p, "zipSize", rule: MigrationRule.backupMeta)
        let schema = try p.integer("schemaVersion")
        guard schema >= 1 else { throw Violation(rule: MigrationRule.backupMeta, path: p.pointer("schemaVersion"), expected: "≥ 1", found: "\(schema)") }
        let app = try MigrationFields.nonBlank(p, "appVersion", rule: MigrationRule.backupMeta)
        var header: [UInt8]?
        if let text = try p.optionalString("envelopeHeader") {
            guard let bytes = Data(base64Encoded: text), bytes.count == EnvelopeHeader.length else {
                throw Violation(
                    rule: MigrationRule.backupMeta, path: p.pointer("envelopeHeader"), expected: "base64 of the envelope's first \(EnvelopeHeader.length) bytes",
                    found: JSONSerializer.quoted(text))
            }
            header = [UInt8](bytes)
        }
        return BackupMeta(
            backupId: id, fileSize: size, chunkSize: Int(chunk), envelopeSHA256: digest, zipSize: zip, schemaVersion: schema, appVersion: app,
            envelopeHeader: header)
    }

    static func window(_ p: ObjectReader, required: Bool) throws(Violation) -> Int? {
        guard let w = required ? try p.integer("window") : try p.optionalInteger("window") else { return nil }
        guard (1...Int64(maxWindow)).contains(w) else {
            throw Violation(rule: MigrationRule.transferControl, path: p.pointer("window"), expected: "1...\(maxWindow)", found: "\(w)")
        }
        return Int(w)
    }

    static func resume(_ p: ObjectReader) throws(Violation) -> ResumeTransfer {
        let id = try MigrationFields.uuid(p, "backupId")
        let token = try p.optionalString("resumeToken")
        let haveValue = try p.optionalArray("have")
        guard (token == nil) == (haveValue == nil) else {
            throw Violation(
                rule: MigrationRule.transferControl, path: p.pointer(token == nil ? "resumeToken" : "have"),
                expected: "resumeToken and have together (a resume after a reconnect) or neither (after a pause)", found: "absent")
        }
        var have: [Range<Int>]?
        if let haveValue {
            var ranges: [Range<Int>] = []
            for (i, item) in haveValue.enumerated() {
                let pair = try asArray(item, at: p.pointer("have") / i)
                guard pair.count == 2 else {
                    throw Violation(rule: MigrationRule.transferControl, path: p.pointer("have") / i, expected: "[from, to]", found: item.brief)
                }
                let lo = try asInteger(pair[0], at: p.pointer("have") / i / 0)
                let hi = try asInteger(pair[1], at: p.pointer("have") / i / 1)
                guard lo >= 0, hi > lo, hi <= Int64(UInt32.max), lo > Int64(ranges.last?.upperBound ?? -1) else {
                    throw Violation(
                        rule: MigrationRule.transferControl, path: p.pointer("have") / i,
                        expected: "[from, to) with from < to, sorted, not touching the previous range", found: item.brief)
                }
                ranges.append(Int(lo)..<Int(hi))
            }
            have = ranges
        }
        return ResumeTransfer(backupId: id, resumeToken: token, window: try window(p, required: false), have: have)
    }

    static func complete(_ p: ObjectReader) throws(Violation) -> Complete {
        let id = try MigrationFields.uuid(p, "backupId")
        let sent = p.optional("chunkCount") != nil
        let verdict = p.optional("result") != nil
        guard sent != verdict else {
            throw Violation(
                rule: MigrationRule.complete, path: p.path, expected: "the sender's {chunkCount, envelopeSHA256} or the receiver's {result}",
                found: sent ? "both" : "neither")
        }
        if sent {
            let count = try p.integer("chunkCount")
            guard count >= 1 else { throw Violation(rule: MigrationRule.complete, path: p.pointer("chunkCount"), expected: "≥ 1", found: "\(count)") }
            let digest = try p.string("envelopeSHA256")
            guard digest.utf8.count == 64, digest.utf8.allSatisfy({ Hex.isDigit($0) && !($0 >= 0x41 && $0 <= 0x46) }) else {
                throw Violation(rule: MigrationRule.complete, path: p.pointer("envelopeSHA256"), expected: "64 lower-case hex digits", found: JSONSerializer.quoted(digest))
            }
            return .sent(backupId: id, chunkCount: Int(count), envelopeSHA256: digest)
        }
        switch try p.string("result") {
        case "verified": return .verified(backupId: id)
        case "digest-mismatch": return .digestMismatch(backupId: id)
        case let other:
            throw Violation(rule: MigrationRule.complete, path: p.pointer("result"), expected: "verified or digest-mismatch", found: JSONSerializer.quoted(other))
        }
    }

    /// The canonical JSON of the message (also what goes on the wire).
    public var json: JSONValue {
        func int(_ v: Int) -> JSONValue { .number(JSONNumber(Int64(v))) }
        func int64(_ v: Int64) -> JSONValue { .number(JSONNumber(v)) }
        let type: String
        var p = JSONObject()
        switch self {
        case .handshake(let h):
            type = "Handshake"
            p = JSONObject([
                "protocolVersion": 1, "role": .string(h.role.rawValue), "sessionId": .string(h.sessionId), "appVersion": .string(h.appVersion),
                "schemaVersion": int64(h.schemaVersion), "device": ["name": .string(h.deviceName)], "maxWindow": int(h.maxWindow),
                "maxChunkSize": int(h.maxChunkSize),
            ])
        case .authPIN(let a):
            type = "AuthPIN"
            switch a {
            case .request(let pin): p["pin"] = .string(pin)
            case .accepted(let token): p = JSONObject(["result": "accepted", "resumeToken": .string(token)])
            case .rejected(let left): p = JSONObject(["result": "rejected", "attemptsLeft": int(left)])
            case .locked: p["result"] = "locked"
            }
        case .startBackup:
            type = "StartBackup"
        case .backupMeta(let m):
            type = "BackupMeta"
            p = JSONObject([
                "backupId": .string(m.backupId), "fileSize": int64(m.fileSize), "chunkSize": int(m.chunkSize), "chunkCount": int(m.chunkCount),
                "envelopeSHA256": .string(m.envelopeSHA256), "zipSize": int64(m.zipSize), "schemaVersion": int64(m.schemaVersion),
                "appVersion": .string(m.appVersion),
            ])
            if let header = m.envelopeHeader { p["envelopeHeader"] = .string(Data(header).base64EncodedString()) }
        case .startTransfer(let id, let window):
            type = "StartTransfer"
            p = JSONObject(["backupId": .string(id), "window": int(window)])
        case .pauseTransfer(let id):
            type = "PauseTransfer"
            p["backupId"] = .string(id)
        case .resumeTransfer(let r):
            type = "ResumeTransfer"
            p["backupId"] = .string(r.backupId)
            if let token = r.resumeToken { p["resumeToken"] = .string(token) }
            if let window = r.window { p["window"] = int(window) }
            if let have = r.have { p["have"] = .array(have.map { [int($0.lowerBound), int($0.upperBound)] }) }
        case .cancelTransfer(let id, let reason):
            type = "CancelTransfer"
            if let id { p["backupId"] = .string(id) }
            p["reason"] = .string(reason.rawValue)
        case .chunkAck(let id, let index, let status):
            type = "ChunkAck"
            p = JSONObject(["backupId": .string(id), "index": int(index), "status": .string(status.rawValue)])
        case .complete(let c):
            type = "Complete"
            switch c {
            case .sent(let id, let count, let digest): p = JSONObject(["backupId": .string(id), "chunkCount": int(count), "envelopeSHA256": .string(digest)])
            case .verified(let id): p = JSONObject(["backupId": .string(id), "result": "verified"])
            case .digestMismatch(let id): p = JSONObject(["backupId": .string(id), "result": "digest-mismatch"])
            }
        }
        return ["type": .string(type), "payload": .object(p)]
    }
}
