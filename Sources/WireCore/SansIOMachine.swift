/// The contract every protocol machine here keeps (quinn-proto's `handle_timeout` and
/// `poll_timeout`, swift-nio-http2's answer to every transition): events in, actions out, no I/O
/// and no clock. Each event that depends on time carries it; the machine states when it next needs
/// to hear the time (`nextDeadline`), and its edge then delivers `tick(at:)`. No machine asks for
/// a timer, so an edge has one alarm, set to `nextDeadline` after every event.
public protocol SansIOMachine: Sendable {
    associatedtype Event: Sendable
    associatedtype Action: Sendable

    mutating func handle(_ event: Event) -> [Action]

    /// The earliest time at which a tick changes anything; nil when no tick can in this state.
    /// A tick before it is answered, and changes nothing.
    var nextDeadline: EpochMillis? { get }

    /// The event that tells the machine the time.
    static func tick(at time: EpochMillis) -> Event
}
