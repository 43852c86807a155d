import ConformanceKit
import Foundation
import NIOCore
import PairingPeer
import WebSocketTransport
import WireCore

/// `conformance watch`: real clients connect to the kit, which either hosts a Spec relay for
/// them (pairing) or forwards each connection to an upstream server byte for byte (a deployed
/// relay, an old phone), and every frame passes through a family's judge on the way. The same
/// events go to the session log, so `conformance check --session` judges them again offline.
public struct WatchOptions: Sendable {
    public var family: String
    public var listen: (host: String, port: Int)
    /// Forward each connection here; nil: host a Spec relay (pairing only).
    public var upstream: String?
    /// Stop after this many sessions ended.
    public var sessions: Int?
    /// Stop after this many seconds.
    public var duration: Double?
    public var log: URL?
    /// The log stops growing here: it ends with an end line at that moment (a replay judges
    /// what it holds), and the report says so.
    public var logLimit = SessionLog.defaultLimit
    /// Binary frames up to this many bytes are logged whole.
    public var binaryCap = 4096
    public var trust: TLSClientTrust = .system
    public var tlsIdentity: TLSServerIdentity?
    /// Frames up to this size pass (both ways).
    public var maxFrameSize = RelayServer.maxFrameSize
    /// Called when the listener is bound, with its port (0 picks one).
    public var ready: @Sendable (Int) -> Void = { _ in }
    /// One line per frame (on a terminal).
    public var echo: (@Sendable (String) -> Void)?
    /// Migration: the envelope's password; its segments are then authenticated as they pass.
    public var password: String?
    /// Lines `PID LABEL` naming the programs the kit started (the matrix): a connection whose
    /// socket one of them (or a process it started) holds is that program's (`SocketOwner`).
    public var owners: URL?

    public init(family: String, listen: (host: String, port: Int)) {
        self.family = family
        self.listen = listen
    }
}

public enum Watcher {
    /// Watches until `options.sessions` sessions ended, `options.duration` passed or `stop`
    /// yields, then returns the judged result. The log, when asked for, holds every event.
    public static func run(_ options: WatchOptions, judge: some WireJudge, header: SessionLog.Header, stop: AsyncStream<Void>) async throws -> WatchResult {
        let (events, sink) = AsyncStream.makeStream(of: Observed.self)
        let backlog = Backlog(limit: 64 << 20)
        let forwarding = Forwarding()
        let log = try SessionLogFile(options.log, limit: options.logLimit)
        defer { log.close() }
        log.append(SessionLog.line(header), at: header.startedAt)
        let listener = try await WebSocketListener.bind(
            host: options.listen.host, port: options.listen.port, maxFrameSize: options.maxFrameSize, tls: options.tlsIdentity)
        options.ready(listener.port)
        let serving: Task<Void, Never>
        if let upstream = options.upstream {
            serving = Task { await proxy(listener, to: upstream, options, sink, backlog, forwarding) }
        } else {
            let (owners, port) = (options.owners, listener.port)
            let relay = RelayServer(
                clock: SystemClock().now, log: { _ in },
                tap: { event in
                    sink.yield(.event(Self.event(event)))
                    if let owners, case .connected(let id, _, let client?) = event { bindOwner(id, clientPort: client, serverPort: port, owners: owners, sink) }
                })
            serving = Task { try? await relay.serve(listener) }
        }
        let timers = Self.timers(stop: stop, duration: options.duration, sink)
        var judge = judge
        // Frames are digested here, on this task, not on the forwarding ones: judging never
        // delays the transfer it watches. The envelope is put together as its chunks go past.
        var envelope = options.family == "migration" ? EnvelopeDigest(password: options.password) : nil
        func record(_ event: WireEvent) {
            log.append(SessionLog.line(event), at: event.at)
            options.echo?(WatchReport.line(event))
            judge.handle(event)
        }
        for await item in events {
            switch item {
            case .event(let event):
                record(event)
            case .frame(let id, let at, let side, let message):
                defer { backlog.remove(message.byteCount) }
                let body = body(message, from: side, cap: options.binaryCap)
                record(WireEvent(at: at, connection: id, body))
                if side == .server, envelope != nil {
                    switch (message, body) {
                    case (.text(let text), _):
                        envelope?.sender(text)
                    case (.binary(let bytes), .binary(_, let frame)):
                        for learnt in envelope?.chunk(bytes, dataSHA256: frame.restSHA256) ?? [] {
                            record(WireEvent(at: at, connection: id, learnt))
                        }
                    default:
                        break
                    }
                }
            case .tick:
                judge.tick(at: SystemClock().now())
            }
            if let wanted = options.sessions, judge.endedSessions >= wanted { break }
        }
        // Frames still in flight are neither read nor held.
        sink.finish()
        backlog.close()
        let endedAt = SystemClock().now()
        serving.cancel()
        timers.forEach { $0.cancel() }
        await listener.close()
        log.end(at: endedAt)
        var result = judge.finish(at: endedAt)
        (result.forwarded, result.unforwarded) = (forwarding.forwarded, forwarding.refused)
        if let (upstream, why) = forwarding.firstRefusal {
            // What the watch could not forward, it could not judge: said, never a silent pass.
            result.notes.append("\(forwarding.refused) connection(s) could not be forwarded to \(upstream) (first: \(why)); what they would have carried was not judged")
        }
        if let logEnded = log.cutAt {
            result.notes.append("the session log ends at \(logEnded) ms, where it reached its limit of \(options.logLimit) bytes (--log-limit-mb): what came after was judged here and is not in it")
        }
        return result
    }

    /// What ends a watch besides its sessions (`stop` yielding, `duration` passing), and the tick
    /// every quarter second by which a session waiting for an answer ends when it is due.
    private static func timers(stop: AsyncStream<Void>, duration: Double?, _ sink: AsyncStream<Observed>.Continuation) -> [Task<Void, Never>] {
        let (ends, end) = AsyncStream.makeStream(of: Void.self)
        let stopping = Task {
            for await _ in stop {
                end.yield()
                return
            }
        }
        let timing = duration.map { seconds in
            Task {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                end.yield()
            }
        }
        let ending = Task {
            for await _ in ends {
                sink.finish()
                return
            }
        }
        let ticking = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                sink.yield(.tick)
            }
        }
        return [ticking, stopping, ending] + (timing.map { [$0] } ?? [])
    }

    static func event(_ tap: RelayTapEvent) -> WireEvent {
        let now = SystemClock().now()
        switch tap {
        case .connected(let id, let source, _): return WireEvent(at: now, connection: id, .open(peer: source, path: "/"))
        case .text(let id, let text): return WireEvent(at: now, connection: id, .text(from: .client, text))
        case .binary(let id, let bytes): return WireEvent(at: now, connection: id, .binary(from: .client, .init(bytes, cap: 4096)))
        case .ping(let id): return WireEvent(at: now, connection: id, .ping(from: .client))
        case .pong(let id): return WireEvent(at: now, connection: id, .pong(from: .server))
        case .closed(let id, let byClient): return WireEvent(at: now, connection: id, .close(by: byClient ? .client : nil, code: nil))
        case .sent(let id, let text): return WireEvent(at: now, connection: id, .text(from: .server, text))
        }
    }

    /// Connection `id` is the program's whose process holds its client socket: found at once,
    /// while the socket is open, but off the caller's thread (the relay's tap runs on its event
    /// loop, and the search reads /proc of every process); labelled once `owners` names it.
    static func bindOwner(_ id: Int, clientPort: Int, serverPort: Int, owners: URL, _ sink: AsyncStream<Observed>.Continuation) {
        Task.detached {
            let chain = SocketOwner.processes(clientPort: clientPort, serverPort: serverPort)
            guard let label = await SocketOwner.label(owners: owners, chain: chain) else { return }
            sink.yield(.event(WireEvent(at: SystemClock().now(), connection: id, .owner(label))))
        }
    }

    /// Each client connection is forwarded to `upstream` on a connection of its own; frames pass
    /// unchanged both ways (a text frame's bytes are its validated UTF-8), and whichever side
    /// ends first ends the other.
    static func proxy(
        _ listener: WebSocketListener, to upstream: String, _ options: WatchOptions, _ sink: AsyncStream<Observed>.Continuation, _ backlog: Backlog,
        _ forwarding: Forwarding
    ) async {
        let numbers = ConnectionNumbers()
        await listener.accept { client in
            let id = numbers.next()
            sink.yield(.event(WireEvent(at: SystemClock().now(), connection: id, .open(peer: client.remoteAddress, path: "/"))))
            if let owners = options.owners, let port = client.remotePort { bindOwner(id, clientPort: port, serverPort: listener.port, owners: owners, sink) }
            let server: WebSocketConnection
            do {
                server = try await WebSocketClient.connect(to: upstream, maxFrameSize: options.maxFrameSize, trust: options.trust)
                forwarding.reached()
            } catch {
                forwarding.refused(upstream, "\(error)")
                sink.yield(.event(WireEvent(at: SystemClock().now(), connection: id, .close(by: .server, code: nil))))
                return
            }
            let closer = Closer()
            // The client's ping frames are answered here, by this side's transport: the pong is
            // what the client hears (upstream's own pings to the watch never reach it).
            let pinged: @Sendable () -> Bool = {
                let now = SystemClock().now()
                sink.yield(.event(WireEvent(at: now, connection: id, .ping(from: .client))))
                sink.yield(.event(WireEvent(at: now, connection: id, .pong(from: .server))))
                return true
            }
            try? await client.run(onPing: pinged) { fromClient, toClient in
                try await server.run(onPing: {
                    sink.yield(.event(WireEvent(at: SystemClock().now(), connection: id, .ping(from: .server))))
                    return true
                }) { fromServer, toServer in
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask {
                            var frames = fromClient.makeAsyncIterator()
                            do {
                                while let message = try await frames.next() {
                                    let at = SystemClock().now()
                                    // Recorded before it is passed on: the answer it causes can
                                    // only be recorded after it (the judge reads causal order).
                                    await backlog.add(message.byteCount)
                                    sink.yield(.frame(id, at, .client, message))
                                    try await toServer.send(message)
                                }
                            } catch {}
                            // Who closed is who sent a close frame; a connection that just ended was dropped.
                            closer.first(.client, frame: frames.closeFrame)
                            await toServer.close()
                        }
                        group.addTask {
                            var frames = fromServer.makeAsyncIterator()
                            do {
                                while let message = try await frames.next() {
                                    let at = SystemClock().now()
                                    // Recorded before it is passed on: the answer it causes can
                                    // only be recorded after it (the judge reads causal order).
                                    await backlog.add(message.byteCount)
                                    sink.yield(.frame(id, at, .server, message))
                                    try await toClient.send(message)
                                }
                            } catch {}
                            closer.first(.server, frame: frames.closeFrame)
                            await toClient.close()
                        }
                        await group.next()
                        group.cancelAll()
                    }
                }
            }
            sink.yield(.event(WireEvent(at: SystemClock().now(), connection: id, .close(by: closer.side, code: closer.code))))
        }
    }

    static func body(_ message: WebSocketMessage, from side: WireEvent.Side, cap: Int) -> WireEvent.Body {
        switch message {
        case .text(let text): return .text(from: side, text)
        case .binary(let bytes): return .binary(from: side, .init(bytes, cap: cap))
        }
    }
}

/// What the live edges hand the watch's one consumer: an event, a frame still to be digested
/// (its log form, the envelope), or a tick (time passed without a frame).
enum Observed: Sendable {
    case event(WireEvent)
    case frame(Int, EpochMillis, WireEvent.Side, WebSocketMessage)
    case tick
}

/// The bytes of frames passed on but not yet digested: past `limit` the forwarding waits, so a
/// watch that digests slower than the peers transfer holds at most about that much.
final class Backlog: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int
    private var bytes = 0
    private var closed = false
    private var waiting: [(bytes: Int, go: CheckedContinuation<Void, Never>)] = []

    init(limit: Int) { self.limit = limit }

    /// Counts `n` more bytes, waiting first while the backlog is over its limit.
    func add(_ n: Int) async {
        await withCheckedContinuation { (go: CheckedContinuation<Void, Never>) in
            lock.lock()
            if bytes <= limit || closed {
                bytes += n
                lock.unlock()
                go.resume()
            } else {
                waiting.append((n, go))
                lock.unlock()
            }
        }
    }

    func remove(_ n: Int) {
        lock.lock()
        bytes -= n
        var ready: [CheckedContinuation<Void, Never>] = []
        while bytes <= limit, !waiting.isEmpty {
            let next = waiting.removeFirst()
            bytes += next.bytes
            ready.append(next.go)
        }
        lock.unlock()
        for go in ready { go.resume() }
    }

    /// The consumer stopped: nobody waits any more.
    func close() {
        lock.lock()
        closed = true
        let ready = waiting.map(\.go)
        waiting = []
        lock.unlock()
        for go in ready { go.resume() }
    }
}

extension WebSocketMessage {
    var byteCount: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .binary(let bytes): return bytes.count
        }
    }
}

/// How many client connections reached the upstream, how many it refused, and why the first was.
final class Forwarding: @unchecked Sendable {
    private let lock = NSLock()
    private var counts = (forwarded: 0, refused: 0)
    private var first: (upstream: String, why: String)?
    func reached() { lock.withLock { counts.forwarded += 1 } }
    func refused(_ upstream: String, _ why: String) {
        lock.withLock {
            counts.refused += 1
            if first == nil { first = (upstream, why) }
        }
    }
    var forwarded: Int { lock.withLock { counts.forwarded } }
    var refused: Int { lock.withLock { counts.refused } }
    var firstRefusal: (String, String)? { lock.withLock { first } }
}

/// The watch's numbers for connections, from 1.
final class ConnectionNumbers: @unchecked Sendable {
    private let lock = NSLock()
    private var last = 0
    func next() -> Int { lock.withLock { last += 1; return last } }
}

/// Which side of a forwarded connection closed it first, with a close frame (nil: it was
/// dropped), and the frame's code.
final class Closer: @unchecked Sendable {
    private let lock = NSLock()
    private var ended = false
    private var value: (side: WireEvent.Side?, code: Int?) = (nil, nil)
    func first(_ side: WireEvent.Side, frame: WebSocketClose?) {
        lock.withLock {
            guard !ended else { return }
            ended = true
            value = frame.map { (side, $0.code.map(Int.init)) } ?? (nil, nil)
        }
    }
    var side: WireEvent.Side? { lock.withLock { value.side } }
    var code: Int? { lock.withLock { value.code } }
}
