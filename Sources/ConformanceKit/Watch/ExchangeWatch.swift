import Pairing
import WireCore

/// The WebRTC exchange after a pairing as the watch sees it (Spec pairing.md 4.6, PAIR-RTC-006),
/// judged by the Spec's own machine: once a paired phone sends its offer, each side's
/// `WebRTCNegotiationMachine` is fed what the other side sent (the phone's, as the offerer, the
/// desktop's answer and candidates; the desktop's, as the answerer, the offer and the phone's
/// candidates). A side whose machine fails at its deadline did not get what it needed, so the
/// other side did not send it. Judged only once the offer came: a pair that stops at pairing
/// (Phase 1 only) cannot be told from one whose phone should have offered. Signals after the
/// deadline count for nothing; a batch (`ice-candidates`) is no candidate.
struct ExchangeWatch {
    /// The exchange's time, from the offer (the Spec counts from pairing, which is earlier: the
    /// watch is never stricter than the peers).
    static let window = WebRTCNegotiationMachine.seedTimeout

    struct Exchange {
        var phone: String
        var desktop: String
        var phoneConnection: Int
        var session: Int
        var offerAt: EpochMillis
        /// The phone's machine, fed what the desktop sent; the desktop's, fed what the phone sent.
        var phoneSide: WebRTCNegotiationMachine
        var desktopSide: WebRTCNegotiationMachine
    }

    /// What one side failed to send.
    struct Missing {
        var fromDesktop: Bool
        var exchange: Exchange
        var expected: String
    }

    /// Exchanges open at once; more are counted, not judged (a pair has one).
    static let maxOpen = 1024

    /// The exchanges still open, in the order their offers came (so their deadlines too).
    private(set) var exchanges: [Exchange] = []
    /// Offers not followed because `maxOpen` exchanges were open.
    private(set) var omitted = 0
    /// An exchange completed since the last judgement.
    private var completed = false

    /// A WebRTC signal a client sent (`message`, its frame as sent) to `to` from a connection
    /// holding `senderIds`; for an offer, `pairedPhone` is the paired session whose phone sent it.
    mutating func signal(
        _ type: WebRTCSignal.Kind, _ message: JSONValue, to: String, senderIds: [String], on c: Int, at: EpochMillis, pairedPhone: (did: String, session: Int)?
    ) {
        func sentBy(_ id: String) -> Bool { senderIds.contains { $0.bytesEqual(id) } }
        if type == .offer {
            guard let (did, session) = pairedPhone,
                !exchanges.contains(where: { $0.phone.bytesEqual(did) && $0.desktop.bytesEqual(to) })
            else { return }
            guard exchanges.count < Self.maxOpen else {
                omitted += 1
                return
            }
            // What each side sends is the client's; the machines only take in the other's.
            let nothing = WebRTCNegotiationMachine.Local(sdp: "", candidates: [])
            var phoneSide = WebRTCNegotiationMachine(localPeerId: did)
            _ = phoneSide.handle(.start(role: .offerer, peerId: to, url: "", local: nothing, at: at))
            var desktopSide = WebRTCNegotiationMachine(localPeerId: to)
            _ = desktopSide.handle(.start(role: .answerer, peerId: did, url: "", local: nothing, at: at))
            _ = desktopSide.handle(.signal(document: PairingFrame.delivered(message, from: did), at: at))
            exchanges.append(Exchange(phone: did, desktop: to, phoneConnection: c, session: session, offerAt: at, phoneSide: phoneSide, desktopSide: desktopSide))
            return
        }
        func fromDesktop(_ x: Exchange) -> Bool { x.phone.bytesEqual(to) && sentBy(x.desktop) }
        func fromPhone(_ x: Exchange) -> Bool { x.desktop.bytesEqual(to) && sentBy(x.phone) }
        guard let e = exchanges.lastIndex(where: { fromDesktop($0) || fromPhone($0) }) else { return }
        if fromDesktop(exchanges[e]) {
            _ = exchanges[e].phoneSide.handle(.signal(document: PairingFrame.delivered(message, from: exchanges[e].desktop), at: at))
        } else {
            _ = exchanges[e].desktopSide.handle(.signal(document: PairingFrame.delivered(message, from: exchanges[e].phone), at: at))
        }
        if exchanges[e].phoneSide.state == .negotiated && exchanges[e].desktopSide.state == .negotiated { completed = true }
    }

    /// Judges the exchanges that are complete or whose deadline passed before `now`, and drops
    /// them; at the end (`final`), the rest are dropped as unfinished (the watch ended first).
    mutating func judge(now: EpochMillis, final: Bool) -> (missing: [Missing], unfinished: [Exchange]) {
        // Every event asks; only a completed exchange or a passed deadline has an answer.
        guard final || completed || exchanges.first.map({ now >= $0.phoneSide.nextDeadline ?? .max }) == true else { return ([], []) }
        completed = false
        var missing: [Missing] = []
        var unfinished: [Exchange] = []
        var open: [Exchange] = []
        for var x in exchanges {
            // What each side had before its deadline, to say what the other did not send.
            let phoneHad = x.phoneSide.state
            let desktopHad = x.desktopSide.state
            if phoneHad == .negotiated && desktopHad == .negotiated { continue }
            guard now > x.offerAt + Self.window else {
                if final { unfinished.append(x) } else { open.append(x) }
                continue
            }
            _ = x.phoneSide.handle(.tick(at: now))
            _ = x.desktopSide.handle(.tick(at: now))
            if case .failed = x.phoneSide.state {
                let described = if case .negotiating(_, true, _) = phoneHad { true } else { false }
                missing.append(
                    Missing(
                        fromDesktop: true, exchange: x,
                        expected: described ? "at least one ice-candidate within \(Self.window) ms of the offer" : "an answer to the phone's offer within \(Self.window) ms"))
            }
            if case .failed = x.desktopSide.state {
                missing.append(Missing(fromDesktop: false, exchange: x, expected: "at least one ice-candidate within \(Self.window) ms of its offer"))
            }
        }
        // A watch of many sessions keeps only the exchanges under way.
        exchanges = open
        return (missing, unfinished)
    }
}
