import Foundation
import Pairing
import WebSocketTransport
import WireCore

/// The signaling relay on the network (seed 002 §4.2; Spec pairing.md §5): a WebSocket server
/// whose every text frame goes through a `SignalingRelay` machine, and whose every action becomes
/// a frame on a connection. Rate limits count per client IP address.
public actor RelayServer {
    /// Frames up to this size are read, so one over 64 KiB is answered `too-large` (Spec
    /// pairing.md PAIR-RELAY-001); a larger one closes the connection unread.
    public static let maxFrameSize = 1 << 20

    private var relay: SignalingRelay
    private var writers: [SignalingRelay.ConnectionID: WebSocketWriter] = [:]
    private var nextID = 0
    private let clock: @Sendable () -> EpochMillis
    private let log: @Sendable (String) -> Void

    public init(policy: SignalingRelay.Policy = .init(), clock: @escaping @Sendable () -> EpochMillis, log: @escaping @Sendable (String) -> Void) {
        relay = SignalingRelay(policy: policy)
        self.clock = clock
        self.log = log
    }

    /// Serves connections from `listener` until the task is cancelled.
    public func serve(_ listener: WebSocketListener) async throws {
        await listener.accept { connection in
            let source = Self.host(of: connection.remoteAddress)
            try? await connection.run { inbound, writer in
                let id = await self.connected(writer, source: source)
                do {
                    for try await message in inbound {
                        switch message {
                        case .text(let text): await self.received(Array(text.utf8), on: id)
                        case .binary(let bytes): await self.received(bytes, on: id)
                        }
                    }
                } catch {
                    self.log("connection \(id): \(error)")
                }
                await self.disconnected(id)
            }
        }
    }

    func connected(_ writer: WebSocketWriter, source: String) -> SignalingRelay.ConnectionID {
        nextID += 1
        writers[nextID] = writer
        _ = relay.handle(.connected(nextID, source: source, at: clock()))
        log("connection \(nextID) from \(source)")
        return nextID
    }

    func received(_ text: [UInt8], on id: SignalingRelay.ConnectionID) async {
        for action in relay.handle(.received(id, text: text, at: clock())) {
            guard case .send(let target, let document, let rule) = action else { continue }
            if let rule { log("connection \(id): \(rule) → \(JSONSerializer.compact(document))") }
            try? await writers[target]?.send(text: JSONSerializer.compact(document))
        }
    }

    func disconnected(_ id: SignalingRelay.ConnectionID) {
        writers[id] = nil
        _ = relay.handle(.disconnected(id, at: clock()))
    }

    /// The IP address of `address` ("[IPv4]127.0.0.1/127.0.0.1:5000" in NIO's spelling): the unit
    /// the relay's rate limits count.
    static func host(of address: String) -> String {
        guard let slash = address.lastIndex(of: "/") else { return address }
        let rest = address[address.index(after: slash)...]
        guard let colon = rest.lastIndex(of: ":") else { return String(rest) }
        return String(rest[..<colon])
    }
}
