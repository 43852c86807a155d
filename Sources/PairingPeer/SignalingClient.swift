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
    /// Keep a connection whose keepalives went unanswered, as iOS and the desktop do (PAIR-CONN-003).
    public var keepDeadConnection = false

    public init() {}
}

/// A client's connection to one signaling URL: the edge of `SignalingConnectionMachine` (Spec
/// pairing.md 4.4), run by `EdgeHost`. It reconnects with back-off, registers again what it
/// holds, sends `{type:"ping"}` as its keepalive (the form the deployed relay counts) and hands
/// every text frame it receives to `onFrame`.
public final class SignalingClient: Sendable {
    public let url: String
    private let edge: Edge<Input>
    private let run: Task<Void, Never>
    private let answers = SendAnswers()

    enum Input: Sendable {
        case register(String, target: String?)
        case release(String)
        /// A frame to send now, or once the attempt under way opens; the answer is whether it went.
        case send(String, SendAnswer)
        case stop
        case connection(ConnectionEvent)
        case connectFailed(String)
        /// The closing handshake took too long: the connection is cut.
        case cut
    }

    public init(
        url: String, policy: SignalingConnectionMachine.Policy, trust: TLSClientTrust = .system, faults: ClientFaults = ClientFaults(),
        now: @escaping @Sendable () -> EpochMillis, log: @escaping @Sendable (String) -> Void, onFrame: @escaping @Sendable (String) async -> Void
    ) {
        self.url = url
        // The no-backoff fault: every attempt at once.
        let machine = SignalingConnectionMachine(policy: faults.noBackoff ? .init(backoff: [0], keepaliveInterval: policy.keepaliveInterval) : policy)
        let edge = Edge<Input>(now: now)
        self.edge = edge
        // Received text frames, in order, handed to `onFrame` by their own task: a handler that
        // stops this client never waits on the loop that is delivering to it.
        let (stream, frames) = AsyncStream.makeStream(of: String.self)
        let performer = Performer(url: url, trust: trust, faults: faults, log: log, frames: frames)
        let answers = answers
        run = Task {
            _ = try? await EdgeHost.run(machine, performer, on: edge)
            answers.end()
            frames.finish()
        }
        Task {
            for await text in stream { await onFrame(text) }
        }
    }

    /// Holds `peerId` (registered now when connected, and after every reconnection); connects
    /// when not yet started.
    public func register(_ peerId: String, target: String? = nil) async {
        edge.post(.register(peerId, target: target))
    }

    public func release(_ peerId: String) async {
        edge.post(.release(peerId))
    }

    /// Sends one text frame: at once when connected, after the attempt under way when
    /// connecting. False when there is no connection to send on.
    public func send(_ text: String) async -> Bool {
        await withCheckedContinuation { continuation in
            // A client that has stopped answers at once: nothing would read what is posted.
            if let answer = answers.open(continuation) { edge.post(.send(text, answer)) }
        }
    }

    /// Closes the connection for good; returns once it has closed (frames received before are
    /// still handed on, by their own task: a handler may be the one stopping).
    public func stop() async {
        edge.post(.stop)
        await run.value
    }

    deinit { run.cancel() }

    struct Performer: EdgePerformer {
        let url: String
        let trust: TLSClientTrust
        let faults: ClientFaults
        let log: @Sendable (String) -> Void
        let frames: AsyncStream<String>.Continuation
        /// With `faults.registerTargetID`: the id registered instead of the client's own.
        var target: String?
        var current: (writer: WebSocketWriter, id: UUID)?
        /// Connections opened so far (the first registers; later ones register again).
        var opens = 0
        /// Senders waiting for the attempt under way.
        var waiting: [(text: String, answer: SendAnswer)] = []
        /// Stopped: the run ends once the connection has.
        var stopping = false

        mutating func events(
            for input: Input, at now: EpochMillis, _ machine: SignalingConnectionMachine, _ edge: Edge<Input>
        ) async throws -> [SignalingConnectionMachine.Event] {
            switch input {
            case .register(let peerId, let target):
                if let target { self.target = target }
                return [.register(peerId: peerId, at: now), .start(at: now)]
            case .release(let peerId):
                return [.release(peerId: peerId, at: now)]
            case .send(let text, let answer):
                if current == nil, case .connecting = machine.state {
                    // Answered when the attempt opens or fails: a server that never answers the
                    // upgrade fails it at the handshake timeout (`WebSocketClient.connect`).
                    waiting.append((text, answer))
                } else {
                    answer.resume(returning: await send(text))
                }
                return []
            case .stop:
                return [.stop(at: now)]
            case .cut:
                current?.writer.abort()
                return []
            case .connectFailed(let why):
                log("\(url): \(why)")
                answerWaiting(sent: false)
                return [.failed(at: now)]
            case .connection(let event):
                return await connection(event, at: now)
            }
        }

        private mutating func connection(_ event: ConnectionEvent, at now: EpochMillis) async -> [SignalingConnectionMachine.Event] {
            switch event {
            case .connected(let writer, let id):
                current = (writer, id)
                opens += 1
                log("\(url): connected")
                return [.opened(at: now)]
            case .received(let message, let id):
                guard current?.id == id else { return [] }
                if case .text(let text) = message { frames.yield(text) }
                // Any frame is a sign of life: the relay's pong, or anything it forwards.
                return [.heard(at: now)]
            case .frameRefused:
                return []
            case .disconnected(let id, let error):
                guard current?.id == id else { return [] }
                current = nil
                if let error { log("\(url): \(error)") }
                answerWaiting(sent: false)
                return [.failed(at: now)]
            }
        }

        mutating func perform(
            _ action: SignalingConnectionMachine.Action, _ machine: SignalingConnectionMachine, _ edge: Edge<Input>
        ) async throws -> Performed<SignalingConnectionMachine.Event> {
            switch action {
            case .connect:
                let (url, trust) = (url, trust)
                edge.spawn {
                    let socket: WebSocketConnection
                    do {
                        socket = try await WebSocketClient.connect(to: url, maxFrameSize: 1 << 16, trust: trust)
                    } catch {
                        if !(error is CancellationError) { edge.post(.connectFailed("\(error)")) }
                        return
                    }
                    await socket.pump { edge.post(.connection($0)) }
                }
            case .sendRegister(let peerId, let rule):
                // The echo-loop fault: a re-register after a reconnection claims the target's id.
                let id = (faults.registerTargetID && rule != nil && opens > 1 ? target : nil) ?? peerId
                _ = await send(JSONSerializer.compact(Register(peerId: id).canonical))
            case .ping:
                // The no-keepalive fault sends none, and so awaits no answer.
                guard !faults.noKeepalive else { return Performed(followUp: [.heard(at: edge.now())]) }
                _ = await send(#"{"type":"ping"}"#)
                // The fault takes every keepalive for answered (iOS ignores a failed sendPing).
                if faults.keepDeadConnection { return Performed(followUp: [.heard(at: edge.now())]) }
            case .drop:
                log("\(url): no answer to the keepalive within its interval: reconnecting")
                current?.writer.abort()
                current = nil
            case .close:
                stopping = true
                answerWaiting(sent: false)
                if let writer = current?.writer {
                    // The closing handshake, so that what was sent last (an ack, a confirmation)
                    // leaves before the connection does; cut after two seconds without an answer.
                    await writer.close()
                    edge.spawn {
                        try? await Task.sleep(for: .seconds(2))
                        edge.post(.cut)
                    }
                }
            }
            return .done
        }

        mutating func settled(_ machine: SignalingConnectionMachine, _ edge: Edge<Input>) async throws -> Settled<Void, SignalingConnectionMachine.Event> {
            // Opened: what waited for the attempt goes out, after the machine's own registrations.
            if case .open = machine.state, !waiting.isEmpty {
                let all = waiting
                waiting = []
                for (text, answer) in all { answer.resume(returning: await send(text)) }
            }
            return stopping && current == nil ? .end(()) : .goOn
        }

        private func send(_ text: String) async -> Bool {
            guard let writer = current?.writer else { return false }
            do {
                try await writer.send(text: text)
                return true
            } catch {
                return false
            }
        }

        private mutating func answerWaiting(sent: Bool) {
            let all = waiting
            waiting = []
            for (_, answer) in all { answer.resume(returning: sent) }
        }
    }
}

/// The answer to one `send`, given once: by the client's loop, or `false` when the client ends
/// with the send still open (a caller never waits on a loop that has stopped reading).
final class SendAnswer: Sendable {
    fileprivate let id: Int
    private let answers: SendAnswers

    fileprivate init(id: Int, answers: SendAnswers) {
        self.id = id
        self.answers = answers
    }

    func resume(returning sent: Bool) { answers.answer(id, sent) }
}

/// A client's open sends.
final class SendAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var open: [Int: CheckedContinuation<Bool, Never>] = [:]
    private var next = 0
    private var ended = false

    /// The answer for `continuation`, or nil (and `continuation` answered false) once the client has ended.
    func open(_ continuation: CheckedContinuation<Bool, Never>) -> SendAnswer? {
        let id: Int? = lock.withLock {
            guard !ended else { return nil }
            next += 1
            open[next] = continuation
            return next
        }
        guard let id else {
            continuation.resume(returning: false)
            return nil
        }
        return SendAnswer(id: id, answers: self)
    }

    fileprivate func answer(_ id: Int, _ sent: Bool) {
        lock.withLock { open.removeValue(forKey: id) }?.resume(returning: sent)
    }

    /// Every send still open is answered false; later ones are at once.
    func end() {
        let all = lock.withLock {
            ended = true
            defer { open = [:] }
            return Array(open.values)
        }
        for continuation in all { continuation.resume(returning: false) }
    }
}
