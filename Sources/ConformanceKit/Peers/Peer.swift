import Reference
import TesteeProtocol
import WireCore

/// How a case ended when the implementation did not give a usable answer.
public enum PeerFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case crashed(String)
    case timeout(String)
    case garbled(String)

    /// The word that names this failure in reports and expected-failure lists.
    public var signature: String {
        switch self {
        case .crashed: return "testee-crashed"
        case .timeout: return "testee-timeout"
        case .garbled: return "testee-garbled"
        }
    }

    public var description: String {
        switch self {
        case .crashed(let d), .timeout(let d), .garbled(let d): return "\(signature): \(d)"
        }
    }
}

/// An implementation under test: the reference in-process, or another one over the testee protocol.
public protocol Peer: AnyObject {
    /// For report headers, e.g. "reference (in-process)".
    var name: String { get }
    func evaluate(_ request: TesteeRequest) -> Result<Outcome, PeerFailure>
    /// Why the implementation will not be asked this request (its `hello` leaves the case's
    /// family, kind or machine out), or nil: such a case is reported *not implemented*.
    func declines(_ request: TesteeRequest) -> String?
    func close()
}

extension Peer {
    public func declines(_ request: TesteeRequest) -> String? { nil }
}

/// The reference implementation, called directly.
public final class LocalPeer: Peer {
    public init() {}

    public var name: String { "reference (in-process)" }

    public func evaluate(_ request: TesteeRequest) -> Result<Outcome, PeerFailure> {
        .success(Reference.answer(request))
    }

    public func close() {}
}
