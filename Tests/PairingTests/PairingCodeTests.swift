import Pairing
import Testing
import WireCore

@Suite("Pairing codes, DIDs and URLs")
struct FieldTests {
    func draw(_ bytes: [UInt8]) -> String? {
        var source = ScriptedBytes(bytes)
        return PairingCode.draw(from: &source)
    }

    @Test func drawingKeepsLeadingZerosAndRejectsTheBiasedTail() {
        #expect(draw([0, 0, 0, 0]) == "000000")
        #expect(draw([0, 0, 0x30, 0x39]) == "012345")
        // 4_293_999_999 is the last accepted word: code 999999.
        #expect(draw([0xFF, 0xF1, 0x3D, 0x7F]) == "999999")
        // 4_294_000_000 and above are discarded; the next word is used.
        #expect(draw([0xFF, 0xF1, 0x3D, 0x80, 0, 0, 0, 7]) == "000007")
        #expect(draw([0xFF, 0xFF, 0xFF, 0xFF]) == nil)
        #expect(draw([1, 2, 3]) == nil)
    }

    @Test func everyDrawnCodeIsValid() {
        var source = GeneratorBytes(SplitMix64(seed: 7))
        for _ in 0..<2000 {
            let code = PairingCode.draw(from: &source)
            #expect(code.map(PairingCode.isValid) == true)
        }
    }

    @Test(arguments: [
        ("012345", true), ("12345", false), ("1234567", false), ("١٢٣٤٥٦", false), (" 12345", false), ("12345a", false),
        ("１２３４５６", false),
    ])
    func codes(text: String, valid: Bool) {
        #expect(PairingCode.isValid(text) == valid)
    }

    @Test(arguments: [
        ("did:cc:phone-1", true), ("did:cc:a:b.c_d-e%2F", true), ("did:cc:", false), ("did:cc:a::b", false),
        ("DID:cc:x", false), ("did:key:z6Mk", true), ("did:key:6Mk", false), ("did:key:z6Mk0", false), ("did:cc:abc\"}", false), ("did:cc:a b", false),
        ("did:cc:%zz", false), ("did:cc:%2", false), ("did:cc:a:", false),
        ("did:cc:" + String(repeating: "a", count: 249), true), ("did:cc:" + String(repeating: "a", count: 250), false),
    ])
    func dids(text: String, valid: Bool) {
        #expect(DID.isValid(text) == valid)
    }

    @Test(arguments: [
        ("ws://192.168.1.20:9001", false, nil), ("wss://signaling.chainlesschain.com", true, nil),
        ("WSS://Relay.Example.com/path?x=1", true, nil), ("ws://127.0.0.1:9001", true, nil), ("ws://[::1]:80/", true, nil),
        ("ws://localhost", true, nil),
    ] as [(String, Bool, String?)])
    func acceptedURLs(text: String, relay: Bool, problem: String?) {
        #expect(SignalingURL.problem(text, relay: relay) == problem)
    }

    @Test(arguments: [
        ("http://example.com", false), ("ws://", false), ("ws://user@host", false), ("ws://host:0", false),
        ("ws://host:65536", false), ("ws://host#frag", false), ("ws://ho st", false), ("ws://example.com", true),
        ("ws://127.0.0.256", true), ("wss://[zz::1]", false), ("signaling.example.com", false),
    ])
    func rejectedURLs(text: String, relay: Bool) {
        #expect(SignalingURL.problem(text, relay: relay) != nil)
    }
}
