import Foundation

/// A server's certificate chain and private key (PEM files): what a `wss://` listener presents.
public struct TLSServerIdentity: Sendable, Hashable {
    public var certificateFile: String
    public var keyFile: String

    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

/// What a `wss://` client trusts: the system's roots (the default), one private CA, one pinned
/// server key, or nothing at all (said in every report that uses it).
public enum TLSClientTrust: Sendable, Hashable, CustomStringConvertible {
    case system
    /// Certificates signed by the CA(s) in this PEM file, and only those.
    case caFile(String)
    /// The server key whose SubjectPublicKeyInfo has this SHA-256 (base64, as `openssl ... | base64`
    /// prints it, and curl's `--pinnedpubkey sha256//...`), whoever signed it.
    case pin(String)
    case insecureSkipVerify

    public var description: String {
        switch self {
        case .system: return "the host name against the system's trust store"
        case .caFile(let file): return "the host name against the CA in \(file)"
        case .pin(let pin): return "the server key against the pin sha256//\(pin)"
        case .insecureSkipVerify: return "NOTHING (--insecure-skip-verify): anyone in the middle is accepted"
        }
    }

    /// The trust `--ca-file`, `--pin-sha256` and `--insecure-skip-verify` ask for: at most one
    /// of them; none means the system's trust store.
    public static func choose(caFile: String?, pin: String?, insecure: Bool) throws(WebSocketError) -> TLSClientTrust {
        switch (caFile, pin, insecure) {
        case (nil, nil, false): return .system
        case (let file?, nil, false):
            guard FileManager.default.isReadableFile(atPath: file) else { throw WebSocketError("cannot read --ca-file \(file)") }
            return .caFile(file)
        case (nil, let pin?, false):
            guard let digest = Data(base64Encoded: pin), digest.count == 32 else {
                throw WebSocketError("--pin-sha256 is the base64 of a SHA-256 (44 characters), not \(pin)")
            }
            return .pin(pin)
        case (nil, nil, true): return .insecureSkipVerify
        default: throw WebSocketError("--ca-file, --pin-sha256 and --insecure-skip-verify exclude each other")
        }
    }
}

/// Why a TLS connection was refused, each with its own outcome name: a deployed peer's
/// certificate problem is reported as such, never as a protocol violation.
public struct TLSFailure: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case unknownCA = "tls-unknown-ca"
        case wrongHost = "tls-wrong-host"
        case expired = "tls-certificate-expired"
        case notYetValid = "tls-certificate-not-yet-valid"
        case pinMismatch = "tls-pin-mismatch"
        case handshakeFailed = "tls-handshake-failed"
    }

    public var kind: Kind
    public var detail: String

    public var description: String { "\(kind.rawValue): \(detail)" }
}
