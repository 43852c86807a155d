import Foundation
import WireCore

/// What a peer does with its machine at the edge: turns what happened (a frame, a connection, a
/// user's answer) into the machine's events and carries out the actions the machine returns. The
/// loop around it (mailbox, clock, alarm, task group) is `EdgeHost`'s, the same for every peer.
public protocol EdgePerformer {
    associatedtype Hosted: TimedMachine
    associatedtype Input: Sendable
    associatedtype Ending: Sendable

    /// The machine's events `input` stands for, in order; none when it is the edge's business
    /// alone (a second connection turned away, a frame from a connection already replaced).
    mutating func events(for input: Input, at now: EpochMillis, _ machine: Hosted, _ edge: Edge<Input>) async throws -> [Hosted.Event]

    /// Runs after each step, before its actions: what the performer judges of the machine's new
    /// state at once (the runner's own fault bookkeeping).
    mutating func stepped(_ machine: Hosted, _ edge: Edge<Input>) async throws

    /// Carries out one action.
    mutating func perform(_ action: Hosted.Action, _ machine: Hosted, _ edge: Edge<Input>) async throws -> Performed<Hosted.Event>

    /// After an input's steps and actions: go on, end, or feed the machine more events first.
    mutating func settled(_ machine: Hosted, _ edge: Edge<Input>) async throws -> Settled<Ending, Hosted.Event>
}

/// What comes after an input has been dealt with.
public enum Settled<Ending, Event> {
    /// Wait for the next input.
    case goOn
    /// The run is over.
    case end(Ending)
    /// The machine hears these before any input (a stage the edge begins once the last ended:
    /// the WebRTC exchange after pairing).
    case then([Event])
}

extension EdgePerformer {
    public mutating func stepped(_ machine: Hosted, _ edge: Edge<Input>) async throws {}
}

/// What performing an action leads to.
public struct Performed<Event: Sendable>: Sendable {
    /// Events the machine hears next, before any later input (a file verified, a package refused).
    public var followUp: [Event]
    /// The rest of the step's actions are not carried out (the follow-up decides instead).
    public var skipsRest: Bool

    public init(followUp: [Event] = [], skipsRest: Bool = false) {
        self.followUp = followUp
        self.skipsRest = skipsRest
    }

    /// Done, nothing follows.
    public static var done: Performed { Performed() }
}

/// An alarm the host sets to the machine's `nextDeadline` after every input: `DeadlineAlarm` at
/// the edge, a hand-rung one in tests.
public protocol HostAlarm: Sendable {
    func set(_ deadline: EpochMillis?, now: EpochMillis, ring: @escaping @Sendable () async -> Void)
    func cancel()
}

extension DeadlineAlarm: HostAlarm {}

/// The performer's handle on its host: post inputs from anywhere, start work that ends with the
/// run, read the clock. Made before the run when others must post to it from the start.
public struct Edge<Input: Sendable>: Sendable {
    let items: AsyncStream<EdgeHost.Item<Input>>
    let mailbox: AsyncStream<EdgeHost.Item<Input>>.Continuation
    let spawned = SpawnQueue()
    /// The clock every event's time is read from.
    public let now: @Sendable () -> EpochMillis

    public init(now: @escaping @Sendable () -> EpochMillis = SystemClock().now) {
        (items, mailbox) = AsyncStream.makeStream()
        self.now = now
    }

    /// Delivers `input` to the loop, after what is already waiting.
    public func post(_ input: Input) { mailbox.yield(.input(input)) }

    /// Runs `work` beside the loop (a connection, a question to the user, a package build); it is
    /// cancelled when the run ends, and the run does not return before it has.
    public func spawn(_ work: @escaping @Sendable () async -> Void) { spawned.append(work) }
}

/// Work a performer asked for, handed to the host's task group by the loop (a task group cannot
/// be reached from outside its body).
final class SpawnQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [@Sendable () async -> Void] = []

    func append(_ work: @escaping @Sendable () async -> Void) { lock.withLock { waiting.append(work) } }

    func take() -> [@Sendable () async -> Void] {
        lock.withLock {
            defer { waiting = [] }
            return waiting
        }
    }
}

/// The one loop every reference peer runs around its machine (quinn-proto's endpoint driver): one
/// input at a time from a mailbox, each turned into events, each event a step whose actions the
/// performer carries out (their follow-ups first), then one alarm set to the machine's
/// `nextDeadline`, whose ring is the machine's tick.
public enum EdgeHost {
    enum Item<Input: Sendable>: Sendable {
        case input(Input)
        case tick
    }

    /// Runs `machine` with `performer` until `settled` says how it ends. `start` posts the first
    /// inputs or spawns the first work (a connection). A thrown error ends the run with it.
    public static func run<Performer: EdgePerformer>(
        _ machine: Performer.Hosted, _ performer: Performer, now: @escaping @Sendable () -> EpochMillis = SystemClock().now,
        alarm: any HostAlarm = DeadlineAlarm(), start: (Edge<Performer.Input>) -> Void
    ) async throws -> Performer.Ending where Performer.Hosted: Sendable {
        let edge = Edge<Performer.Input>(now: now)
        start(edge)
        return try await run(machine, performer, on: edge, alarm: alarm)
    }

    /// As above, on an edge made beforehand (each can be run once).
    public static func run<Performer: EdgePerformer>(
        _ machine: Performer.Hosted, _ performer: Performer, on edge: Edge<Performer.Input>, alarm: any HostAlarm = DeadlineAlarm()
    ) async throws -> Performer.Ending where Performer.Hosted: Sendable {
        var machine = machine
        var performer = performer
        let mailbox = edge.mailbox
        return try await withThrowingTaskGroup(of: Void.self) { group in
            defer {
                alarm.cancel()
                group.cancelAll()
            }
            func launch() {
                for work in edge.spawned.take() { group.addTask { await work() } }
            }
            launch()
            for await item in edge.items {
                var pending: [Performer.Hosted.Event]
                switch item {
                case .tick: pending = [Performer.Hosted.tick(at: edge.now())]
                case .input(let input): pending = try await performer.events(for: input, at: edge.now(), machine, edge)
                }
                launch()
                settling: while true {
                    while !pending.isEmpty {
                        let step = machine.step(pending.removeFirst())
                        try await performer.stepped(machine, edge)
                        for action in step.actions {
                            let performed = try await performer.perform(action, machine, edge)
                            launch()
                            pending += performed.followUp
                            if performed.skipsRest { break }
                        }
                    }
                    switch try await performer.settled(machine, edge) {
                    case .goOn: break settling
                    case .end(let ending): return ending
                    case .then(let events): pending = events
                    }
                }
                launch()
                alarm.set(machine.nextDeadline, now: edge.now()) { mailbox.yield(.tick) }
            }
            // The mailbox never finishes while `edge` is held here: the run was cancelled.
            throw CancellationError()
        }
    }
}
