import ConformanceKit
import Pairing
import TestFixture
import Testing
import WireCore

/// Every kind the kind table says travels as a payload is decoded as itself inside a `message`.
/// `PairingPayload`'s switch ends in a default (a kind that is no payload needs no line there), so
/// this is what keeps a new payload row from being kept as an app's opaque payload.
@Suite("Pairing payload kinds")
struct PairingPayloadKindTests {
    @Test(arguments: PairingKind.allCases.filter { $0.carriers.contains(.payload) })
    func eachPayloadKindDecodesAsItself(kind: PairingKind) throws {
        var checked = 0
        for c in Fixture.cases where c.family == "pairing" {
            guard case .document(kind.rawValue, let input, .accept(let canonical)) = c.body else { continue }
            let document = try JSONParser.parse(input)
            let context = PairingContext(
                now: c.context["now"]?.integerValue ?? 0, activeDid: c.context["activeDid"]?.stringValue,
                localPeerId: c.context["localPeerId"]?.stringValue)
            let payload = try PairingPayload.decode(document, at: .root, context: context)
            if case .other = payload { Issue.record("\(c.id): a \(kind.rawValue) payload was kept as an opaque payload") }
            #expect(payload.canonical == canonical, "\(c.id)")
            checked += 1
        }
        #expect(checked > 0, "no accepted \(kind.rawValue) vector")
    }
}
