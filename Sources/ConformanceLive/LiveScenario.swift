import ConformanceKit
import Foundation
import MigrationPeer
import WireCore

/// Which peer is under test in a live run.
public enum LiveRole: String, Sendable, CaseIterable {
    /// A migration sender that listens; the runner connects as the receiver.
    case sender
    /// A migration receiver that connects; the runner listens as the sender.
    case receiver
    /// A pairing signaling relay that listens; the runner connects as its clients.
    case relay
    /// A pairing phone that connects to the relay the runner hosts; the runner is the desktop.
    case phone
    /// A pairing desktop that connects to the relay the runner hosts; the runner is the phone.
    case desktop
}

/// What one live case ended with, before it is judged against an expected-failure list.
struct LiveOutcome: Sendable {
    var status: CaseResult.Status
    var violations: [Violation]
    var notes: [String] = []
    /// The frames both ways while the case played.
    var wire: WireLog?
}

extension Collector {
    /// The play outlived its limit. A rule whose deadline passed inside it is the verdict (the
    /// limit noted beside it); only a scenario in which nothing was found is `testee-timeout`.
    func timedOut(_ limit: Duration, levels: RuleLevels) -> LiveOutcome {
        guard !violations.isEmpty else {
            return LiveOutcome(status: .broken(.timeout("the scenario did not end within \(limit)")), violations: [])
        }
        note("the scenario did not end within \(limit), after the violations above")
        settle()
        return LiveOutcome(status: CaseResult.status(violations: violations, notes: notes, levels: levels), violations: violations, notes: notes)
    }
}

/// A migration scenario from `Conformance/scenarios/migration.json` (format: the README there).
struct MigrationScenario: Sendable {
    var id: String
    var comment: String
    var role: LiveRole
    var rules: [RuleID]
    var faults: ChunkFaults
    /// What the sender's user types, in order: "right" or "wrong" (a PIN one off the shown one).
    var pins: [String]
    /// After a session that ended locked, the receiver's next session is awaited and timed
    /// (MIG-PIN-003), then run with the right PIN; `expectState` is that session's end.
    var lockout: Bool
    /// The runner's own machine's final state.
    var expectState: String
    /// The rules the runner's machine reports, in order: faults the runner injected itself
    /// (a corrupted chunk it was sent, five wrong PINs it typed) are reported, and expected.
    var expectRejects: [String]
    /// A package that breaks a rule, sent in place of the runner's good one (issue 39.2).
    var hostile: HostilePackage?

    var vector: VectorCase {
        VectorCase(
            id: id, family: "migration", comment: comment, flags: ["live"], rules: rules, triggers: [], context: .null,
            body: .machine(name: "live-\(role.rawValue)", events: [], expected: []), file: "Conformance/scenarios/migration.json")
    }

    static func load(_ file: URL) throws -> [MigrationScenario] {
        guard let data = FileManager.default.contents(atPath: file.path) else { throw LiveError("cannot read \(file.path)") }
        let root: JSONValue
        do {
            root = try JSONParser.parse([UInt8](data))
        } catch {
            throw LiveError("\(file.lastPathComponent): \(error)")
        }
        guard let list = root["scenarios"]?.arrayValue else { throw LiveError("\(file.lastPathComponent): no scenarios array") }
        return try list.enumerated().map { i, s in
            let hostile = try HostilePackage(s, in: file)
            guard let id = s["id"]?.stringValue, let roleName = s["role"]?.stringValue, let role = LiveRole(rawValue: roleName), role == .sender || role == .receiver,
                let state = s["expect"]?["state"]?.stringValue ?? hostile.map({ _ in "" })
            else {
                throw LiveError("\(file.lastPathComponent): scenario \(i) needs id, role (sender or receiver) and expect.state (or a hostile package and expect.refused)")
            }
            var faults = ChunkFaults()
            for member in s["faults"]?.objectValue?.members ?? [] {
                if ChunkFaults.flagNames.contains(member.key) {
                    guard member.value == .bool(true), faults.set(member.key) else {
                        throw LiveError("\(file.lastPathComponent): scenario \(id): faults.\(member.key) takes true")
                    }
                    continue
                }
                let frames = member.value.arrayValue?.compactMap { $0.integerValue.map(Int.init) }
                // A misspelt fault would otherwise make a scenario pass without injecting anything.
                guard let frames, frames.count == member.value.arrayValue?.count, faults.set(member.key, Set(frames)) else {
                    throw LiveError(
                        "\(file.lastPathComponent): scenario \(id): faults.\(member.key) must be one of \(ChunkFaults.names.joined(separator: ", ")) with an array of frame numbers, or \(ChunkFaults.flagNames.joined(separator: ", ")) with true")
                }
            }
            return MigrationScenario(
                id: id, comment: s["comment"]?.stringValue ?? "", role: role,
                rules: (s["rules"]?.arrayValue ?? []).compactMap(\.stringValue).map { RuleID($0) }, faults: faults,
                pins: (s["pins"]?.arrayValue ?? [.string("right")]).compactMap(\.stringValue), lockout: s["lockout"] == .bool(true), expectState: state,
                expectRejects: (s["expect"]?["rejects"]?.arrayValue ?? []).compactMap(\.stringValue), hostile: hostile)
        }
    }
}

/// A receiver scenario's hostile package: a package vector's zip (Vectors/migration/package/),
/// sealed by the runner with the receiver's password, perhaps with a broken envelope or another
/// `backupId` announced. The receiver must refuse it: a streaming receiver by cancelling, a
/// file-first one by restoring nothing (MIG-REST-001, seen with `--store`).
struct HostilePackage: Sendable {
    enum EnvelopeFault: String, Sendable {
        /// The last segment's bytes cut off (MIG-ENV-006); the announced digest is the cut file's.
        case truncated
        /// 1000 PBKDF2 iterations, below the floor (MIG-ENV-003).
        case weak
    }

    /// The package vector's id, `migration/package/NAME`: its zip is `Vectors/migration/package/NAME.zip`.
    var vector: String
    var backupId: String
    var envelope: EnvelopeFault?
    /// The rule the package breaks.
    var refused: RuleID

    var zipPath: String { "Vectors/migration/package/" + (vector.droppingBytePrefix("migration/package/") ?? vector) + ".zip" }

    /// nil for a scenario without `package`.
    init?(_ scenario: JSONValue, in file: URL) throws {
        guard let package = scenario["package"] else { return nil }
        let name = "\(file.lastPathComponent): scenario \(scenario["id"]?.stringValue ?? "?")"
        // A name of letters, digits and '-': the zip is read from Vectors/, never from elsewhere.
        guard let vector = package["vector"]?.stringValue, let stem = vector.droppingBytePrefix("migration/package/"), !stem.isEmpty,
            stem.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D }), let backupId = package["backupId"]?.stringValue,
            let refused = scenario["expect"]?["refused"]?.stringValue
        else {
            throw LiveError("\(name): a package names its vector (migration/package/NAME) and backupId, and expect.refused the rule it breaks")
        }
        self.vector = vector
        self.backupId = backupId
        self.refused = RuleID(refused)
        if let fault = package["envelope"]?.stringValue {
            guard let envelope = EnvelopeFault(rawValue: fault) else { throw LiveError("\(name): package.envelope is truncated or weak, not \(fault)") }
            self.envelope = envelope
        }
    }
}

struct LiveError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
