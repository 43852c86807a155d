import Foundation
import Pairing
import PairingPeer
import TestEvents
import Testing
import WebSocketTransport
import WireCore

/// The signaling client on `EdgeHost`: what it sends, what it hands on, and that no caller ever
/// waits on a client that has stopped.
@Suite("Signaling client", .timeLimit(.minutes(1)))
struct SignalingClientTests {
    /// Frames in order, and a wait for the first one that holds `text`.
    static let fast = SignalingConnectionMachine.Policy(backoff: [50], keepaliveInterval: 30_000)

    static func client(_ url: String, heard: Heard = Heard()) -> SignalingClient {
        SignalingClient(url: url, policy: fast, now: SystemClock().now, log: { _ in }, onFrame: { heard.add($0) })
    }

    /// Nothing listens: the client stops with its attempts failing, and a send after that is
    /// answered false at once (it was posted to a loop nobody read, and never answered).
    @Test func aSendAfterStopIsAnsweredAtOnce() async throws {
        let client = Self.client("ws://127.0.0.1:\(try LoopbackPort.free())")
        await client.register("did:example:phone")
        await client.stop()
        #expect(await client.send(#"{"type":"ping"}"#) == false)
    }

    /// A send while the attempt is under way waits for it; the attempt fails (nothing listens),
    /// and the send is answered false. (Not timed: a loaded CI took 12 s for what takes 10 ms here.)
    @Test func aSendWaitingForAFailedAttemptIsAnsweredFalse() async throws {
        let client = Self.client("ws://127.0.0.1:\(try LoopbackPort.free())")
        await client.register("did:example:phone")
        #expect(await client.send(#"{"type":"ping"}"#) == false)
        await client.stop()
    }

    /// A relay that accepts and never answers the upgrade: the attempt fails at the handshake
    /// timeout (10 s), the waiting send is answered false, and the client tries again after its
    /// back-off (it had stayed in its first attempt for good).
    @Test func anUnansweredUpgradeIsAbandonedAndTriedAgain() async throws {
        let server = try SilentServer()
        defer { server.close() }
        let client = Self.client("ws://127.0.0.1:\(server.port)")
        await client.register("did:example:phone")
        #expect(await client.send(#"{"type":"ping"}"#) == false)
        #expect(await server.heard.first(containing: "accepted 2") != nil)
        await client.stop()
    }

    /// A relay that answers the upgrade and then nothing, keepalives included (a half-open
    /// connection looks the same from the client): the client drops the connection one interval
    /// after its unanswered keepalive and reconnects, registering again (PAIR-CONN-003).
    @Test func anUnansweredKeepaliveDropsTheConnection() async throws {
        let listener = try await WebSocketListener.bind(host: "127.0.0.1", port: 0, maxFrameSize: 1 << 16)
        let server = Heard()
        let serving = Task {
            let opened = Heard()
            await listener.accept { connection in
                // One at a time here: the client opens its next connection only after the drop.
                opened.add("opened")
                let n = opened.all.count
                try? await connection.run { inbound, _ in
                    for try await message in inbound { if case .text(let text) = message { server.add("\(n): \(text)") } }
                }
                server.add("\(n): closed")
            }
        }
        defer { serving.cancel() }
        let policy = SignalingConnectionMachine.Policy(backoff: [50], keepaliveInterval: 200)
        let client = SignalingClient(url: "ws://127.0.0.1:\(listener.port)", policy: policy, now: SystemClock().now, log: { _ in }, onFrame: { _ in })
        await client.register("did:example:phone")
        #expect(await server.first(containing: #"2: {"type":"register""#) != nil)
        // The dead connection was cut, not left open beside the new one.
        #expect(await server.first(containing: "1: closed") != nil)
        await client.stop()
        #expect(server.all.prefix(2) == [#"1: {"type":"register","peerId":"did:example:phone"}"#, #"1: {"type":"ping"}"#])
    }

    /// Connected: the registration goes out first, then what was sent; a frame the server sends
    /// is handed on; stop closes the connection.
    @Test func registersThenSendsAndHandsFramesOn() async throws {
        let listener = try await WebSocketListener.bind(host: "127.0.0.1", port: 0, maxFrameSize: 1 << 16)
        let server = Heard()
        let serving = Task {
            await listener.accept { connection in
                try? await connection.run { inbound, writer in
                    try await writer.send(.text(#"{"type":"registered","peerId":"did:example:phone"}"#))
                    for try await message in inbound { if case .text(let text) = message { server.add(text) } }
                }
                server.add("closed")
            }
        }
        defer { serving.cancel() }
        let heard = Heard()
        let client = Self.client("ws://127.0.0.1:\(listener.port)", heard: heard)
        await client.register("did:example:phone")
        #expect(await client.send(#"{"type":"message","to":"desktop"}"#))
        #expect(await heard.first(containing: "registered") != nil)
        await client.stop()
        #expect(await server.first(containing: "closed") != nil)
        #expect(server.all == [#"{"type":"register","peerId":"did:example:phone"}"#, #"{"type":"message","to":"desktop"}"#, "closed"])
        await listener.close()
    }
}

/// The reference phone on `EdgeHost`, without a relay: every flow ends with an outcome.
@Suite("Reference phone", .timeLimit(.minutes(1)))
struct PhonePeerTests {
    /// A typed code whose ack cannot be sent (nothing listens) fails on PAIR-MAN-001.
    @Test func anAckThatCannotBeSentFailsTheManualFlow() async throws {
        let url = "ws://127.0.0.1:\(try LoopbackPort.free())"
        var options = PhonePeer.Options(
            phone: PhoneContext(activeDid: "did:example:phone", device: MobileDeviceInfo(deviceId: "p1", name: "Phone", platform: "android"), signalingUrl: url))
        options.policy = SignalingClientTests.fast
        let outcome = await PhonePeer(options).pair("123456")
        #expect(!outcome.succeeded)
        #expect(outcome.state.hasPrefix("failed (\(PairingRule.manualSendFailed) at /"), "\(outcome.state)")
    }

    /// Cancelled while it waits for a confirmation: the pairing ends `cancelled`.
    @Test func cancelEndsThePairing() async throws {
        let url = "ws://127.0.0.1:\(try LoopbackPort.free())"
        var options = PhonePeer.Options(
            phone: PhoneContext(activeDid: "did:example:phone", device: MobileDeviceInfo(deviceId: "p1", name: "Phone", platform: "android"), signalingUrl: url))
        options.policy = SignalingClientTests.fast
        let phone = PhonePeer(options)
        let shown = Heard()
        let pairing = Task { await phone.display(random: Array(repeating: 7, count: 64)) { shown.add($0) } }
        // The QR is shown after the wait for the relay's answer, which never comes.
        #expect(await shown.first(containing: "device-pairing") != nil)
        await phone.cancel()
        #expect(await pairing.value.state == "cancelled")
    }
}
