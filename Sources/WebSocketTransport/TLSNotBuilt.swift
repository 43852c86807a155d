#if !TLS
import NIOCore

// A build without the `TLS` trait speaks ws:// only: every wss:// use fails at once (a listener
// here, a client in `WebSocketClient.connect`), saying how to build one that speaks it.

extension WebSocketError {
    static let tlsNotBuilt = WebSocketError("wss:// needs a build with TLS: add --traits TLS to swift build, run or test (it builds swift-nio-ssl)")
}

/// No value of it exists in this build: asking for one is the error.
enum ServerTLS: Sendable {
    init(_ identity: TLSServerIdentity) throws { throw WebSocketError.tlsNotBuilt }

    func add(to pipeline: ChannelPipeline.SynchronousOperations) throws {
        switch self {}
    }
}
#endif
