import Foundation
import TestFixture
import Testing

/// `Conformance/tools/fast-tests` stays what it says: every test file that starts a program or
/// opens a socket has its suites skipped there, so the edit loop never waits on the network.
@Suite("The fast test subset")
struct FastSubsetTests {
    /// What a test that leaves this process does.
    static let markers = ["Fixture.run(", "Fixture.run(", "Process()", "ExecPeer(", "WebSocket", "python3", "Listener(", "Watcher("]

    /// The `slow=` and `slow+=` lines of the script, as one pattern.
    static func skipPattern() throws -> Regex<AnyRegexOutput> {
        let script = try String(contentsOf: Fixture.root.appendingPathComponent("Conformance/tools/fast-tests"), encoding: .utf8)
        var pattern = ""
        for line in script.split(separator: "\n") where line.hasPrefix("slow=") || line.hasPrefix("slow+=") {
            guard let open = line.firstIndex(of: "'"), let close = line.lastIndex(of: "'"), open < close else { continue }
            pattern += line[line.index(after: open)..<close]
        }
        return try Regex(pattern)
    }

    @Test func everySuiteThatLeavesTheProcessIsSkipped() throws {
        let skip = try Self.skipPattern()
        let tests = Fixture.root.appendingPathComponent("Tests")
        var checked = 0
        for target in try FileManager.default.contentsOfDirectory(atPath: tests.path).sorted() where target.hasSuffix("Tests") {
            let folder = tests.appendingPathComponent(target)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where file.hasSuffix(".swift") && file != "FastSubsetTests.swift" {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                guard Self.markers.contains(where: text.contains) else { continue }
                for (suite, body) in Self.topLevelTypes(text) where body.contains("@Test") {
                    checked += 1
                    #expect(
                        "\(target).\(suite)/x".firstMatch(of: skip) != nil,
                        "\(target)/\(file) leaves the process (\(Self.markers.filter(text.contains).joined(separator: ", "))) but \(suite) is not skipped by fast-tests")
                }
            }
        }
        #expect(checked >= 20)
    }

    /// Each top-level type or extension of a file with its text up to the next one.
    static func topLevelTypes(_ text: String) -> [(name: String, body: String)] {
        var found: [(name: String, body: String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let head = ["struct ", "extension ", "final class ", "class ", "enum "].first { line.hasPrefix($0) }
            if let head {
                found.append((line.dropFirst(head.count).prefix { $0.isLetter || $0.isNumber }.description, ""))
            } else if !found.isEmpty {
                found[found.count - 1].body += line + "\n"
            }
        }
        return found
    }

    @Test func theSubsetKeepsTheInProcessSuites() throws {
        let skip = try Self.skipPattern()
        for kept in ["ReferenceTests.TransitionCoverageTests/x", "ReferenceTests.RuleCoverageTests/x", "ConformanceKitTests.WatchTrapTests/x", "PairingTests.FlowMachineTests/x", "WireCoreTests.JSONParserTests/x"] {
            #expect(kept.firstMatch(of: skip) == nil, "\(kept) must stay in the fast subset")
        }
    }
}
