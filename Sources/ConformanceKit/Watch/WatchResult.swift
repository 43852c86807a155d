import WireCore

/// A violation seen while watching two implementations meet, with the side that broke it.
public struct WatchFinding: Sendable, Hashable {
    /// `phone`, `desktop`, `relay`, `sender`, `receiver`, or `unknown` when nothing said which
    /// side a connection was.
    public var side: String
    /// The label `--name` gave the side's peer id, if any.
    public var name: String?
    /// The watch's number for the connection the frame travelled on.
    public var connection: Int?
    /// The frame, quoted (at most 200 characters).
    public var frame: String?
    public var at: EpochMillis
    public var violation: Violation
    /// The session it belongs to (an index into `WatchResult.sessions`).
    public var session: Int?
    /// How many times the watch saw it (same connection, rule, path and cause), and the last.
    public var count = 1
    public var last: Last?

    /// The last time a repeated violation was seen, and its frame.
    public struct Last: Sendable, Hashable {
        public var at: EpochMillis
        public var frame: String?

        public init(at: EpochMillis, frame: String?) {
            self.at = at
            self.frame = frame
        }
    }

    public init(side: String, name: String? = nil, connection: Int?, frame: String? = nil, at: EpochMillis, violation: Violation, session: Int? = nil) {
        self.side = side
        self.name = name
        self.connection = connection
        self.frame = frame
        self.at = at
        self.violation = violation
        self.session = session
    }
}

/// One pairing (or migration) reconstructed from the frames: its flow, how it ended, where.
public struct WatchSession: Sendable, Hashable {
    /// `flow-b`, `manual`, `flow-a` (pairing); `migration`.
    public var flow: String
    /// `paired` (or `migrated`), `abandoned` (the watch ended first), or `broken`.
    public var outcome: String
    /// Where a broken session broke: the step, and why.
    public var step: String?
    public var code: String?
    /// The connections of its two sides.
    public var connections: [String: Int]
    public var startedAt: EpochMillis
    public var endedAt: EpochMillis?
}

/// What one connection was, for the report's lanes.
public struct WatchConnection: Sendable, Hashable {
    public var id: Int
    public var side: String
    public var name: String?
    /// The ids it registered, in order.
    public var registered: [String]
    public var opened: EpochMillis
    public var closed: EpochMillis?
}

/// Everything a watch saw and judged: the sessions, each finding with its side, notes on what
/// the Spec does not define, and the events themselves (for the sequence diagram; at most
/// `maxEvents`, with the number left out).
public struct WatchResult: Sendable {
    public var family: String
    public var sessions: [WatchSession]
    /// The first `ViolationList.maxListed` findings.
    public var findings: [WatchFinding]
    /// Findings beyond those, counted.
    public var findingsOmitted: Int
    public var notes: [String]
    public var connections: [WatchConnection]
    public var events: [WireEvent]
    public var eventsOmitted: Int
    /// Forwarding (`--upstream`): client connections that reached the upstream, and those it
    /// refused (nothing they carried was judged).
    public var forwarded = 0
    public var unforwarded = 0

    public static let maxEvents = 2000

    public var ok: Bool { findings.isEmpty && findingsOmitted == 0 }

    public init(
        family: String, sessions: [WatchSession], findings: [WatchFinding], findingsOmitted: Int = 0, notes: [String], connections: [WatchConnection],
        events: [WireEvent], eventsOmitted: Int
    ) {
        self.family = family
        self.sessions = sessions
        self.findings = findings
        self.findingsOmitted = findingsOmitted
        self.notes = notes
        self.connections = connections
        self.events = events
        self.eventsOmitted = eventsOmitted
    }
}
