import Foundation
import Migration
import WireCore

/// The session log (Conformance/session-log.md): JSON Lines, a header line, then one line per
/// `WireEvent` in the order they happened. An app can write the same format from its own logs
/// and have `conformance check --session FILE` judge it.
public enum SessionLog {
    /// 2 logs the pong a client's ping frame got from the watch's transport; a version 1 log
    /// left it out (it was always sent), and is read with it put back.
    public static let version: Int64 = 2
    /// The size a watch's log stops at unless told otherwise (`--log-limit-mb`): a 2 GiB
    /// migration logs about 100 MB (chunks by head and digest); a flood stops here.
    public static let defaultLimit = 128 << 20
    /// The largest log read or written (`check --session` refuses a larger file unread).
    public static let maxBytes = 1 << 30

    /// What the first line says: the family, when the watch began, the names given to peer ids.
    public struct Header: Sendable, Hashable {
        public var family: String
        public var startedAt: EpochMillis
        /// `--name PEERID=LABEL`, as given.
        public var names: [String: String]
        /// Binary frames up to this many bytes are logged whole.
        public var binaryCap: Int
        /// How the frames were judged (the family judge's options), so a replay judges alike.
        public var judge: JSONObject

        public init(family: String, startedAt: EpochMillis, names: [String: String] = [:], binaryCap: Int = 4096, judge: JSONObject = JSONObject()) {
            self.family = family
            self.startedAt = startedAt
            self.names = names
            self.binaryCap = binaryCap
            self.judge = judge
        }
    }

    public static func line(_ header: Header) -> String {
        var names = JSONObject()
        for key in header.names.keys.sorted() { names[key] = .string(header.names[key]!) }
        let o = JSONObject([
            "sessionLog": .number(JSONNumber(version)), "family": .string(header.family), "startedAt": .number(JSONNumber(header.startedAt)),
            "binaryCap": .number(JSONNumber(Int64(header.binaryCap))), "names": .object(names), "judge": .object(header.judge),
        ])
        return JSONSerializer.compact(.object(o))
    }

    public static func line(_ event: WireEvent) -> String { JSONSerializer.compact(json(event)) }

    /// An event as its line's object (a live case's wire log in a report holds these).
    public static func json(_ event: WireEvent) -> JSONValue {
        var o = JSONObject(["t": .number(JSONNumber(event.at)), "conn": .number(JSONNumber(Int64(event.connection)))])
        switch event.body {
        case .open(let peer, let path):
            o["open"] = ["peer": .string(peer), "path": .string(path)]
        case .owner(let label):
            o["owner"] = .string(label)
        case .text(let from, let text):
            o["from"] = .string(from.rawValue)
            o["text"] = .string(text)
        case .binary(let from, let frame):
            o["from"] = .string(from.rawValue)
            var b = JSONObject([
                "length": .number(JSONNumber(Int64(frame.length))), "head": .string(Data(frame.head).base64EncodedString()),
                "restSHA256": .string(frame.restSHA256),
            ])
            if let bytes = frame.bytes { b["base64"] = .string(Data(bytes).base64EncodedString()) }
            o["binary"] = .object(b)
        case .ping(let from):
            o["from"] = .string(from.rawValue)
            o["ping"] = true
        case .pong(let from):
            o["from"] = .string(from.rawValue)
            o["pong"] = true
        case .envelope(let sha256, let length):
            o["envelope"] = ["sha256": .string(sha256), "length": .number(JSONNumber(length))]
        case .segments(let opened, let refused):
            var g = JSONObject(["opened": .number(JSONNumber(Int64(opened)))])
            if let refused {
                var r = JSONObject(["code": .string(refused.code.rawValue), "path": .string(refused.path.description), "detail": .string(refused.detail)])
                if let at = refused.byteOffset { r["byteOffset"] = .number(JSONNumber(Int64(at))) }
                g["refused"] = .object(r)
            }
            o["segments"] = .object(g)
        case .close(let by, let code):
            var c = JSONObject()
            if let by { c["by"] = .string(by.rawValue) }
            if let code { c["code"] = .number(JSONNumber(Int64(code))) }
            o["close"] = .object(c)
        }
        return .object(o)
    }

    /// An event read back from its line's object.
    public static func event(from value: JSONValue) throws(Violation) -> WireEvent {
        try event(try ObjectReader(document: value))
    }

    /// The last line: when the watch ended (what was still open is judged as of then).
    public static func endLine(at: EpochMillis) -> String {
        JSONSerializer.compact(["t": .number(JSONNumber(at)), "end": true])
    }

    /// A log that cannot be read, with the line and member that break it.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var line: Int
        public var violation: Violation
        public var description: String { "line \(line): \(violation.path.description.isEmpty ? "the line" : "member \(violation.path)"): expected \(violation.expected), found \(violation.found)" }
    }

    /// A log as read: its header, its events, and when the watch ended (nil when the log stops
    /// without an end line: the watch was killed, or an app wrote it).
    public struct Contents: Sendable {
        public var header: Header
        public var events: [WireEvent]
        public var endedAt: EpochMillis?
    }

    /// Reads a whole log. Lines are limited like any document.
    public static func read(_ bytes: [UInt8]) throws(Problem) -> Contents {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else {
            throw Problem(line: 1, violation: Violation(rule: CoreRule.syntax, path: .root, expected: "a session log header", found: "an empty file"))
        }
        var pongsUnwritten = false
        let header = try decode(line: 1, first) { (r: ObjectReader) throws(Violation) in
            let version = try r.integer("sessionLog")
            guard (1...Self.version).contains(version) else {
                throw Violation(rule: CoreRule.type, path: r.pointer("sessionLog"), expected: "1 to \(Self.version)", found: "\(version)")
            }
            pongsUnwritten = version == 1
            var names: [String: String] = [:]
            if let o = try r.optionalObjectReader("names") {
                // Member by member: a lookup by name is a scan, so 20,000 names once took minutes.
                for member in o.object.members { names[member.key] = try asString(member.value, at: o.pointer(member.key)) }
            }
            return Header(
                family: try r.string("family"), startedAt: try r.integer("startedAt"), names: names,
                binaryCap: Int(try r.optionalInteger("binaryCap") ?? 4096), judge: try r.optionalObjectReader("judge")?.object ?? JSONObject())
        }
        var events: [WireEvent] = []
        var endedAt: EpochMillis?
        events.reserveCapacity(lines.count - 1)
        for (i, text) in lines.enumerated().dropFirst() where !text.isEmpty {
            if endedAt != nil {
                throw Problem(line: i + 1, violation: Violation(rule: CoreRule.type, path: .root, expected: "nothing after the end line", found: "another line"))
            }
            let line = try decode(line: i + 1, text) { (r: ObjectReader) throws(Violation) -> WireEvent? in
                if r.raw("end") != nil {
                    endedAt = try r.integer("t")
                    return nil
                }
                return try event(r)
            }
            guard let line else { continue }
            events.append(line)
            if pongsUnwritten, case .ping(.client) = line.body { events.append(WireEvent(at: line.at, connection: line.connection, .pong(from: .server))) }
        }
        return Contents(header: header, events: events, endedAt: endedAt)
    }

    private static func decode<T>(line: Int, _ bytes: ArraySlice<UInt8>, _ body: (ObjectReader) throws(Violation) -> T) throws(Problem) -> T {
        do throws(Violation) {
            return try body(try ObjectReader(document: try JSONParser.parse(Array(bytes), limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 16))))
        } catch {
            throw Problem(line: line, violation: error)
        }
    }

    private static func event(_ r: ObjectReader) throws(Violation) -> WireEvent {
        let at = try r.integer("t")
        let connection = Int(clamping: try r.integer("conn"))
        func side() throws(Violation) -> WireEvent.Side {
            let text = try r.string("from")
            guard let side = WireEvent.Side(rawValue: text) else {
                throw Violation(rule: CoreRule.type, path: r.pointer("from"), expected: "client or server", found: JSONSerializer.quoted(text))
            }
            return side
        }
        if let open = try r.optionalObjectReader("open") {
            return WireEvent(at: at, connection: connection, .open(peer: try open.string("peer"), path: try open.string("path")))
        }
        if let owner = try r.optionalString("owner") { return WireEvent(at: at, connection: connection, .owner(owner)) }
        if let text = try r.optionalString("text") { return WireEvent(at: at, connection: connection, .text(from: try side(), text)) }
        if let binary = try r.optionalObjectReader("binary") {
            func base64(_ key: String) throws(Violation) -> [UInt8]? {
                guard let text = try binary.optionalString(key) else { return nil }
                guard let data = Data(base64Encoded: text) else {
                    throw Violation(rule: CoreRule.type, path: binary.pointer(key), expected: "base64", found: "invalid base64")
                }
                return [UInt8](data)
            }
            let frame = WireEvent.BinaryFrame(
                length: Int(clamping: try binary.integer("length")), head: try base64("head") ?? [], restSHA256: try binary.string("restSHA256"),
                bytes: try base64("base64"))
            return WireEvent(at: at, connection: connection, .binary(from: try side(), frame))
        }
        if r.raw("ping") != nil, try r.bool("ping") { return WireEvent(at: at, connection: connection, .ping(from: try side())) }
        if r.raw("pong") != nil, try r.bool("pong") { return WireEvent(at: at, connection: connection, .pong(from: try side())) }
        if let envelope = try r.optionalObjectReader("envelope") {
            return WireEvent(at: at, connection: connection, .envelope(sha256: try envelope.string("sha256"), length: try envelope.integer("length")))
        }
        if let segments = try r.optionalObjectReader("segments") {
            var refused: EnvelopeError?
            if let e = try segments.optionalObjectReader("refused") {
                let code = try e.string("code")
                guard let c = EnvelopeError.Code(rawValue: code) else {
                    throw Violation(rule: CoreRule.type, path: e.pointer("code"), expected: EnvelopeError.Code.allCases.map(\.rawValue).joined(separator: ", "), found: JSONSerializer.quoted(code))
                }
                let path = try e.string("path")
                guard let pointer = JSONPointer(path) else {
                    throw Violation(rule: CoreRule.type, path: e.pointer("path"), expected: "a JSON Pointer", found: JSONSerializer.quoted(path))
                }
                refused = EnvelopeError(c, pointer, at: try e.optionalInteger("byteOffset").map { Int(clamping: $0) }, try e.string("detail"))
            }
            return WireEvent(at: at, connection: connection, .segments(opened: Int(clamping: try segments.integer("opened")), refused: refused))
        }
        if let close = try r.optionalObjectReader("close") {
            let by = try close.optionalString("by").flatMap(WireEvent.Side.init(rawValue:))
            return WireEvent(at: at, connection: connection, .close(by: by, code: try close.optionalInteger("code").map { Int(clamping: $0) }))
        }
        throw Violation(rule: CoreRule.type, path: .root, expected: "one of open, text, binary, ping, pong, close, envelope, segments", found: "none of them")
    }
}
