import Pairing
import WireCore

/// The WebRTC exchange after a pairing as the watch sees it (Spec pairing.md 4.6, PAIR-RTC-006):
/// once a paired phone sends its offer, the desktop answers and each side sends at least one
/// `ice-candidate`, all within 30000 ms. Judged only once the offer came: a pair that stops at
/// pairing (Phase 1 only) cannot be told from one whose phone should have offered. Signals
/// after the window are late and count for nothing; a batch (`ice-candidates`) is no candidate.
struct ExchangeWatch {
    /// The exchange's time, from the offer (the Spec counts from pairing, which is earlier: the
    /// watch is never stricter than the peers).
    static let window: EpochMillis = 30_000

    struct Exchange {
        var phone: String
        var desktop: String
        var phoneConnection: Int
        var session: Int
        var offerAt: EpochMillis
        var answerAt: EpochMillis?
        var phoneCandidates = 0
        var desktopCandidates = 0
    }

    /// What one side failed to send.
    struct Missing {
        var fromDesktop: Bool
        var exchange: Exchange
        var expected: String
    }

    /// Exchanges open at once; more are counted, not judged (a pair has one).
    static let maxOpen = 1024

    /// The exchanges still open, in the order their offers came.
    private(set) var exchanges: [Exchange] = []
    /// Offers not followed because `maxOpen` exchanges were open.
    private(set) var omitted = 0
    /// An exchange completed since the last judgement.
    private var completed = false

    /// A WebRTC signal a client sent: `type` to `to` from a connection holding `senderIds`; for an
    /// offer, `pairedPhone` is the paired session whose phone sent it, if any.
    mutating func signal(_ type: WebRTCSignal.Kind, to: String, senderIds: [String], on c: Int, at: EpochMillis, pairedPhone: (did: String, session: Int)?) {
        func sentBy(_ id: String) -> Bool { senderIds.contains { $0.bytesEqual(id) } }
        if type == .offer {
            guard let (did, session) = pairedPhone,
                !exchanges.contains(where: { $0.phone.bytesEqual(did) && $0.desktop.bytesEqual(to) })
            else { return }
            guard exchanges.count < Self.maxOpen else {
                omitted += 1
                return
            }
            exchanges.append(Exchange(phone: did, desktop: to, phoneConnection: c, session: session, offerAt: at))
            return
        }
        func fromDesktop(_ x: Exchange) -> Bool { x.phone.bytesEqual(to) && sentBy(x.desktop) }
        func fromPhone(_ x: Exchange) -> Bool { x.desktop.bytesEqual(to) && sentBy(x.phone) }
        // Late signals count for nothing.
        guard let e = exchanges.lastIndex(where: { at <= $0.offerAt + Self.window && (fromDesktop($0) || fromPhone($0)) }) else { return }
        switch (type, fromDesktop(exchanges[e])) {
        case (.answer, true): exchanges[e].answerAt = exchanges[e].answerAt ?? at
        case (.iceCandidate, true): exchanges[e].desktopCandidates += 1
        case (.iceCandidate, false): exchanges[e].phoneCandidates += 1
        // An offer opened its exchange above; a phone's answer is not one the exchange waits for.
        case (.offer, _), (.answer, false): break
        }
        let x = exchanges[e]
        if x.answerAt != nil && x.phoneCandidates > 0 && x.desktopCandidates > 0 { completed = true }
    }

    /// Judges the exchanges that are complete or whose window closed before `now`, and drops
    /// them; at the end (`final`), the rest are dropped as unfinished (the watch ended first).
    mutating func judge(now: EpochMillis, final: Bool) -> (missing: [Missing], unfinished: [Exchange]) {
        // Every event asks; only a completed exchange or a closed window has an answer.
        guard final || completed || exchanges.first.map({ now > $0.offerAt + Self.window }) == true else { return ([], []) }
        completed = false
        var missing: [Missing] = []
        var unfinished: [Exchange] = []
        var open: [Exchange] = []
        for x in exchanges {
            if x.answerAt != nil && x.phoneCandidates > 0 && x.desktopCandidates > 0 { continue }
            guard now > x.offerAt + Self.window else {
                if final { unfinished.append(x) } else { open.append(x) }
                continue
            }
            if x.answerAt == nil {
                missing.append(Missing(fromDesktop: true, exchange: x, expected: "an answer to the phone's offer within \(Self.window) ms"))
            } else if x.desktopCandidates == 0 {
                missing.append(Missing(fromDesktop: true, exchange: x, expected: "at least one ice-candidate within \(Self.window) ms of the offer"))
            }
            if x.phoneCandidates == 0 {
                missing.append(Missing(fromDesktop: false, exchange: x, expected: "at least one ice-candidate within \(Self.window) ms of its offer"))
            }
        }
        // A watch of many sessions keeps only the exchanges under way.
        exchanges = open
        return (missing, unfinished)
    }
}
