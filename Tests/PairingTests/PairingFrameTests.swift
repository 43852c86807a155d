import Foundation
import Pairing
import Testing
import WireCore

/// One frame classifier (issue 38.3): every router reads a frame's `type` and its payload's
/// through PairingFrame, built on the kind table, and nothing else switches on a raw `"type"`.
@Suite("Pairing frame classifier")
struct PairingFrameTests {
    static func frame(_ text: String) throws -> PairingFrame { PairingFrame(try JSONParser.parse(Array(text.utf8))) }

    @Test(arguments: PairingKind.allCases)
    func everyKindIsItsRow(kind: PairingKind) throws {
        #expect(try Self.frame(#"{"type":"\#(kind.rawValue)"}"#).kind == .document(kind))
        // As a message's payload, only the kinds the table carries as payloads are documents.
        let inMessage = try Self.frame(#"{"type":"message","to":"x","payload":{"type":"\#(kind.rawValue)"}}"#)
        #expect(inMessage.payload == (kind.carriers.contains(.payload) ? .document(kind) : .opaque(kind.rawValue)), "\(kind)")
    }

    @Test func signalsBareSignalsAndTheRest() throws {
        for signal in WebRTCSignal.Kind.allCases {
            #expect(try Self.frame(#"{"type":"message","to":"x","payload":{"type":"\#(signal.rawValue)"}}"#).signal == signal)
            #expect(try Self.frame(#"{"type":"\#(signal.rawValue)"}"#).kind == .bareSignal(signal.rawValue))
        }
        #expect(try Self.frame(#"{"type":"ice-candidates"}"#).kind == .bareSignal("ice-candidates"))
        // Names are exact: OFFER is an opaque payload, REGISTER no frame the table knows.
        #expect(try Self.frame(#"{"type":"message","payload":{"type":"OFFER"}}"#).payload == .opaque("OFFER"))
        #expect(try Self.frame(#"{"type":"REGISTER"}"#).kind == .other("REGISTER"))
        #expect(try Self.frame(#"{"type":"register\u0301"}"#).kind == .other("register\u{301}"))
        #expect(try Self.frame(#"{"type":7}"#).kind == .other(nil))
        #expect(try Self.frame("[1]").kind == .other(nil))
        // A payload only for a message; a message without one carries an opaque nothing.
        #expect(try Self.frame(#"{"type":"register","payload":{"type":"pair-ack"}}"#).payload == nil)
        #expect(try Self.frame(#"{"type":"message","to":"x"}"#).payload == .opaque(nil))
    }

    /// No routing on a raw `"type"` outside the classifier: each remaining read of a `type`
    /// member in the pairing targets and the kit's pairing judges is listed with why.
    @Test func nothingElseReadsARawType() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let allowed: [String: String] = [
            "Sources/Pairing/Messages/PairingFrame.swift": "the classifier",
            "Sources/Pairing/Messages/Signaling.swift": "a violation's found text",
            "Sources/ConformanceKit/Watch/WatchReport.swift": "a frame's label in the report",
            "Sources/ConformanceKit/Watch/PairingWatch.swift": "the first frame's type, quoted in a violation",
            "Sources/ConformanceLive/RelayReplay.swift": "the vector's expected kind, and matching expected against found as JSON",
        ]
        var found: [String] = []
        for folder in ["Sources/Pairing", "Sources/PairingPeer", "Sources/ConformanceLive", "Sources/ConformanceKit/Watch"] {
            let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let path = folder + "/" + file
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                if text.contains(#"["type"]"#), allowed[path] == nil { found.append(path) }
            }
        }
        #expect(found.isEmpty, "read a raw \"type\" member; route through PairingFrame: \(found)")
    }
}
