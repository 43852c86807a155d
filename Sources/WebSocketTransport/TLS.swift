import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A server's certificate chain and private key (PEM files): what a `wss://` listener presents.
public struct TLSServerIdentity: Sendable, Hashable {
    public var certificateFile: String
    public var keyFile: String

    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    func context() throws -> NIOSSLContext {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
            return try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
        } catch {
            throw WebSocketError("cannot use \(certificateFile) and \(keyFile) as a TLS identity: \(error)")
        }
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

    /// The SHA-256 of a certificate's SubjectPublicKeyInfo, base64: what `.pin` compares.
    public static func pin(of certificate: NIOSSLCertificate) throws -> String {
        Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }

    func handler(host: String) throws -> NIOSSLClientHandler {
        var configuration = TLSConfiguration.makeClientConfiguration()
        // SNI carries names only; an address is still checked against the certificate's IP names.
        let sni: String? = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        switch self {
        case .system:
            return try NIOSSLClientHandler(context: NIOSSLContext(configuration: configuration), serverHostname: sni)
        case .caFile(let file):
            configuration.trustRoots = .file(file)
            return try NIOSSLClientHandler(context: NIOSSLContext(configuration: configuration), serverHostname: sni)
        case .pin(let expected):
            configuration.certificateVerification = .noHostnameVerification
            let check: NIOSSLCustomVerificationCallback = { chain, promise in
                let found = chain.first.flatMap { try? Self.pin(of: $0) }
                promise.succeed(found == expected ? NIOSSLVerificationResult.certificateVerified : NIOSSLVerificationResult.failed)
            }
            return try NIOSSLClientHandler(context: NIOSSLContext(configuration: configuration), serverHostname: sni, customVerificationCallback: check)
        case .insecureSkipVerify:
            configuration.certificateVerification = .none
            return try NIOSSLClientHandler(context: NIOSSLContext(configuration: configuration), serverHostname: sni)
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

    /// Names what went wrong by looking at the server's certificate again without trusting it
    /// (BoringSSL says only "certificate verify failed").
    static func diagnose(host: String, port: Int, trust: TLSClientTrust, error: any Error) async -> TLSFailure {
        guard let leaf = await leafCertificate(host: host, port: port) else {
            return TLSFailure(kind: .handshakeFailed, detail: "no TLS handshake with \(host):\(port): \(error)")
        }
        if case .pin(let expected) = trust {
            let found = (try? TLSClientTrust.pin(of: leaf)) ?? "?"
            return TLSFailure(kind: .pinMismatch, detail: "the server's key is sha256//\(found), the pin sha256//\(expected)")
        }
        let now = time(nil)
        if leaf.notValidAfter < now {
            return TLSFailure(kind: .expired, detail: "the certificate of \(host) expired at \(Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter)))")
        }
        if leaf.notValidBefore > now {
            return TLSFailure(kind: .notYetValid, detail: "the certificate of \(host) is valid from \(Date(timeIntervalSince1970: TimeInterval(leaf.notValidBefore)))")
        }
        let names = subjectNames(leaf)
        if !names.contains(where: { matches(host, $0) }) {
            return TLSFailure(kind: .wrongHost, detail: "the certificate names \(names.isEmpty ? "no host" : names.joined(separator: ", ")), not \(host)")
        }
        return TLSFailure(kind: .unknownCA, detail: "the certificate of \(host) is not signed by a CA trusted here (checked \(trust))")
    }

    /// The server's leaf certificate, taken during a handshake that trusts anything and sends nothing.
    static func leafCertificate(host: String, port: Int) async -> NIOSSLCertificate? {
        let captured = NIOLockedValueBox<NIOSSLCertificate?>(nil)
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .noHostnameVerification
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let sni: String? = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let refuse: NIOSSLCustomVerificationCallback = { chain, promise in
                        captured.withLockedValue { $0 = chain.first }
                        promise.succeed(NIOSSLVerificationResult.failed)
                    }
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: sni, customVerificationCallback: refuse)
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: host, port: port).get()
        try? await channel?.closeFuture.get()
        return captured.withLockedValue { $0 }
    }

    /// The certificate's DNS and IP names (the subject alternative names).
    static func subjectNames(_ certificate: NIOSSLCertificate) -> [String] {
        certificate._subjectAlternativeNames().compactMap { name -> String? in
            let bytes = Array(name.contents)
            switch name.nameType {
            case .dnsName: return String(decoding: bytes, as: UTF8.self)
            case .ipAddress where bytes.count == 4: return bytes.map(String.init).joined(separator: ".")
            case .ipAddress where bytes.count == 16:
                return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
            default: return nil
            }
        }
    }

    /// RFC 6125: an exact name (case-insensitive), or `*.` matching one leftmost label.
    static func matches(_ host: String, _ name: String) -> Bool {
        let host = host.lowercased()
        let name = name.lowercased()
        if host == name { return true }
        if let v6 = try? SocketAddress(ipAddress: host, port: 0), let other = try? SocketAddress(ipAddress: name, port: 0) { return v6 == other }
        guard name.hasPrefix("*."), let dot = host.firstIndex(of: ".") else { return false }
        return host[dot...] == name.dropFirst()
    }
}
