import TesteeProtocol
import WireCore

/// What the kit knows of a family besides its code: where its rules are written, how its
/// documents report, which tools write its vectors. One value per family; the runner, `check`,
/// the reports, the tests and the Python tools (through `Conformance/families.json`, written by
/// `conformance list families`) all read it.
public struct FamilyRegistration: Sendable {
    /// A vector generator under `Conformance/tools/` and the folder it writes.
    public struct Generator: Sendable {
        public var script: String
        public var folder: String
        public init(_ script: String, writes folder: String) {
            self.script = script
            self.folder = folder
        }
    }

    /// The rule ids' prefix, e.g. `PAIR` for `PAIR-CODE-001`.
    public var rulePrefix: String
    /// The Spec chapter, `Spec/<chapter>.md`.
    public var chapter: String
    /// Documents report only their first failing check (Spec/core.md "Order of checks").
    public var firstViolationOnly = false
    /// Kinds whose canonical form is a summary (a digest, a list of names), not a document of
    /// the kind: it cannot be checked again as one.
    public var summaryKinds: [String] = []
    /// Kinds with a JSON Schema, `Spec/schemas/<chapter>/<kind>.schema.json`.
    public var schemaKinds: [String] = []
    public var generators: [Generator] = []

    public init(rulePrefix: String, chapter: String) {
        self.rulePrefix = rulePrefix
        self.chapter = chapter
    }
}

/// A document's kind as a family recognizes it without a `type` member it defines (by
/// `recordType`, or by shape), or the violation that names the kinds it could be.
public enum KindDetection: Sendable {
    case kind(String)
    case refused(Violation)
}

/// One protocol family as the kit sees it: its kinds and machines, driven through JSON so the
/// same requests reach the reference in-process and another implementation over stdio. A new
/// family is one value conforming to this protocol, added to `Families.all`, with its pure
/// target, its Spec chapter and its vectors.
public protocol ConformanceFamily: Sendable {
    var name: String { get }
    var registration: FamilyRegistration { get }
    /// Document kinds, e.g. `desktop-pairing`.
    var kinds: [String] { get }
    /// Its machines, each with how a vector plays it (`runMachine`, `machines`).
    var machineRegistrations: [MachineRegistration] { get }
    var rules: [RuleID] { get }
    /// The kind a document's `type` member names, if this family defines it.
    func kind(forType type: String) -> String?
    /// The kind of a parsed document without a `type` this family defines, if it knows it.
    func detectKind(_ document: JSONValue) -> KindDetection?
    /// The kind a file name implies (`manifest.json`), if any.
    func kind(forFileName name: String) -> String?
    func validate(kind: String, document: [UInt8], context: JSONValue) -> Outcome
}

extension ConformanceFamily {
    public func detectKind(_ document: JSONValue) -> KindDetection? { nil }
    /// `<kind>.json`, a colon written `-` (`pairing-confirmation.json`), as in `Vectors/` and
    /// `Conformance/examples/`.
    public func kind(forFileName name: String) -> String? {
        guard name.hasSuffix(".json") else { return nil }
        let base = String(name.dropLast(".json".count))
        return kinds.first { $0 != "auto" && ($0 == base || $0.replacingOccurrences(of: ":", with: "-") == base) }
    }
}

/// The families the reference implements: the one list every part of the kit reads.
public enum Families {
    public static let all: [any ConformanceFamily] = [CoreFamily(), PairingFamily(), MigrationFamily(), RecordsFamily()]

    /// The family whose rule ids carry this prefix (`PAIR`).
    public static func owning(_ rule: RuleID) -> (any ConformanceFamily)? {
        all.first { $0.registration.rulePrefix == rule.family }
    }

    /// The kind a file name implies, in any family.
    public static func kind(forFileName name: String) -> String? {
        all.lazy.compactMap { $0.kind(forFileName: name) }.first
    }

    /// The registrations as `conformance list families` prints them (and
    /// `Conformance/families.json` holds them for the Python tools).
    public static var registrationJSON: JSONValue {
        .array(all.map { f in
            let r = f.registration
            return [
                "name": .string(f.name), "rulePrefix": .string(r.rulePrefix), "chapter": .string(r.chapter),
                "firstViolationOnly": .bool(r.firstViolationOnly), "kinds": .array(f.kinds.map { .string($0) }),
                "machines": .array(f.machines.map { .string($0) }), "summaryKinds": .array(r.summaryKinds.map { .string($0) }),
                "schemaKinds": .array(r.schemaKinds.map { .string($0) }),
                "generators": .array(r.generators.map { ["script": .string($0.script), "folder": .string($0.folder)] }),
            ]
        })
    }

    public static func named(_ name: String) -> (any ConformanceFamily)? {
        all.first { $0.name == name }
    }

    /// The family defining `kind`, if any (`auto` is not a kind a document can be checked as).
    public static func defining(kind: String) -> (any ConformanceFamily)? {
        all.first { $0.name != "core" && $0.kinds.contains(kind) }
    }

    public static var allKinds: [String] { all.filter { $0.name != "core" }.flatMap(\.kinds) }

    /// The largest document any kind accepts (the migration family's exports and manifests).
    public static let maxDocumentBytes = MigrationFamily.maxDocumentBytes
}

extension RuleID {
    /// Where the rule is written, e.g. `Spec/pairing.md#PAIR-CODE-001`.
    public var section: String {
        "Spec/\(Families.owning(self)?.registration.chapter ?? "catalog").md#\(rawValue)"
    }
}

extension Violation {
    /// Where the broken rule is written.
    public var section: String { rule.section }
}
