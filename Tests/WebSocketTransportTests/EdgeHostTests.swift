import Foundation
import TestEvents
import Testing
import WebSocketTransport
import WireCore

/// The one loop every reference peer runs (`EdgeHost`), in memory: a hand-set clock, an alarm the
/// test rings, and a small machine whose performer writes down what it does.
@Suite("The edge host", .timeLimit(.minutes(1)))
struct EdgeHostTests {
    /// A request, its answer, and a time limit.
    struct Asker: TimedMachine {
        enum Event: Sendable { case start(at: EpochMillis), answer(Int), tick(at: EpochMillis) }
        enum Action: Sendable, Hashable { case ask(Int), say(String) }
        var deadline: EpochMillis?
        var ended: String?

        static func tick(at time: EpochMillis) -> Event { .tick(at: time) }
        var nextDeadline: EpochMillis? { ended == nil ? deadline : nil }

        mutating func step(_ event: Event) -> Step<Action> {
            switch (ended, event) {
            case (.some, _): return .ignored("ended")
            case (nil, .start(let at)):
                deadline = at + 100
                return [.ask(1), .say("asked")]
            case (nil, .answer(let n)):
                if n == 2 { ended = "answered" }
                return [.say("answer \(n)")]
            case (nil, .tick(let at)):
                guard let deadline, at >= deadline else { return .ignored("early") }
                ended = "timed out at \(at)"
                return [.say("timed out")]
            }
        }
    }

    enum Input: Sendable { case start, answer(Int), fail }
    struct Broke: Error, Equatable {}

    struct Performer: EdgePerformer {
        let log: Heard
        /// The ask whose answer replaces the rest of its step.
        var skipsAfter: Int?
        /// Once settled, the machine hears this before any input.
        var then: Asker.Event?

        mutating func events(for input: Input, at now: EpochMillis, _ machine: Asker, _ edge: Edge<Input>) async throws -> [Asker.Event] {
            log.add("input \(input)")
            switch input {
            case .start: return [.start(at: now)]
            case .answer(let n): return [.answer(n)]
            case .fail: throw Broke()
            }
        }

        mutating func perform(_ action: Asker.Action, _ machine: Asker, _ edge: Edge<Input>) async throws -> Performed<Asker.Event> {
            log.add("\(action)")
            guard case .ask(let n) = action else { return .done }
            return Performed(followUp: [.answer(n)], skipsRest: skipsAfter == n)
        }

        mutating func settled(_ machine: Asker, _ edge: Edge<Input>) async throws -> Settled<String, Asker.Event> {
            log.add("settled")
            if let ended = machine.ended { return .end(ended) }
            if let next = then {
                then = nil
                return .then([next])
            }
            return .goOn
        }
    }

    final class HandClock: @unchecked Sendable {
        private let lock = NSLock()
        private var instant: EpochMillis = 1_000
        func now() -> EpochMillis { lock.withLock { instant } }
        func set(_ time: EpochMillis) { lock.withLock { instant = time } }
    }

    /// Rung by the test; each deadline the host sets is streamed, so the test waits for it.
    final class HandAlarm: HostAlarm, @unchecked Sendable {
        private let lock = NSLock()
        private var ring: (@Sendable () async -> Void)?
        let armed: AsyncStream<EpochMillis?>
        private let arming: AsyncStream<EpochMillis?>.Continuation
        init() { (armed, arming) = AsyncStream.makeStream() }
        func set(_ deadline: EpochMillis?, now: EpochMillis, ring: @escaping @Sendable () async -> Void) {
            lock.withLock { self.ring = deadline == nil ? nil : ring }
            arming.yield(deadline)
        }
        func cancel() { lock.withLock { ring = nil } }
        func fire() async { await lock.withLock { ring }?() }
    }

    /// A follow-up is heard before the next input, after the rest of its step's actions.
    @Test func followUpsComeBeforeTheNextInput() async throws {
        let log = Heard()
        let alarm = HandAlarm()
        let ending = try await EdgeHost.run(Asker(), Performer(log: log), now: HandClock().now, alarm: alarm) { edge in
            edge.post(.start)
            edge.post(.answer(2))
        }
        #expect(ending == "answered")
        #expect(log.all == ["input start", "ask(1)", "say(\"asked\")", "say(\"answer 1\")", "settled", "input answer(2)", "say(\"answer 2\")", "settled"])
    }

    /// What `settled` hands back is stepped before the next input.
    @Test func settlingCanFeedTheMachineFirst() async throws {
        let log = Heard()
        let ending = try await EdgeHost.run(Asker(), Performer(log: log, then: .answer(2)), now: HandClock().now, alarm: HandAlarm()) { edge in
            edge.post(.start)
            edge.post(.answer(3))
        }
        #expect(ending == "answered")
        #expect(log.all == ["input start", "ask(1)", "say(\"asked\")", "say(\"answer 1\")", "settled", "say(\"answer 2\")", "settled"])
    }

    @Test func aFollowUpThatSkipsTheRestEndsItsStep() async throws {
        let log = Heard()
        let ending = try await EdgeHost.run(Asker(), Performer(log: log, skipsAfter: 1), now: HandClock().now, alarm: HandAlarm()) { edge in
            edge.post(.start)
            edge.post(.answer(2))
        }
        #expect(ending == "answered")
        #expect(log.all == ["input start", "ask(1)", "say(\"answer 1\")", "settled", "input answer(2)", "say(\"answer 2\")", "settled"])
    }

    /// The alarm is set to the machine's deadline after each input; its ring is a tick at the
    /// clock's time.
    @Test func theAlarmRingsTheMachinesTick() async throws {
        let clock = HandClock()
        let alarm = HandAlarm()
        async let ending = EdgeHost.run(Asker(), Performer(log: Heard()), now: clock.now, alarm: alarm) { $0.post(.start) }
        var deadlines = alarm.armed.makeAsyncIterator()
        #expect(await deadlines.next() == 1_100)
        clock.set(1_050)
        await alarm.fire()
        // Early: the machine ignores it and states the same deadline again.
        #expect(await deadlines.next() == 1_100)
        clock.set(1_100)
        await alarm.fire()
        #expect(try await ending == "timed out at 1100")
    }

    /// Spawned work is cancelled when the run ends, and the run returns only after it has ended.
    @Test func spawnedWorkEndsWithTheRun() async throws {
        let log = Heard()
        let ending = try await EdgeHost.run(Asker(), Performer(log: log), now: HandClock().now, alarm: HandAlarm()) { edge in
            edge.spawn {
                log.add("waiting")
                await untilCancelled()
                log.add(Task.isCancelled ? "cancelled" : "ended uncancelled")
            }
            edge.spawn {
                await log.seen("waiting")
                edge.post(.start)
                edge.post(.answer(2))
            }
        }
        #expect(ending == "answered")
        #expect(log.all.last == "cancelled")
    }

    @Test func aThrownErrorEndsTheRun() async throws {
        let log = Heard()
        await #expect(throws: Broke.self) {
            _ = try await EdgeHost.run(Asker(), Performer(log: log), now: HandClock().now, alarm: HandAlarm()) { edge in
                edge.spawn {
                    await untilCancelled()
                    log.add("spawned work ended")
                }
                edge.post(.start)
                edge.post(.fail)
                edge.post(.answer(2))
            }
        }
        #expect(log.all == ["input start", "ask(1)", "say(\"asked\")", "say(\"answer 1\")", "settled", "input fail", "spawned work ended"])
    }
}
