import WireCore

/// What a receiver knows besides the document: its clock, its identity, and (for
/// PAIR-SIG-001) the sender's own peer id.
public struct PairingContext: Sendable, Hashable {
    /// The receiver's current time.
    public var now: EpochMillis
    /// The receiver's active DID, nil when it has none (PAIR-DID-002).
    public var activeDid: String?
    /// The id the sender of a `register` owns; nil when unknown (PAIR-SIG-001 not checked).
    public var localPeerId: String?

    public init(now: EpochMillis, activeDid: String? = nil, localPeerId: String? = nil) {
        self.now = now
        self.activeDid = activeDid
        self.localPeerId = localPeerId
    }
}
