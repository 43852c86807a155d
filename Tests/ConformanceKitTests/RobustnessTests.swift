import ConformanceKit
import Foundation
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

    @Test func randomEventsNeverTrapAMachine() {
        var g = SplitMix64(seed: 7)
        let names = ["scanned", "send-succeeded", "send-failed", "retry", "start", "confirmation", "tick", "signaling-failed",
                     "submit", "peer-offline", "connected", "received", "disconnected", "bogus"]
        let documents = Fixture.cases.compactMap { c -> JSONValue? in
            if case .document(_, let input, _) = c.body { return try? JSONParser.parse(input) }
            return nil
        }
        for family in Families.all {
            for machine in family.machines {
                for _ in 0..<200 {
                    var events: [JSONValue] = []
                    for _ in 0..<Int.random(in: 1...12, using: &g) {
                        var e = JSONObject(["event": .string(names.randomElement(using: &g)!)])
                        e["at"] = .number(JSONNumber(Int64.random(in: 1_747_299_000_000...1_747_301_000_000, using: &g)))
                        let doc = documents.randomElement(using: &g) ?? .null
                        e["document"] = doc
                        e["text"] = .string(JSONSerializer.compact(doc))
                        e["code"] = .string(["048213", "12345", "", "000000"].randomElement(using: &g)!)
                        e["random"] = .string(["00", "ffffffff", "5d3a0f17", "zz"].randomElement(using: &g)!)
                        e["connection"] = .number(JSONNumber(Int64.random(in: 0...3, using: &g)))
                        e["source"] = .string(["a", "b"].randomElement(using: &g)!)
                        events.append(.object(e))
                    }
                    switch family.runMachine(machine, context: ["activeDid": "did:cc:phone-1", "signalingUrl": "wss://r.example.com"], events: events) {
                    case .trace, .invalidRequest: break
                    case let other: Issue.record("\(machine): \(other)")
                    }
                }
            }
        }
    }
}
