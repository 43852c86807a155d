import Foundation
import Records
import TesteeProtocol
import WireCore

/// The records family (Spec records.md) behind the kit's JSON interface. Kinds: each record
/// type (checked as a CloudKit Web Services record of that type), `sync-state`, `sync-log`,
/// `conflict`, `model`, `xcdatamodel`, and `mirrored-record` (a record checked against the record
/// types derived from the app's own model, given in `context.model`).
public struct RecordsFamily: ConformanceFamily {
    public init() {}

    public let name = "records"
    public var registration: FamilyRegistration {
        var r = FamilyRegistration(rulePrefix: "REC", chapter: "records")
        r.summaryKinds = ["conflict", "model", "xcdatamodel"]
        r.generators = [.init("gen_records_vectors", writes: "Vectors/records")]
        return r
    }
    public var kinds: [String] { Models.all.map(\.recordType) + ["sync-state", "sync-log", "conflict", "model", "xcdatamodel", "mirrored-record"] }
    public var machineRegistrations: [MachineRegistration] { RecordsMachineJSON.machines }
    public var rules: [RuleID] { RecordRule.all }

    public func kind(forType type: String) -> String? { nil }

    /// A CloudKit record by its `recordType` (refused with the nearest known types when the
    /// Spec has no such type); a model by its `entities`.
    public func detectKind(_ document: JSONValue) -> KindDetection? {
        if case .string(let recordType)? = document["recordType"] {
            guard Models.named(recordType) == nil else { return .kind(recordType) }
            let known = Models.all.map(\.recordType)
            return .refused(
                Violation(
                    rule: RecordRule.recordType, path: .root / "recordType",
                    expected: "a record type, e.g. " + DocumentChecker.closestNames(to: recordType, in: known).map(JSONSerializer.quoted).joined(separator: " or "),
                    found: JSONSerializer.quoted(recordType)))
        }
        if document["entities"] != nil { return .kind("model") }
        return nil
    }

    public func validate(kind: String, document: [UInt8], context: JSONValue) -> Outcome {
        if kind == "xcdatamodel" { return xcdatamodel(document, context: context) }
        // The writer's zone, for day-valued fields (REC-HLOG-002).
        var timeZone: TimeZone?
        if let name = context["timeZone"]?.stringValue {
            guard let zone = TimeZone(identifier: name) else { return .invalidRequest(reason: "context.timeZone \(name) is not a time zone identifier") }
            timeZone = zone
        }
        let value: JSONValue
        do throws(Violation) {
            value = try JSONParser.parse(document)
        } catch {
            return .reject([error])
        }
        do throws(Violation) {
            switch kind {
            case "sync-state":
                _ = try SyncStateDocument.decode(value)
                return .accept(canonical: try ObjectReader(document: value).givenMembers(SyncStateDocument.keys))
            case "sync-log":
                _ = try SyncLogDocument.decode(value)
                return .accept(canonical: try ObjectReader(document: value).givenMembers(SyncLogDocument.keys))
            case "conflict":
                return .accept(canonical: try conflict(value))
            case "mirrored-record":
                guard let model = context["model"], model != .null else {
                    return .invalidRequest(reason: "a mirrored-record is checked against context.model (the app's Core Data model: its JSON form, or Xcode's XML as a string)")
                }
                let json: JSONValue
                if case .string(let xml) = model {
                    do throws(CoreDataModelXML.Problem) {
                        json = try CoreDataModelXML.read(Array(xml.utf8))
                    } catch {
                        return .invalidRequest(reason: "context.model: \(error.description)")
                    }
                } else {
                    json = model
                }
                let types: [RecordModel]
                do throws(Violation) {
                    types = try MirroredRecordTypes.derive(from: json)
                } catch {
                    return .invalidRequest(reason: "context.model is not a model: \(error.description)")
                }
                // context.strictFields: the model is the writer's newest (REC-CD-002).
                return record(value, as: nil, in: CloudRecord.Context(models: types, timeZone: timeZone, strictFields: context["strictFields"] == .bool(true)))
            case "model":
                let previous: JSONValue?
                switch Self.previousModel(context) {
                case .success(let model): previous = model
                case .failure(let problem): return .invalidRequest(reason: "context.previous: \(problem.description)")
                }
                let findings = try ModelChecker.check(value, previous: previous)
                if !findings.isEmpty { return .reject(findings) }
                let names = (value["entities"]?.arrayValue ?? []).compactMap { $0["name"] }
                return .accept(canonical: ["entities": .array(names)])
            default:
                guard Models.named(kind) != nil else { return .unsupported(reason: "the records family has no kind \(kind)") }
                return record(value, as: kind, in: CloudRecord.Context(timeZone: timeZone))
            }
        } catch {
            return .reject([error])
        }
    }

    func record(_ value: JSONValue, as kind: String?, in context: CloudRecord.Context) -> Outcome {
        switch CloudRecord.check(value, as: kind, in: context) {
        case .success(let record): return .accept(canonical: record.canonical)
        case .failure(let list): return .reject(list.all, omitted: list.omitted)
        }
    }

    /// An `.xcdatamodel`'s `contents` (Xcode's XML) checked like a JSON model; `context.previous`
    /// is the previous version's `contents` as a string.
    func xcdatamodel(_ document: [UInt8], context: JSONValue) -> Outcome {
        let model: JSONValue
        let previous: JSONValue?
        do throws(CoreDataModelXML.Problem) {
            model = try CoreDataModelXML.read(document)
        } catch {
            return .invalidRequest(reason: error.description)
        }
        switch Self.previousModel(context) {
        case .success(let value): previous = value
        case .failure(let problem): return .invalidRequest(reason: "context.previous: \(problem.description)")
        }
        do throws(Violation) {
            let findings = try ModelChecker.check(model, previous: previous)
            if !findings.isEmpty { return .reject(findings) }
            return .accept(canonical: ["entities": .array((model["entities"]?.arrayValue ?? []).compactMap { $0["name"] })])
        } catch {
            return .reject([error])
        }
    }

    /// `context.previous` in either form a model comes in: Xcode's XML as a string (its JSON form
    /// read from it), or the JSON form itself; absent or null, none.
    static func previousModel(_ context: JSONValue) -> Result<JSONValue?, PreviousModelProblem> {
        switch context["previous"] {
        case nil, .null?: return .success(nil)
        case .string(let text)?:
            do throws(CoreDataModelXML.Problem) {
                return .success(try CoreDataModelXML.read(Array(text.utf8)))
            } catch {
                return .failure(PreviousModelProblem(description: error.description))
            }
        case let value?:
            // A previous version that is not a model is the request's fault: its path would point
            // into the context, not into the document checked.
            do throws(Violation) {
                _ = try MirroredRecordTypes.derive(from: value)
                return .success(value)
            } catch {
                return .failure(PreviousModelProblem(description: "not a model in the JSON form: \(error.description)"))
            }
        }
    }

    struct PreviousModelProblem: Error, CustomStringConvertible {
        var description: String
    }

    /// `{strategy, ancestor?, local, server}` → the record to save, the winner, the SyncLog events.
    func conflict(_ value: JSONValue) throws(Violation) -> JSONValue {
        let r = try ObjectReader(document: value)
        let name = try r.string("strategy")
        guard let strategy = ConflictResolver.Strategy(rawValue: name) else {
            throw Violation(
                rule: RecordRule.userChoice, path: r.pointer("strategy"),
                expected: ConflictResolver.Strategy.allCases.map(\.rawValue).joined(separator: ", "), found: JSONSerializer.quoted(name))
        }
        func record(_ key: String) throws(Violation) -> CloudRecord? {
            guard let raw = r.optional(key) else { return nil }
            do throws(Violation) {
                return try CloudRecord.decode(raw)
            } catch {
                throw error.nested(under: r.pointer(key))
            }
        }
        let ancestor = try record("ancestor")
        // Required: absent is CORE-TYPE-001, null CORE-TYPE-002 (ObjectReader.required says which).
        guard let local = try record("local") else {
            _ = try r.required("local", expecting: "the client's record")
            throw Violation(rule: CoreRule.required, path: r.pointer("local"), expected: "the client's record", found: "absent")
        }
        guard let server = try record("server") else {
            _ = try r.required("server", expecting: "the server's record")
            throw Violation(rule: CoreRule.required, path: r.pointer("server"), expected: "the server's record", found: "absent")
        }
        for (key, other) in [("server", server), ("ancestor", ancestor)] {
            guard let other else { continue }
            guard other.decoded.recordName == local.decoded.recordName, other.decoded.recordType == local.decoded.recordType else {
                throw Violation(
                    rule: RecordRule.staleTag, path: r.pointer(key) / "recordName", expected: "the same record as local (\(local.decoded.recordName))",
                    found: JSONSerializer.quoted(other.decoded.recordName))
            }
        }
        if strategy == .lastWrite {
            for (key, side) in [("local", local), ("server", server)] where ConflictResolver.writeTime(side.canonical) == nil {
                throw Violation(
                    rule: RecordRule.lastWrite, path: r.pointer(key) / "modified",
                    expected: "a write time: an updatedAt field or a modified timestamp", found: "neither")
            }
        }
        if strategy == .merge && ancestor == nil {
            throw Violation(rule: RecordRule.propertyMerge, path: r.pointer("ancestor"), expected: "the ancestor record (a merge compares both sides to it)", found: "absent")
        }
        let resolution = ConflictResolver.resolve(
            ancestor: ancestor?.canonical, local: local.canonical, server: server.canonical, strategy: strategy)
        return ["record": resolution.record, "winner": .string(resolution.winner), "events": .array(resolution.events)]
    }
}
