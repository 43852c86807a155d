import ConformanceKit
import Foundation
import Reference
import TestFixture
import Testing
import WireCore

/// Nothing crashes on any input: mutated documents reach every kind's validator, random
/// event sequences reach every machine, and each answer is a verdict (never a trap).
@Suite("Robustness: mutated documents and random events")
struct RobustnessTests {
    static let interesting: [[UInt8]] = ["\"", "{", "}", "[", "]", ",", ":", "\\u", "\\ud800", "1e999", "-", "0", "null", "\u{0}", "é"]
        .map { Array($0.utf8) } + [[0xFF], [0xC3], [0xED, 0xA0, 0x80]]

    static func mutate(_ input: [UInt8], _ g: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &g) {
            let i = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &g)
            switch Int.random(in: 0..<4, using: &g) {
            case 0 where !bytes.isEmpty: bytes[i] = UInt8.random(in: 0...255, using: &g)
            case 1 where !bytes.isEmpty: bytes.removeSubrange(i..<min(bytes.count, i + Int.random(in: 1...8, using: &g)))
            case 2: bytes.insert(contentsOf: interesting.randomElement(using: &g)!, at: i)
            default: bytes = Array(bytes.prefix(i))
            }
        }
        return bytes
    }

    @Test func mutatedDocumentsGetAVerdict() {
        var g = SplitMix64(seed: 42)
        let documents = Fixture.cases.compactMap { c -> (VectorCase, [UInt8])? in
            if case .document(_, let input, _) = c.body, input.count < 4096 { return (c, input) }
            return nil
        }
        var verdicts = 0
        for (vector, input) in documents {
            for _ in 0..<20 {
                let mutated = Self.mutate(input, &g)
                for family in Families.all where family.name == vector.family {
                    for kind in family.kinds {
                        switch family.validate(kind: kind, document: mutated, context: vector.context) {
                        case .accept, .reject: verdicts += 1
                        case .invalidRequest where vector.family == "migration": break  // another kind's context (e.g. no password)
                        // Not an Xcode model, or no model to derive record types from: the caller's mistake (records.md 3, 7).
                        case .invalidRequest where kind == "xcdatamodel" || (kind == "mirrored-record" && vector.context["model"] == nil): break
                        case let other: Issue.record("\(vector.id) as \(kind): \(other)")
                        }
                    }
                }
            }
        }
        #expect(verdicts > 10_000)
    }

    /// Every machine, fed its own vectors' events in random orders and mixes, with a context
    /// from its own vectors: never a trap, never an answer other than a trace or a refused
    /// request, and most runs must reach the machine (a context it refuses proves nothing).
    @Test func randomEventsNeverTrapAMachine() {
        var g = SplitMix64(seed: 7)
        var byMachine: [String: [(context: JSONValue, events: [JSONValue])]] = [:]
        for c in Fixture.cases {
            if case .machine(let name, let events, _) = c.body { byMachine[c.family + "/" + name, default: []].append((c.context, events)) }
        }
        for family in Families.all {
            for machine in family.machines {
                let cases = byMachine[family.name + "/" + machine] ?? []
                let pool = cases.flatMap(\.events)
                guard let first = cases.first, !pool.isEmpty else {
                    Issue.record("\(family.name)/\(machine) has no vectors to draw events from")
                    continue
                }
                var traces = 0
                for _ in 0..<200 {
                    let context = cases.randomElement(using: &g)?.context ?? first.context
                    // Real events out of order, and some with a member of another event (a
                    // document where a code was, a time of another case).
                    let events = (0..<Int.random(in: 1...12, using: &g)).map { _ -> JSONValue in
                        guard var event = pool.randomElement(using: &g)?.objectValue else { return .null }
                        if g.next() % 4 == 0, let other = pool.randomElement(using: &g)?.objectValue, let member = other.members.randomElement(using: &g),
                            member.key != "event"
                        {
                            event[member.key] = member.value
                        }
                        return .object(event)
                    }
                    switch family.runMachine(machine, context: context, events: events) {
                    case .trace: traces += 1
                    case .invalidRequest: break
                    case let other: Issue.record("\(machine): \(other)")
                    }
                }
                #expect(traces >= 100, "\(family.name)/\(machine): only \(traces) of 200 random runs reached the machine")
            }
        }
    }
}
