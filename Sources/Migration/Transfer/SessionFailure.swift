/// Why a transfer session ended without a restore: a cancel reason sent or received
/// (MIG-MSG-*), or one of the ends that no message carries. `wireName` is what the vectors'
/// `failed` state says (Spec/migration.md 5.3).
public enum SessionFailure: Sendable, Hashable, CustomStringConvertible {
    /// Cancelled by this side or the other, with the reason `CancelTransfer` carries.
    case cancelled(ControlMessage.CancelReason)
    /// The connection closed before the transfer began: nothing is worth keeping.
    case disconnected
    /// The random source ran out before a PIN could be drawn (MIG-PIN-001).
    case noRandom

    public var wireName: String {
        switch self {
        case .cancelled(let reason): return reason.rawValue
        case .disconnected: return "disconnected"
        case .noRandom: return "no-random"
        }
    }

    public var description: String { wireName }
}
