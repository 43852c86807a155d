import ConformanceKit
import Pairing
import WireCore

/// One pairing on virtual time: the phone, the desktop and the relay, each made of the Spec's
/// machines, wired by `SimNetwork` with the faults of `SimScenario`; both taps' events are kept
/// for the judge. Deterministic: a seed makes a scenario, and a scenario one run.
struct PairingSim {
    /// A client's signaling connection: its machine (back-off, keepalive, the ids it registers
    /// again), the link it has open or is trying, and frames waiting for it to open.
    struct Socket {
        var machine = SignalingConnectionMachine()
        var link: Int?
        var attempt: Int?
        var outbox: [(text: String, isAck: Bool)] = []
        /// The client gave this socket up: it never connects again.
        var stopped = false
    }

    enum Script {
        case phoneStarts, restart, cut
        /// Flow A: the desktop scans the phone's QR.
        case desktopScans
        /// Flow A off the relay: the confirmation reaches the phone on the desktop's LAN socket.
        case lanConfirmation(JSONValue)
    }

    let scenario: SimScenario
    var network = SimNetwork()
    var relay = SignalingRelay()
    var phone: SimPhone
    var desktop: SimDesktop
    var sockets: [SimClientID: [Socket]] = [.phone: [Socket()], .desktop: [Socket(), Socket()]]
    var script: [(at: EpochMillis, step: Script)] = []
    var now: EpochMillis
    /// What the machines dropped, for a failure's message.
    var drops: [String] = []
    var steps = 0
    /// What happened, for the harness's coverage: attempts the restarting relay refused, and
    /// links cut while open.
    var refusedAttempts = 0
    var cuts = 0
    /// Aliases the relay announced to another client (`relayAnnouncesAlias`).
    var aliasesAnnounced = 0

    init(_ scenario: SimScenario) {
        self.scenario = scenario
        now = scenario.start
        phone = SimPhone(flow: scenario.flow, exchange: scenario.exchange, fault: scenario.fault)
        desktop = SimDesktop(fault: scenario.fault)
        sockets[.phone]![0].machine = SignalingConnectionMachine(policy: scenario.phonePolicy)
        for i in 0..<2 { sockets[.desktop]![i].machine = SignalingConnectionMachine(policy: scenario.desktopPolicy) }
        schedule(.phoneStarts, at: scenario.phoneAt)
        if let restart = scenario.restartAt { schedule(.restart, at: restart) }
        if let cut = scenario.cut { schedule(.cut, at: cut.at) }
        if scenario.flow == .flowA || scenario.flow == .flowAOffRelay { schedule(.desktopScans, at: scenario.phoneAt + 2000) }
    }

    private mutating func schedule(_ step: Script, at: EpochMillis) {
        let i = script.firstIndex { $0.at > at } ?? script.count
        script.insert((at, step), at: i)
    }

    /// Runs to the scenario's horizon; false when it did not settle (a machine that never stops
    /// asking for time, a bug of the harness or of a machine).
    mutating func run() -> Bool {
        if scenario.flow == .flowB || scenario.flow == .manual { perform(desktop.start(code: scenario.code, at: now), by: .desktop) }
        while steps < 100_000 {
            steps += 1
            let deadlines = [phone.nextDeadline, desktop.nextDeadline] + sockets.values.flatMap { $0.map(\.machine.nextDeadline) }
            let tick = deadlines.compactMap { $0 }.map { max($0, now) }.min()
            let candidates = [network.nextAt, tick, script.first?.at].compactMap { $0 }
            guard let next = candidates.min(), next <= scenario.horizon else { return true }
            now = max(now, next)
            if let first = script.first, first.at == next {
                script.removeFirst()
                play(first.step)
            } else if network.nextAt == next, let (at, item, live) = network.pop() {
                handle(item, at: at, live: live)
            } else {
                tickAll()
            }
        }
        return false
    }

    private mutating func play(_ step: Script) {
        switch step {
        case .phoneStarts:
            var input = scenario.code
            if scenario.flow == .flowB {
                input = desktop.qrText ?? ""
                if scenario.fault == .staleQR || scenario.fault == .desktopConfirmsStaleCode {
                    input = input.replacingOccurrences(of: "\"code\":\"\(scenario.code)\"", with: "\"code\":\"\(scenario.staleCode)\"")
                }
            }
            perform(phone.start(input, at: now), by: .phone)
        case .restart:
            network.restartRelay(at: now, down: scenario.restartDown)
            relay = SignalingRelay()
        case .cut:
            guard let client = scenario.cut?.client, let link = sockets[client]![0].link else { return }
            network.cut(link, at: now)
            cuts += 1
            _ = relay.handle(.disconnected(link, at: now))
        case .desktopScans:
            perform(desktop.scan(phone.qrText ?? "", at: now), by: .desktop)
        case .lanConfirmation(let payload):
            perform(phone.confirmed(payload, at: now), by: .phone)
        }
    }

    private mutating func tickAll() {
        perform(phone.tick(at: now), by: .phone)
        perform(desktop.tick(at: now), by: .desktop)
        for client in [SimClientID.phone, .desktop] {
            for i in sockets[client]!.indices { connection(client, i, sockets[client]![i].machine.handle(.tick(at: now))) }
        }
    }

    // MARK: the network's items

    private mutating func handle(_ item: SimNetwork.Item, at: EpochMillis, live: Bool) {
        switch item {
        case .accept(let link):
            if network.accept(link, at: at) { _ = relay.handle(.connected(link, source: "10.0.0.\(link)", at: at)) }
        case .attempted(let link, let opened):
            guard let (client, i) = socket(attempting: link) else { return }
            sockets[client]![i].attempt = nil
            if opened {
                sockets[client]![i].link = link
                connection(client, i, sockets[client]![i].machine.handle(.opened(at: at)))
                flush(client, i)
            } else {
                refusedAttempts += 1
                connection(client, i, sockets[client]![i].machine.handle(.failed(at: at)))
            }
        case .pass, .restartDone:
            if case .restartDone = item { network.relayBack() }
        case .arrive(let link, .relay, let carried):
            guard live else { return }
            switch carried {
            case .text(let text):
                for case .send(let to, let json, _) in relay.handle(.received(link, text: Array(text.utf8), at: at)) {
                    if scenario.fault == .relayDropsAck, PairingFrame(json).payloadKind == .pairAck { continue }
                    network.send(.text(JSONSerializer.compact(json)), on: to, from: .relay, at: at)
                }
                if scenario.fault == .relayAnnouncesAlias, let frame = try? JSONParser.parse(Array(text.utf8)), PairingFrame(frame).documentKind == .register,
                    let peerId = frame["peerId"]?.stringValue
                {
                    // The standalone relay's presence broadcast, to every other open connection.
                    let status = JSONSerializer.compact(["type": "peer-status", "peerId": .string(peerId), "status": "online"])
                    for other in network.links.keys.sorted() where other != link && network.isOpen(other, at: .relay) {
                        network.send(.text(status), on: other, from: .relay, at: at)
                        if PeerID.aliasCode(peerId) != nil { aliasesAnnounced += 1 }
                    }
                }
            case .ping:
                // A WebSocket stack answers a ping frame with a pong (RFC 6455 5.5.2).
                network.send(.pong, on: link, from: .relay, at: at)
            case .pong:
                break
            case .close:
                _ = relay.handle(.disconnected(link, at: at))
            }
        case .arrive(let link, .client, let carried):
            guard live, let (client, i) = socket(holding: link) else { return }
            switch carried {
            case .text(let text):
                connection(client, i, sockets[client]![i].machine.handle(.heard(at: at)))
                guard let document = try? JSONParser.parse(Array(text.utf8)) else { return }
                let actions = client == .phone ? phone.received(document, at: at) : desktop.received(document, at: at)
                perform(actions, by: client)
            case .ping, .pong:
                connection(client, i, sockets[client]![i].machine.handle(.heard(at: at)))
            case .close:
                sockets[client]![i].link = nil
                if client == .desktop, scenario.fault == .desktopForgetsAlias {
                    // The fault: the alias is not held again after the drop (its own socket is given up).
                    let alias = PeerID.alias(forCode: scenario.code)
                    if i == 1 {
                        sockets[client]![i].stopped = true
                        _ = sockets[client]![i].machine.handle(.stop(at: at))
                        return
                    }
                    _ = sockets[client]![i].machine.handle(.release(peerId: alias, at: at))
                }
                connection(client, i, sockets[client]![i].machine.handle(.failed(at: at)))
            }
        }
    }

    private func socket(attempting link: Int) -> (SimClientID, Int)? {
        for (client, list) in sockets { if let i = list.firstIndex(where: { $0.attempt == link }) { return (client, i) } }
        return nil
    }

    private func socket(holding link: Int) -> (SimClientID, Int)? {
        for (client, list) in sockets { if let i = list.firstIndex(where: { $0.link == link }) { return (client, i) } }
        return nil
    }

    // MARK: what the machines ask for

    /// The socket an id lives on: a desktop with an alias socket keeps its aliases there.
    private func socketIndex(for peerId: String, _ client: SimClientID) -> Int {
        client == .desktop && scenario.aliasSocket && PeerID.aliasCode(peerId) != nil ? 1 : 0
    }

    private mutating func perform(_ actions: [PairingAction], by client: SimClientID) {
        for action in actions {
            switch action {
            case .register(_, let peerId):
                let i = socketIndex(for: peerId, client)
                guard !sockets[client]![i].stopped else { continue }
                connection(client, i, sockets[client]![i].machine.handle(.register(peerId: peerId, at: now)))
                connection(client, i, sockets[client]![i].machine.handle(.start(at: now)))
            case .send(_, let message) where client == .desktop && scenario.flow == .flowAOffRelay:
                // Flow A off the relay: the desktop answers on its LAN socket.
                if case .pairingConfirmation = message.payload {
                    schedule(.lanConfirmation(message.payload.canonical), at: now + scenario.desktopDelay)
                }
            case .send(_, let message):
                let isAck = if case .pairAck = message.payload { true } else { false }
                var text = JSONSerializer.compact(message.canonical)
                if client == .phone, scenario.fault == .phoneBareOffer, case .webRTC(let signal) = message.payload, case .offer = signal {
                    // Android's default form: the signal as a frame of its own.
                    text = JSONSerializer.compact(signal.canonical)
                }
                sockets[client]![0].outbox.append((text, isAck))
                flush(client, 0)
            case .release(_, let peerId):
                let i = socketIndex(for: peerId, client)
                connection(client, i, sockets[client]![i].machine.handle(.release(peerId: peerId, at: now)))
            case .drop(let reason):
                drops.append("\(client): \(reason.rule) \(reason.detail)")
            case .reset, .persist:
                break
            }
        }
        if client == .phone, phone.failed { leave(.phone) }
    }

    /// The phone's flow failed: it closes its connection and stays away.
    private mutating func leave(_ client: SimClientID) {
        for i in sockets[client]!.indices where !sockets[client]![i].stopped {
            sockets[client]![i].stopped = true
            connection(client, i, sockets[client]![i].machine.handle(.stop(at: now)))
        }
    }

    private mutating func connection(_ client: SimClientID, _ i: Int, _ actions: [SignalingConnectionMachine.Action]) {
        for action in actions {
            switch action {
            case .connect:
                let delay = client == .phone ? scenario.phoneDelay : scenario.desktopDelay
                sockets[client]![i].attempt = network.connect(client, socket: i, delay: delay, at: now)
            case .sendRegister(let peerId, _):
                guard let link = sockets[client]![i].link else { continue }
                network.send(.text(JSONSerializer.compact(Register(peerId: peerId).canonical)), on: link, from: .client, at: now)
            case .ping:
                guard let link = sockets[client]![i].link else { continue }
                network.send(.ping, on: link, from: .client, at: now)
            case .close, .drop:
                guard let link = sockets[client]![i].link else { continue }
                network.send(.close, on: link, from: .client, at: now)
                sockets[client]![i].link = nil
            }
        }
    }

    /// Frames waiting for the socket go once it is open (after its registers).
    private mutating func flush(_ client: SimClientID, _ i: Int) {
        guard let link = sockets[client]![i].link else { return }
        let waiting = sockets[client]![i].outbox
        sockets[client]![i].outbox = []
        for frame in waiting {
            network.send(.text(frame.text), on: link, from: .client, at: now)
            if frame.isAck, client == .phone { perform(phone.sent(at: now), by: .phone) }
        }
    }
}
