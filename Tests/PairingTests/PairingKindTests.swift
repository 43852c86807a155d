import Pairing
import Testing

/// The kind table (PairingKind) is one consistent place: each row's type says it is that kind,
/// its name reads back, and every kind travels somewhere.
@Suite("Pairing kind table")
struct PairingKindTests {
    @Test(arguments: PairingKind.allCases)
    func eachRowIsConsistent(kind: PairingKind) {
        #expect(kind.documentType.kind == kind, "the row's type decodes \(kind.documentType.kind), not \(kind)")
        #expect(PairingKind.named(kind.rawValue) == kind)
        #expect(!kind.carriers.isEmpty)
    }
}
