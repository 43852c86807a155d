import Pairing
import WireCore

/// The phone's three flows as one timed machine for its session: Flow B from a scanned QR, the
/// manual flow from a typed code, Flow A showing its own QR. Flow B keeps no time.
enum PhoneFlow: TimedMachine {
    case scan(ScanDesktopPairingMachine)
    case manual(ManualPairingMachine)
    case display(DesktopPairingMachine)

    enum Event: Sendable {
        case scan(ScanDesktopPairingMachine.Event)
        case manual(ManualPairingMachine.Event)
        case display(DesktopPairingMachine.Event)
        case tick(at: EpochMillis)
    }

    static func tick(at time: EpochMillis) -> Event { .tick(at: time) }

    var nextDeadline: EpochMillis? {
        switch self {
        case .manual(let m): m.nextDeadline
        case .display(let m): m.nextDeadline
        case .scan: nil
        }
    }

    mutating func step(_ event: Event) -> Step<PairingAction> {
        switch (self, event) {
        case (.scan(var m), .scan(let e)):
            defer { self = .scan(m) }
            return m.step(e)
        case (.manual(var m), .manual(let e)):
            defer { self = .manual(m) }
            return m.step(e)
        case (.display(var m), .display(let e)):
            defer { self = .display(m) }
            return m.step(e)
        case (.manual(var m), .tick(let at)):
            defer { self = .manual(m) }
            return m.step(.tick(at: at))
        case (.display(var m), .tick(let at)):
            defer { self = .display(m) }
            return m.step(.tick(at: at))
        case (.scan, .tick):
            return .ignored("Flow B keeps no time")
        case (.scan, .manual), (.scan, .display), (.manual, .scan), (.manual, .display), (.display, .scan), (.display, .manual):
            return .ignored("an event of another flow")
        }
    }

    /// How the flow ended, with what the phone stores; nil while it runs.
    func outcome(stored: String?) -> PairingOutcome? {
        switch self {
        case .scan(let m):
            switch m.state {
            case .success(let name): return PairingOutcome(state: "success (\(name))", succeeded: true, stored: stored)
            case .failed(let reason): return PairingOutcome(state: PhonePeer.failed(reason), succeeded: false)
            case .scanning, .sending: return nil
            }
        case .manual(let m):
            switch m.state {
            case .success(let name): return PairingOutcome(state: "success (\(name))", succeeded: true, stored: stored)
            case .failed(let reason): return PairingOutcome(state: PhonePeer.failed(reason), succeeded: false)
            case .entering, .submitting: return nil
            }
        case .display(let m):
            switch m.state {
            case .completed: return PairingOutcome(state: "completed", succeeded: true)
            case .expired: return PairingOutcome(state: "expired", succeeded: false)
            case .failed(let reason): return PairingOutcome(state: PhonePeer.failed(reason), succeeded: false)
            case .idle, .displaying: return nil
            }
        }
    }
}
