import Migration
import Records
import WireCore

/// `conformance check`: one document, its kind from `--kind` or its `type` member.
public enum DocumentChecker {
    public struct Result: Sendable {
        public var name: String
        public var kind: String?
        public var violations: [Violation]
        public var canonical: JSONValue?

        public init(name: String, kind: String?, violations: [Violation], canonical: JSONValue?) {
            self.name = name
            self.kind = kind
            self.violations = violations
            self.canonical = canonical
        }
    }

    public static func check(_ bytes: [UInt8], name: String, kind explicitKind: String?, context: JSONValue) -> Result {
        let kind: String
        if let explicitKind {
            kind = explicitKind
        } else {
            switch detectKind(bytes) {
            case .success(let k): kind = k
            case .failure(let v): return Result(name: name, kind: nil, violations: [withSubject(v, name)], canonical: nil)
            }
        }
        guard let family = Families.defining(kind: kind) else {
            let v = Violation(
                rule: CoreRule.knownKind, path: .root / "type", expected: "a known kind", found: JSONSerializer.quoted(kind))
            return Result(name: name, kind: kind, violations: [withSubject(v, name)], canonical: nil)
        }
        switch family.validate(kind: kind, document: bytes, context: context) {
        case .accept(let canonical):
            return Result(name: name, kind: kind, violations: [], canonical: canonical)
        case .reject(let violations):
            return Result(name: name, kind: kind, violations: violations.map { withSubject($0, name) }, canonical: nil)
        case .unsupported(let reason), .invalidRequest(let reason):
            let v = Violation(rule: CoreRule.knownKind, path: .root, expected: "a checkable document", found: reason)
            return Result(name: name, kind: kind, violations: [withSubject(v, name)], canonical: nil)
        case .trace:
            return Result(name: name, kind: kind, violations: [], canonical: nil)
        }
    }

    static func withSubject(_ v: Violation, _ name: String) -> Violation {
        var copy = v
        copy.subject = name
        return copy
    }

    /// The kind a document is, from its `type` (pairing messages, migration control messages),
    /// its `recordType` (records) or its shape (a manifest, an export array, a Core Data model),
    /// or the violation that prevents knowing it, naming the kinds it could be checked as.
    static func detectKind(_ bytes: [UInt8]) -> Swift.Result<String, Violation> {
        do throws(Violation) {
            let value = try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: Families.maxDocumentBytes, maxDepth: 64))
            if case .array(let elements) = value {
                if let kind = exportKind(of: elements) { return .success(kind.rawValue) }
                return .failure(
                    Violation(
                        rule: CoreRule.type, path: .root,
                        expected: "an object with a type member, or an array of one export's elements ("
                            + ExportKind.allCases.map(\.rawValue).joined(separator: ", ") + "; --kind names it)",
                        found: elements.isEmpty ? "an empty array" : "an array of no export's elements"))
            }
            let reader = try ObjectReader(document: value)
            // A CloudKit record names its kind in `recordType` (records family).
            if reader.raw("type") == nil, case .string(let recordType)? = reader.raw("recordType") {
                guard Models.named(recordType) == nil else { return .success(recordType) }
                let known = Models.all.map(\.recordType)
                return .failure(
                    Violation(
                        rule: RecordRule.recordType, path: .root / "recordType",
                        expected: "a record type, e.g. " + closestNames(to: recordType, in: known).map(JSONSerializer.quoted).joined(separator: " or "),
                        found: JSONSerializer.quoted(recordType)))
            }
            if reader.raw("type") == nil, let kind = shapeKind(reader) { return .success(kind) }
            guard reader.raw("type") != nil else {
                throw Violation(
                    rule: CoreRule.required, path: .root / "type",
                    expected: "string member \"type\" (or --kind: " + Families.allKinds.joined(separator: ", ") + ")", found: "absent")
            }
            let type = try reader.string("type")
            for family in Families.all {
                if let kind = family.kind(forType: type) { return .success(kind) }
            }
            let known = Families.all.flatMap { f in f.kinds.filter { f.kind(forType: $0) != nil } } + ControlMessage.types
            let closest = closestNames(to: type, in: known)
            return .failure(
                Violation(
                    rule: CoreRule.knownKind, path: .root / "type", expected: "a known type, e.g. " + closest.map(JSONSerializer.quoted).joined(separator: " or "),
                    found: JSONSerializer.quoted(type)))
        } catch {
            return .failure(error)
        }
    }

    /// Objects without `type` that the Spec still knows by their members.
    static func shapeKind(_ reader: ObjectReader) -> String? {
        if reader.raw("backupId") != nil, reader.raw("integrity") != nil || reader.raw("entityStats") != nil { return "manifest" }
        if reader.raw("entities") != nil, reader.raw("recordType") == nil { return "model" }
        return nil
    }

    /// The export whose declared members cover most of the first element's members: at least
    /// two of them, and at least half.
    static func exportKind(of elements: [JSONValue]) -> ExportKind? {
        guard case .object(let first)? = elements.first else { return nil }
        let names = Set(first.keys)
        let scored = ExportKind.allCases.map { kind in (kind, names.intersection(kind.memberNames).count) }
        guard let best = scored.max(by: { $0.1 < $1.1 }), best.1 * 2 >= names.count, best.1 >= 2 else { return nil }
        return best.0
    }

    /// Up to three known names nearest to `name` by edit distance (case-insensitive).
    public static func closestNames(to name: String, in known: [String]) -> [String] {
        let target = Array(name.lowercased())
        return known.map { ($0, editDistance(target, Array($0.lowercased()))) }
            .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .prefix(3).map(\.0)
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
