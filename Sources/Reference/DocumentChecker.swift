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
        /// Violations found beyond the first `ViolationList.maxListed`, counted, not kept.
        public var omitted: Int
        /// What the checker took on trust, one line each (every report format shows them).
        public var notes: [String] = []

        public init(name: String, kind: String?, violations: [Violation], canonical: JSONValue?, omitted: Int = 0) {
            self.name = name
            self.kind = kind
            self.violations = violations
            self.canonical = canonical
            self.omitted = omitted
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
        case .reject(let violations, let omitted):
            return Result(name: name, kind: kind, violations: violations.map { withSubject($0, name) }, canonical: nil, omitted: omitted)
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
    /// or as a family recognizes it otherwise (a record's `recordType`, a manifest's or an export
    /// array's or a model's shape), or the violation that prevents knowing it, naming the kinds it
    /// could be checked as.
    static func detectKind(_ bytes: [UInt8]) -> Swift.Result<String, Violation> {
        do throws(Violation) {
            let value = try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: Families.maxDocumentBytes, maxDepth: 64))
            if value["type"] == nil {
                for family in Families.all {
                    switch family.detectKind(value) {
                    case .kind(let kind)?: return .success(kind)
                    case .refused(let violation)?: return .failure(violation)
                    case nil: continue
                    }
                }
            }
            guard case .object = value else {
                throw Violation(
                    rule: CoreRule.type, path: .root,
                    expected: "an object with a type member (--kind names any other kind)", found: value.typeName)
            }
            let reader = try ObjectReader(document: value)
            guard reader.raw("type") != nil else {
                throw Violation(
                    rule: CoreRule.required, path: .root / "type",
                    expected: "string member \"type\" (or --kind: " + Families.allKinds.joined(separator: ", ") + ")", found: "absent")
            }
            let typeName = try reader.string("type")
            for family in Families.all {
                if let kind = family.kind(forType: typeName) { return .success(kind) }
            }
            let known = Families.all.flatMap { f in f.kinds.filter { f.kind(forType: $0) != nil } } + ControlMessage.types
            let closest = closestNames(to: typeName, in: known)
            return .failure(
                Violation(
                    rule: CoreRule.knownKind, path: .root / "type", expected: "a known type, e.g. " + closest.map(JSONSerializer.quoted).joined(separator: " or "),
                    found: JSONSerializer.quoted(typeName)))
        } catch {
            return .failure(error)
        }
    }

    /// Up to three known names nearest to `name` by edit distance (case-insensitive), from its
    /// first 64 characters: a type of megabytes would cost its length times every known name.
    public static func closestNames(to name: String, in known: [String]) -> [String] {
        let target = Array(name.prefix(64).lowercased())
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
