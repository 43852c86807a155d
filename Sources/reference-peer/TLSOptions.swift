import ArgumentParser
import WebSocketTransport

/// `--cert` and `--key`: serve wss:// instead of ws://.
struct TLSServerOptions: ParsableArguments {
    @Option(help: "Serve wss:// with this certificate chain (PEM); needs --key.") var cert: String?
    @Option(help: "The private key (PEM) of --cert.") var key: String?

    func identity() throws -> TLSServerIdentity? {
        switch (cert, key) {
        case (let cert?, let key?): return TLSServerIdentity(certificateFile: cert, keyFile: key)
        case (nil, nil): return nil
        default: throw ValidationError("--cert and --key go together")
        }
    }
}

/// Whom a wss:// peer must prove to be: the system's trust store, unless one of these says otherwise.
struct TLSClientOptions: ParsableArguments {
    @Option(help: "With wss://: trust only the CA(s) in this PEM file.") var caFile: String?
    @Option(help: "With wss://: trust only the server key whose SubjectPublicKeyInfo has this SHA-256 (base64).") var pinSha256: String?
    @Flag(help: "With wss://: trust any certificate (for tests only).") var insecureSkipVerify = false

    func trust() throws -> TLSClientTrust {
        do {
            return try TLSClientTrust.choose(caFile: caFile, pin: pinSha256, insecure: insecureSkipVerify)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
