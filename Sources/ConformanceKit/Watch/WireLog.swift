/// What passed on the wire during one live case, for the reports (issue 31.3): the frames both
/// ways in order, with their times, as session-log events (Conformance/session-log.md). Bounded:
/// the first `cap` events are kept and the rest counted, so a transfer of thousands of chunks
/// cannot grow a report without limit.
public struct WireLog: Sendable, Hashable {
    public static let cap = 400

    public private(set) var events: [WireEvent] = []
    /// Events after the first `cap`, counted, not kept.
    public private(set) var omitted = 0

    public init(events: [WireEvent] = [], omitted: Int = 0) {
        self.events = Array(events.prefix(Self.cap))
        self.omitted = omitted + max(0, events.count - Self.cap)
    }

    public mutating func append(_ event: WireEvent) {
        if events.count < Self.cap { events.append(event) } else { omitted += 1 }
    }

    public var count: Int { events.count + omitted }
}
