import Pairing
import Testing
import WireCore

/// Which pairing the phone and the desktop go through (Spec pairing.md 4.1 to 4.3).
enum SimFlow: String, CaseIterable, Sendable {
    case flowB = "flow-b"
    case manual
    case flowA = "flow-a"
    /// Flow A with the confirmation sent on the desktop's LAN socket: the relay carries nothing
    /// of the pairing, and the watch can only say so.
    case flowAOffRelay = "flow-a-off-relay"
}

/// A pairing the harness plays, drawn from a seed: the flow, the network's delays, a relay
/// restart before the phone starts, a client's link cut once the pairing is over, the
/// clients' back-off and keepalive, and one client or relay fault.
struct SimScenario: Sendable, CustomTestStringConvertible {
    let seed: UInt64
    var fault: SimFault
    var flow: SimFlow
    /// The phone offers the WebRTC exchange once paired (Spec pairing.md 4.6).
    var exchange: Bool
    /// The desktop holds its alias on a connection of its own (the real desktop's form).
    var aliasSocket: Bool
    var phoneDelay: EpochMillis
    var desktopDelay: EpochMillis
    var restartAt: EpochMillis?
    var restartDown: EpochMillis
    /// A client's main link is cut (neither end closed it) at this time.
    var cut: (client: SimClientID, at: EpochMillis)?
    var desktopPolicy: SignalingConnectionMachine.Policy
    var phonePolicy: SignalingConnectionMachine.Policy
    var code: String
    var staleCode: String
    var start: EpochMillis = 1_747_300_000_000
    var phoneAt: EpochMillis
    var horizon: EpochMillis

    var manual: Bool { flow == .manual }

    init(seed: UInt64) {
        self.seed = seed
        var rng = SplitMix64(seed: seed)
        func draw(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        fault = SimFault.allCases[draw(0...SimFault.allCases.count - 1)]
        flow = SimFlow.allCases[draw(0...SimFlow.allCases.count - 1)]
        exchange = draw(0...3) != 0
        aliasSocket = draw(0...1) == 1
        phoneDelay = EpochMillis(draw(1...300))
        desktopDelay = EpochMillis(draw(1...300))
        restartDown = EpochMillis(draw(0...3000))
        let restart = draw(0...9) < 3
        let n = draw(0...999_998)
        code = String(String(n).reversed()).padding(toLength: 6, withPad: "0", startingAt: 0)
        staleCode = String(String(n + 1).reversed()).padding(toLength: 6, withPad: "0", startingAt: 0)
        // The real desktop backs off 2, 4, 8 s; the seed's schedule starts at 500 ms.
        desktopPolicy = draw(0...1) == 0 ? .seed : SignalingConnectionMachine.Policy(backoff: [2000, 4000, 8000], keepaliveInterval: 30_000)
        phonePolicy = SignalingConnectionMachine.Policy(backoff: [500, 1000, 2000, 5000], keepaliveInterval: EpochMillis(draw(5...30)) * 1000)
        switch fault {
        case .desktopIgnoresOffer:
            exchange = true
            if flow == .flowAOffRelay { flow = .flowA }
        case .staleQR, .desktopConfirmsStaleCode: flow = .flowB
        case .desktopNeverConfirms, .phoneGivesUp, .phoneRegistersAlias, .desktopForgetsAlias: flow = .manual
        case .relayDropsAck, .relayAnnouncesAlias: if flow == .flowA || flow == .flowAOffRelay { flow = .flowB }
        case .phoneSkipsKeepalive: phonePolicy.keepaliveInterval = 60_000
        case .phoneBareOffer:
            exchange = true
            if flow == .flowAOffRelay { flow = .flowA }
        case .none: break
        }
        // What happens off the relay is not the watch's to judge, the exchange after it included.
        if flow == .flowAOffRelay { exchange = false }
        if restart || fault == .desktopForgetsAlias {
            restartAt = start + EpochMillis(draw(2000...10_000))
            phoneAt = restartAt! + 12_000 + EpochMillis(draw(0...3000))
        } else {
            restartAt = nil
            phoneAt = start + EpochMillis(draw(1000...5000))
        }
        // Once the pairing and its exchange are over (the exchange's 30 s and a margin).
        if draw(0...9) < 3 { cut = (draw(0...1) == 0 ? .phone : .desktop, phoneAt + 45_000) }
        horizon = phoneAt + (fault == .desktopNeverConfirms ? 330_000 : 90_000)
        // A desktop that lost its alias is owed it back by the Spec's longest back-off after the drop.
        if let restartAt { horizon = max(horizon, restartAt + 120_000) }
    }

    var testDescription: String {
        "seed \(seed): \(fault.rawValue), \(flow.rawValue)\(exchange ? " + exchange" : "")\(aliasSocket ? ", alias socket" : "")"
            + ", delays \(phoneDelay)/\(desktopDelay) ms, desktop back-off \(desktopPolicy.backoff), phone keepalive \(phonePolicy.keepaliveInterval)"
            + (restartAt.map { ", relay restart at +\($0 - start) ms down \(restartDown) ms" } ?? "")
            + (cut.map { ", \($0.client) cut at +\($0.at - start) ms" } ?? "")
    }
}
