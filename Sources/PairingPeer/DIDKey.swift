/// DIDs shaped as real phones send them (Spec pairing.md PAIR-DID-001): `did:key:z6Mk` (an
/// Ed25519 key in multibase base58btc) and 44 more base58btc characters.
public enum DIDKey {
    static let base58 = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")

    /// A new random one (an identity for a test peer, not a key anyone holds).
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return "did:key:z6Mk" + String((0..<44).map { _ in base58[Int(generator.next() % UInt64(base58.count))] })
    }
}
