import ConformanceKit
import Pairing
import WireCore

/// The simulated network of the pairing harness, on virtual time: links between clients and the
/// relay, each direction first in, first out (a TCP stream) with its own delay, and the two taps a
/// watch can be (README, "Watch a desktop and a phone meet"): hosting (at the relay: a client
/// frame when the relay reads it, a relay frame when the relay writes it) and forwarding (between
/// the client and a relay that is someone else's: each frame half-way along its link).
struct SimNetwork {
    /// Which end of a link.
    enum End: Hashable {
        case client, relay
    }

    /// What travels: a text frame, a WebSocket ping or pong, the close of the link.
    enum Carried: Hashable {
        case text(String)
        case ping
        case pong
        case close
    }

    struct Link {
        let id: Int
        let owner: SimClientID
        let socket: Int
        let delay: EpochMillis
        /// The latest arrival in each direction so far (at the relay, at the client), and the
        /// latest pass of the forwarding tap: each direction is first in, first out.
        var lastArrival: [End: EpochMillis] = [:]
        var lastTap: [End: EpochMillis] = [:]
        /// Each end's socket, and the forwarding tap's, once closed.
        var closedAt: Set<End> = []
        var tapClosed = false
    }

    enum Item {
        /// A connection attempt reaches the relay.
        case accept(link: Int)
        /// The client hears how its attempt went.
        case attempted(link: Int, opened: Bool)
        /// A frame passes the forwarding tap on its way to `to`.
        case pass(link: Int, to: End, Carried)
        case arrive(link: Int, at: End, Carried)
        case restartDone
    }

    private(set) var links: [Int: Link] = [:]
    private var queue: [(at: EpochMillis, seq: Int, item: Item)] = []
    private var seq = 0
    /// What each tap saw, in the order it happened.
    private(set) var hosted: [WireEvent] = []
    private(set) var forwarded: [WireEvent] = []
    private(set) var relayUp = true

    var nextAt: EpochMillis? { queue.first?.at }

    mutating func schedule(_ item: Item, at: EpochMillis) {
        seq += 1
        let entry = (at: at, seq: seq, item: item)
        // Sorted by (time, order scheduled): a binary search for the place.
        var low = 0, high = queue.count
        while low < high {
            let mid = (low + high) / 2
            if (queue[mid].at, queue[mid].seq) < (entry.at, entry.seq) { low = mid + 1 } else { high = mid }
        }
        queue.insert(entry, at: low)
    }

    /// The next item, with what the taps make of it already logged; `live`: for an arrival,
    /// whether the end it reached was still open (what reaches a closed socket is lost).
    mutating func pop() -> (at: EpochMillis, item: Item, live: Bool)? {
        guard !queue.isEmpty else { return nil }
        let (at, _, item) = queue.removeFirst()
        switch item {
        case .pass(let id, let to, let carried):
            guard let link = links[id], !link.tapClosed else { break }
            forwarded.append(WireEvent(at: at, connection: id, Self.body(carried, from: to == .relay ? .client : .server)))
            if carried == .close { links[id]?.tapClosed = true }
        case .arrive(let id, let end, let carried):
            guard let link = links[id], !link.closedAt.contains(end) else { return (at, item, false) }
            // The hosting watch is the relay: it sees what its socket reads.
            if end == .relay { hosted.append(WireEvent(at: at, connection: id, Self.body(carried, from: .client))) }
            if carried == .close { links[id]?.closedAt.insert(end) }
        case .accept, .attempted, .restartDone:
            break
        }
        return (at, item, true)
    }

    /// A client starts a connection attempt; its link number is the watch's connection number.
    mutating func connect(_ owner: SimClientID, socket: Int, delay: EpochMillis, at: EpochMillis) -> Int {
        let id = links.count + 1
        links[id] = Link(id: id, owner: owner, socket: socket, delay: delay)
        schedule(.accept(link: id), at: at + delay)
        return id
    }

    /// The relay takes or refuses an attempt that reached it.
    mutating func accept(_ id: Int, at: EpochMillis) -> Bool {
        guard let link = links[id] else { return false }
        let opened = relayUp
        if opened {
            let open = WireEvent.Body.open(peer: "10.0.0.\(link.owner == .phone ? 2 : 3)", path: "/")
            hosted.append(WireEvent(at: at, connection: id, open))
            forwarded.append(WireEvent(at: at, connection: id, open))
        } else {
            links[id]?.closedAt = [.client, .relay]
            links[id]?.tapClosed = true
        }
        schedule(.attempted(link: id, opened: opened), at: at + link.delay)
        return opened
    }

    /// `from` sends on link `id`: it passes the tap half-way and arrives after the link's delay,
    /// in order; nothing is sent on a socket its own end has closed.
    mutating func send(_ carried: Carried, on id: Int, from: End, at: EpochMillis) {
        guard let link = links[id], !link.closedAt.contains(from) else { return }
        let to: End = from == .client ? .relay : .client
        let arrival = max(at + link.delay, link.lastArrival[to] ?? 0)
        let tap = max(at + link.delay / 2, link.lastTap[to] ?? 0)
        links[id]?.lastArrival[to] = arrival
        links[id]?.lastTap[to] = tap
        if carried == .close { links[id]?.closedAt.insert(from) }
        if from == .relay { hosted.append(WireEvent(at: at, connection: id, Self.body(carried, from: .server))) }
        schedule(.pass(link: id, to: to, carried), at: tap)
        schedule(.arrive(link: id, at: to, carried), at: arrival)
    }

    /// The relay restarts: it closes every open link, and refuses attempts for `down` ms.
    mutating func restartRelay(at: EpochMillis, down: EpochMillis) {
        for id in links.keys.sorted() where !(links[id]?.closedAt.contains(.relay) ?? true) { send(.close, on: id, from: .relay, at: at) }
        relayUp = false
        schedule(.restartDone, at: at + down)
    }

    mutating func relayBack() { relayUp = true }

    /// The link is cut between its ends (a network change): the relay's socket errs at once,
    /// the client hears of it after the link's delay; neither closed it.
    mutating func cut(_ id: Int, at: EpochMillis) {
        guard let link = links[id], !link.closedAt.contains(.relay) else { return }
        links[id]?.closedAt.insert(.relay)
        links[id]?.tapClosed = true
        let lost = WireEvent.Body.close(by: nil, code: nil)
        hosted.append(WireEvent(at: at, connection: id, lost))
        forwarded.append(WireEvent(at: at, connection: id, lost))
        let arrival = max(at + link.delay, link.lastArrival[.client] ?? 0)
        links[id]?.lastArrival[.client] = arrival
        schedule(.arrive(link: id, at: .client, .close), at: arrival)
    }

    /// Whether `end`'s socket of link `id` is still open (what arrives at a closed one is lost).
    func isOpen(_ id: Int, at end: End) -> Bool { links[id].map { !$0.closedAt.contains(end) } ?? false }

    static func body(_ carried: Carried, from side: WireEvent.Side) -> WireEvent.Body {
        switch carried {
        case .text(let text): return .text(from: side, text)
        case .ping: return .ping(from: side)
        case .pong: return .pong(from: side)
        case .close: return .close(by: side, code: 1000)
        }
    }

    /// A tap's events in time order (ties as they happened).
    static func ordered(_ events: [WireEvent]) -> [WireEvent] {
        events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }
}

/// The two clients of a pairing.
enum SimClientID: Hashable {
    case phone, desktop
}
