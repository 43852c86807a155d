import ConformanceKit
import Foundation
import WireCore

/// Plays the relay machine vectors (Vectors/pairing/relay.json) against a live relay: each
/// vector connection becomes a WebSocket, each source a loopback address of its own (so one
/// case's rate-limit counts never reach another), and every frame the vector expects is read
/// and compared member by member. Only actions can be seen from outside; states are not judged.
enum RelayReplay {
    /// A case whose events span more than this needs the relay's clock to move (alias lifetimes):
    /// the machine vectors cover it.
    static let maxSpan: EpochMillis = 60_000
    static let frameTimeout: Duration = .seconds(3)

    static func playable(_ vector: VectorCase) -> Bool {
        guard case .machine(let name, let events, _) = vector.body, vector.family == "pairing", name == "relay" else { return false }
        let times = events.compactMap { $0["at"]?.integerValue }
        return (times.max() ?? 0) - (times.min() ?? 0) <= maxSpan
    }

    static func run(_ vector: VectorCase, index: Int, url: String) async -> LiveOutcome {
        guard case .machine(_, let events, let expected) = vector.body else { return LiveOutcome(status: .unsupported("not a machine case"), violations: []) }
        var connections: [Int64: LiveConnection] = [:]
        var sources: [String: Int] = [:]
        var violations: [Violation] = []
        let rule = vector.rules.first ?? "PAIR-RELAY-001"
        for (i, event) in events.enumerated() {
            let step = JSONPointer.root / "steps" / String(i)
            guard let connection = event["connection"]?.integerValue else { continue }
            switch event["event"]?.stringValue {
            case "connected":
                let source = event["source"]?.stringValue ?? "?"
                let n = sources[source] ?? (sources.count + 1)
                sources[source] = n
                do {
                    connections[connection] = try await LiveConnection.open(url, from: "127.\(index / 250 + 1).\(index % 250 + 1).\(n)")
                } catch {
                    for live in connections.values { await live.close() }
                    return LiveOutcome(status: .broken(.crashed("cannot connect to \(url): \(error)")), violations: [])
                }
            case "received":
                let text = event["text"]?.stringValue ?? event["document"].map { JSONSerializer.compact($0) } ?? ""
                try? await connections[connection]?.writer.send(text: text)
            case "disconnected":
                await connections[connection]?.close()
                connections[connection] = nil
                try? await Task.sleep(for: .milliseconds(100))
            default:
                continue
            }
            let actions = i < expected.count ? expected[i].actions : []
            for (j, action) in actions.enumerated() {
                guard let target = action["connection"]?.integerValue, let document = action["document"], let live = connections[target] else { continue }
                let at = step / "expect" / "actions" / String(j) / "document"
                let actionRule = action["rule"]?.stringValue.map { RuleID($0) } ?? rule
                guard let text = await live.inbox.next(timeout: frameTimeout) else {
                    violations.append(Violation(rule: actionRule, path: at, expected: JSONSerializer.compact(document), found: "no frame on connection \(target) within 3 s"))
                    for live in connections.values { await live.close() }
                    return LiveOutcome(status: .failed, violations: violations)
                }
                guard case .success(let found) = Result(catching: { () throws(Violation) -> JSONValue in try JSONParser.parse(Array(text.utf8)) }) else {
                    violations.append(Violation(rule: actionRule, path: at, expected: JSONSerializer.compact(document), found: text))
                    continue
                }
                for d in JSONDiff.differences(expected: document, found: found) {
                    violations.append(Violation(rule: actionRule, path: d.path.nested(under: at), expected: d.expected, found: d.found))
                }
            }
        }
        try? await Task.sleep(for: .milliseconds(150))
        for (id, live) in connections.sorted(by: { $0.key < $1.key }) {
            for extra in await live.inbox.leftovers() {
                violations.append(Violation(rule: rule, path: .root, expected: "no more frames on connection \(id)", found: extra))
            }
            await live.close()
        }
        return LiveOutcome(status: violations.isEmpty ? .passed : .failed, violations: violations)
    }
}
