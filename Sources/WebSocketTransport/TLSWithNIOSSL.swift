#if TLS
import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

// wss:// through swift-nio-ssl (the `TLS` trait): built only when asked for, since its BoringSSL
// is a second copy beside swift-crypto's and doubles the first build.

/// A listener's TLS: the identity's context, one handler per accepted connection.
struct ServerTLS: Sendable {
    let context: NIOSSLContext

    init(_ identity: TLSServerIdentity) throws { context = try identity.context() }

    func add(to pipeline: ChannelPipeline.SynchronousOperations) throws { try pipeline.addHandler(NIOSSLServerHandler(context: context)) }
}

extension TLSServerIdentity {
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

extension TLSClientTrust {
    func add(to pipeline: ChannelPipeline.SynchronousOperations, host: String) throws { try pipeline.addHandler(try handler(host: host)) }

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

extension TLSFailure {
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
#endif
