import ConformanceKit
import Testing
import WireCore

/// `--name PEERID=LABEL` labels follow the ids a connection registers: a connection that
/// registers an id another open connection holds claims it, and its violations are not reported
/// under the holder's label (issue 38, case 6); the report says what a label rests on.
@Suite("watch: labels follow claimed ids")
struct WatchLabelTests {
    static let desk = "desktop-0c48f0b1"
    static let t: EpochMillis = 1_795_632_883_563

    static func watched(secondWhileFirstOpen: Bool) -> WatchResult {
        var options = PairingWatch.Options()
        options.names = [desk: "the-desktop"]
        var watch = PairingWatch(options: options)
        watch.handle(WireEvent(at: t, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        watch.handle(WireEvent(at: t + 1, connection: 1, .text(from: .client, #"{"type":"register","peerId":"\#(desk)"}"#)))
        if !secondWhileFirstOpen { watch.handle(WireEvent(at: t + 50, connection: 1, .close(by: .client, code: 1000))) }
        watch.handle(WireEvent(at: t + 100, connection: 2, .open(peer: "127.0.0.1", path: "/")))
        watch.handle(WireEvent(at: t + 101, connection: 2, .text(from: .client, #"{"type":"register","peerId":"\#(desk)"}"#)))
        // Connection 2 then breaks a rule of its own: a frame that is no JSON.
        watch.handle(WireEvent(at: t + 102, connection: 2, .text(from: .client, "not json")))
        return watch.finish(at: t + 1000)
    }

    @Test func aConnectionThatTakesAHeldIdClaimsItsLabel() {
        let result = Self.watched(secondWhileFirstOpen: true)
        let names = result.findings.filter { $0.connection == 2 }.map { $0.name ?? "-" }
        #expect(!names.isEmpty && names.allSatisfy { $0 == "claiming the-desktop's id" }, "\(result.findings)")
        #expect(result.connections.first { $0.id == 1 }?.name == "the-desktop")
        #expect(result.notes.contains { $0.hasPrefix("labels from --name follow the ids each connection registered") }, "\(result.notes)")
    }

    /// Where the kit started the programs (the matrix), a connection is the program's whose
    /// process holds its socket: an impostor registering the desktop's id is labelled by its own
    /// process, and the desktop's connection by the desktop's, whatever it registered (issue 38.4).
    @Test func aConnectionOfAProcessTheKitStartedIsThatProgramsWhateverItRegisters() {
        var options = PairingWatch.Options()
        options.names = [Self.desk: "the-desktop"]
        var watch = PairingWatch(options: options)
        let t = Self.t
        watch.handle(WireEvent(at: t, connection: 1, .open(peer: "127.0.0.1", path: "/")))
        watch.handle(WireEvent(at: t + 1, connection: 1, .owner("outsider-desktop (desktop)")))
        watch.handle(WireEvent(at: t + 2, connection: 1, .text(from: .client, #"{"type":"register","peerId":"\#(Self.desk)"}"#)))
        watch.handle(WireEvent(at: t + 100, connection: 2, .open(peer: "127.0.0.1", path: "/")))
        watch.handle(WireEvent(at: t + 101, connection: 2, .text(from: .client, #"{"type":"register","peerId":"\#(Self.desk)"}"#)))
        // The owner is found after the connection's first frames: the label still applies.
        watch.handle(WireEvent(at: t + 150, connection: 2, .owner("bare-offer-phone (phone)")))
        watch.handle(WireEvent(at: t + 151, connection: 2, .text(from: .client, "not json")))
        let result = watch.finish(at: t + 1000)
        #expect(result.connections.map { $0.name ?? "-" } == ["outsider-desktop (desktop)", "bare-offer-phone (phone)"], "\(result.connections)")
        let names = result.findings.filter { $0.connection == 2 }.map { $0.name ?? "-" }
        #expect(!names.isEmpty && names.allSatisfy { $0 == "bare-offer-phone (phone)" }, "\(result.findings)")
        #expect(
            result.notes.contains("labels of the processes the kit started follow the process that holds each connection's socket, whatever ids it registers"),
            "\(result.notes)")
        #expect(!result.notes.contains { $0.hasPrefix("labels from --name") }, "no label here rests on a claim: \(result.notes)")
    }

    /// The same client back after its connection closed carries its label.
    @Test func aReconnectionCarriesTheLabel() {
        let result = Self.watched(secondWhileFirstOpen: false)
        #expect(result.connections.first { $0.id == 2 }?.name == "the-desktop", "\(result.connections)")
    }
}
