import Migration
import WireCore

/// Why packing or restoring stopped. Validation failures carry the rule and the path; every
/// failure leaves the target store exactly as it was.
public enum PackageError: Error, CustomStringConvertible {
    /// The envelope did not open (MIG-ENV-*).
    case envelope(EnvelopeError)
    /// The package, a document in it or the store's data broke a rule.
    case invalid(Violation)
    /// A file changed while it was being packed: the snapshot would mix old and new.
    case storeChanged(path: String)
    /// The file system refused something.
    case io(String)

    public var violation: Violation? {
        switch self {
        case .envelope(let e): return e.violation
        case .invalid(let v): return v
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .envelope(let e): return "envelope: \(e)"
        case .invalid(let v): return "invalid package: \(v)"
        case .storeChanged(let path): return "\(path) changed while it was packed; nothing was written (try again)"
        case .io(let detail): return "I/O: \(detail)"
        }
    }
}
