#if !TLS
import NIOCore

// A build without the `TLS` trait speaks ws:// only: every wss:// use fails at once, saying
// how to build one that speaks it.

extension WebSocketError {
    static let tlsNotBuilt = WebSocketError("wss:// needs a build with TLS: add --traits TLS to swift build, run or test (it builds swift-nio-ssl)")
}

struct ServerTLS: Sendable {
    init(_ identity: TLSServerIdentity) throws { throw WebSocketError.tlsNotBuilt }

    func add(to pipeline: ChannelPipeline.SynchronousOperations) throws { throw WebSocketError.tlsNotBuilt }
}

extension TLSClientTrust {
    func add(to pipeline: ChannelPipeline.SynchronousOperations, host: String) throws { throw WebSocketError.tlsNotBuilt }
}

extension TLSFailure {
    static func diagnose(host: String, port: Int, trust: TLSClientTrust, error: any Error) async -> TLSFailure {
        TLSFailure(kind: .handshakeFailed, detail: "\(error)")
    }
}
#endif
