import Foundation
import Pairing
import WebSocketTransport
import WireCore

/// Ways the reference clients misbehave on purpose, so that the runner can be seen to catch them
/// (Conformance/scenarios/README.md).
public struct ClientFaults: Sendable, Hashable {
    /// After a reconnection, register the target's id instead of its own (the echo-loop trap).
    public var registerTargetID = false
    /// Reconnect at once, without back-off.
    public var noBackoff = false
    /// Send no keepalive.
    public var noKeepalive = false

    public init() {}
}

/// A client's connection to one signaling URL: the edge of `SignalingConnectionMachine` (Spec
/// pairing.md 4.4). It reconnects with back-off, registers again what it holds, sends
/// `{type:"ping"}` as its keepalive (the form the deployed relay counts) and hands every text
/// frame it receives to `onFrame`.
public actor SignalingClient {
    public let url: String
    private var machine: SignalingConnectionMachine
    private let now: @Sendable () -> EpochMillis
    /// Received text frames, in order, handed to `onFrame` by their own task: a handler that
    /// stops this client never waits on the connection that is delivering to it.
    private let frames: AsyncStream<String>.Continuation
    private let pump: Task<Void, Never>
    private let log: @Sendable (String) -> Void
    private let trust: TLSClientTrust
    private var faults: ClientFaults
    /// With `faults.registerTargetID`: the id registered instead of the client's own.
    private var target: String?
    private var writer: WebSocketWriter?
    /// Connections opened so far (the first registers; later ones register again).
    private var opens = 0
    private let timer = DeadlineAlarm()
    private var connection: Task<Void, Never>?
    /// Senders waiting for the attempt under way: true when it opened.
    private var waiting: [CheckedContinuation<Bool, Never>] = []

    public init(
        url: String, policy: SignalingConnectionMachine.Policy, trust: TLSClientTrust = .system, faults: ClientFaults = ClientFaults(),
        now: @escaping @Sendable () -> EpochMillis, log: @escaping @Sendable (String) -> Void, onFrame: @escaping @Sendable (String) async -> Void
    ) {
        self.url = url
        // The no-backoff fault: every attempt at once.
        machine = SignalingConnectionMachine(policy: faults.noBackoff ? .init(backoff: [0], keepaliveInterval: policy.keepaliveInterval) : policy)
        self.trust = trust
        self.faults = faults
        self.now = now
        self.log = log
        let (stream, frames) = AsyncStream.makeStream(of: String.self)
        self.frames = frames
        pump = Task {
            for await text in stream { await onFrame(text) }
        }
    }

    /// Holds `peerId` (registered now when connected, and after every reconnection); connects
    /// when not yet started.
    public func register(_ peerId: String, target: String? = nil) async {
        if let target { self.target = target }
        await perform(machine.handle(.register(peerId: peerId, at: now())))
        await perform(machine.handle(.start(at: now())))
    }

    public func release(_ peerId: String) async {
        await perform(machine.handle(.release(peerId: peerId, at: now())))
    }

    /// Sends one text frame: at once when connected, after the attempt under way when
    /// connecting. False when there is no connection to send on.
    public func send(_ text: String) async -> Bool {
        if writer == nil, case .connecting = machine.state {
            // A server that accepts and never answers the upgrade must not hold a sender forever.
            let limit = Task {
                try? await Task.sleep(for: .seconds(10))
                if !Task.isCancelled { self.resumeWaiting(false) }
            }
            let opened = await withCheckedContinuation { waiting.append($0) }
            limit.cancel()
            guard opened else { return false }
        }
        guard let writer else { return false }
        do {
            try await writer.send(text: text)
            return true
        } catch {
            return false
        }
    }

    /// Closes the connection for good.
    public func stop() async {
        await perform(machine.handle(.stop(at: now())))
    }

    private func perform(_ actions: [SignalingConnectionMachine.Action]) async {
        // The machine has moved already; its deadline is set before the actions await.
        timer.set(machine.nextDeadline, now: now()) { await self.tick() }
        for action in actions {
            switch action {
            case .connect:
                connect()
            case .sendRegister(let peerId, let rule):
                // The echo-loop fault: a re-register after a reconnection claims the target's id.
                let id = (faults.registerTargetID && rule != nil && opens > 1 ? target : nil) ?? peerId
                try? await writer?.send(text: JSONSerializer.compact(Register(peerId: id).canonical))
            case .ping:
                if !faults.noKeepalive { try? await writer?.send(text: #"{"type":"ping"}"#) }
            case .close:
                resumeWaiting(false)
                frames.finish()
                let session = connection
                if let writer {
                    self.writer = nil
                    // The closing handshake, so that what was sent last (an ack, a confirmation)
                    // leaves before the connection does; cut after two seconds without an answer.
                    await writer.close()
                    let cutter = Task {
                        try? await Task.sleep(for: .seconds(2))
                        session?.cancel()
                    }
                    await session?.value
                    cutter.cancel()
                } else {
                    session?.cancel()
                }
            }
        }
    }

    private func connect() {
        connection = Task { await Self.session(self) }
    }

    /// One connection, from the attempt to its end; outside the actor, so that frames are read
    /// while the actor works.
    private nonisolated static func session(_ client: SignalingClient) async {
        do {
            let socket = try await WebSocketClient.connect(to: client.url, maxFrameSize: 1 << 16, trust: client.trust)
            try await socket.run { inbound, writer in
                await client.opened(writer)
                for try await message in inbound {
                    if case .text(let text) = message { client.frames.yield(text) }
                }
            }
        } catch is CancellationError {
            // Stopped: nothing to report.
        } catch {
            client.log("\(client.url): \(error)")
        }
        await client.failed()
    }

    private func opened(_ writer: WebSocketWriter) async {
        self.writer = writer
        opens += 1
        log("\(url): connected")
        await perform(machine.handle(.opened(at: now())))
        resumeWaiting(true)
    }

    private func failed() async {
        writer = nil
        await perform(machine.handle(.failed(at: now())))
        resumeWaiting(false)
    }

    private func tick() async {
        await perform(machine.handle(.tick(at: now())))
    }

    private func resumeWaiting(_ opened: Bool) {
        let all = waiting
        waiting = []
        for continuation in all { continuation.resume(returning: opened) }
    }
}
