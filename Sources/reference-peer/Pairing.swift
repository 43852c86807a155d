import ArgumentParser
import Foundation
import Pairing
import PairingPeer
import WireCore

/// Options both pairing clients share: timing, faults, trust.
struct PairingClientOptions: ParsableArguments {
    @OptionGroup var tls: TLSClientOptions
    @Option(help: "Pair this many times one after another (0: until stopped); for conformance runs.") var sessions = 1
    @Option(help: ArgumentHelp("Scale the back-off and keepalive timing by this factor (tests only; the Spec's is 1).", visibility: .hidden))
    var timeScale = 1.0
    @Flag(help: "Once paired, go on into the WebRTC exchange through the relay (Spec pairing.md 4.6): the phone offers, the desktop answers, both send a candidate.")
    var webrtc = false

    /// The exchange's 30 s, scaled like the other timings; nil without --webrtc.
    var webrtcTimeout: EpochMillis? {
        webrtc ? max(1, EpochMillis(Double(WebRTCNegotiationMachine.seedTimeout) * timeScale)) : nil
    }

    func policy() throws -> SignalingConnectionMachine.Policy {
        guard timeScale > 0, timeScale <= 1 else { throw ValidationError("--time-scale must be more than 0 and at most 1") }
        let seed = SignalingConnectionMachine.Policy.seed
        return SignalingConnectionMachine.Policy(
            backoff: seed.backoff.map { max(1, EpochMillis(Double($0) * timeScale)) },
            keepaliveInterval: max(1, EpochMillis(Double(seed.keepaliveInterval) * timeScale)))
    }

    func log(_ name: String) -> @Sendable (String) -> Void {
        { line in FileHandle.standardError.write(Data("\(name): \(line.terminalSafe)\n".utf8)) }
    }

    /// Sessions 1, 2, ... (forever with 0): the body runs once per session.
    func repeatSessions(_ body: () async throws -> Void) async rethrows {
        var n = 0
        while sessions == 0 || n < sessions {
            try await body()
            n += 1
        }
    }
}

enum PhoneFault: String, ExpressibleByArgument, CaseIterable {
    case registerTargetId = "register-target-id", noBackoff = "no-backoff", noKeepalive = "no-keepalive", keepDeadConnection = "keep-dead-connection"
}

enum DesktopFault: String, ExpressibleByArgument, CaseIterable {
    case noAlias = "no-alias", confirmAnyCode = "confirm-any-code", neverExpire = "never-expire", aliasNoKeepalive = "alias-no-keepalive", noBackoff = "no-backoff",
        noKeepalive = "no-keepalive", keepDeadConnection = "keep-dead-connection"
}

struct Phone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be the phone: pair with a desktop by its QR text (Flow B) or its six-digit code (manual), over a signaling relay.",
        discussion: """
            The QR text or the code comes from --qr, --code, or --handoff-file (read when it appears, then removed: \
            what `conformance run --role phone --handoff-out` writes); --show-qr, or `show-qr` in the handoff \
            file, shows the phone's own QR instead (Flow A), written to --qr-file too. Registers its own DID, sends the pair-ack, \
            reconnects with back-off and registers again after a drop, and sends {"type":"ping"} every 30 s. \
            Prints the outcome and what it stores. With --webrtc it then offers to the desktop (Spec pairing.md 4.6). \
            Exit 0 when every pairing (and, with --webrtc, every exchange) succeeded, 1 otherwise.
            """)

    @Option(help: "The text of the desktop's QR code (Flow B).") var qr: String?
    @Option(help: "The desktop's six-digit code (the manual flow).") var code: String?
    @Option(help: "Wait for this file, pair with what it holds (a QR text, a code, or show-qr), remove it; once per session.") var handoffFile: String?
    @Flag(help: "Flow A: show this phone's own QR (device-pairing) for the desktop to scan, and wait for its confirmation.") var showQr = false
    @Option(help: "Flow A: also write the phone's QR text to this file (what `conformance run --role phone --qr-file` reads).") var qrFile: String?
    @Option(help: "The configured signaling server, for typed codes (ws:// or wss://).") var signaling: String?
    @Option(help: "The phone's DID (default: a new did:key).") var did: String?
    @Option(help: "The phone's name.") var name = "Reference Phone"
    @Option(help: "ios or android.") var platform = "android"
    @Option(help: "How long a typed code waits for the desktop's confirmation, in ms (1 ... 300000).") var confirmationWaitMs: Int64 = 300_000
    @Option(help: "Misbehave on purpose: \(PhoneFault.allCases.map(\.rawValue).joined(separator: ", ")) (repeatable).") var fault: [PhoneFault] = []
    @OptionGroup var client: PairingClientOptions

    func run() async throws {
        let inputs = [qr, code, handoffFile, showQr ? "show-qr" : nil].compactMap { $0 }
        guard inputs.count == 1 else { throw ValidationError("give exactly one of --qr, --code, --handoff-file and --show-qr") }
        guard (1...PairingTimeouts.validity).contains(confirmationWaitMs) else { throw ValidationError("--confirmation-wait-ms must be 1 ... 300000") }
        let did = did ?? DIDKey.random()
        var options = PhonePeer.Options(
            phone: PhoneContext(
                activeDid: did, device: MobileDeviceInfo(deviceId: UUID().uuidString.lowercased(), name: name, platform: platform),
                signalingUrl: signaling))
        options.policy = try client.policy()
        options.confirmationWait = confirmationWaitMs
        options.trust = try client.tls.trust()
        options.log = client.log("phone")
        options.faults.registerTargetID = fault.contains(.registerTargetId)
        options.faults.noBackoff = fault.contains(.noBackoff)
        options.faults.noKeepalive = fault.contains(.noKeepalive)
        options.faults.keepDeadConnection = fault.contains(.keepDeadConnection)
        options.webrtcTimeout = client.webrtcTimeout
        let peer = PhonePeer(options)
        FileHandle.standardError.write(Data("phone: \(did)\n".utf8))
        var allSucceeded = true
        try await client.repeatSessions {
            let input: String
            if let handoffFile {
                input = try await Handoff.take(handoffFile)
            } else {
                input = qr ?? code ?? "show-qr"
            }
            let outcome: PairingOutcome
            if input.trimmingCharacters(in: .whitespacesAndNewlines) == "show-qr" {
                var random = SystemRandomNumberGenerator()
                let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &random) }
                outcome = await peer.display(random: bytes) { qr in await Handoff.show(qr, as: "phone", file: qrFile, png: nil) }
            } else {
                outcome = await peer.pair(input)
            }
            allSucceeded = allSucceeded && outcome.succeeded && outcome.negotiated != false
            Handoff.say("phone: \(outcome.state)")
            if let stored = outcome.stored { Handoff.say("phone: stored paired-desktop \(stored)") }
        }
        if !allSucceeded { throw ExitCode(1) }
    }
}

struct Desktop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be the desktop: show a code as a QR and as six digits, and pair with the phone that answers, over a signaling relay.",
        discussion: """
            Registers its own id and the code's pairing-code: alias on --relay, shows the QR (as a QR image in the \
            terminal when `qrencode` is installed, and as text), writes the QR text to --qr-file, confirms a typed \
            code, and prints the phone it paired with. A code lives 5 minutes. With --webrtc, after each pairing it waits \
            up to 30 s for the phone's offer and answers it before it shows the next code. Exit 0 when every pairing \
            (and, with --webrtc, every exchange) succeeded.
            """)

    @Option(help: "The signaling relay, ws:// or wss://.") var relay: String
    @Option(help: "The desktop's own LAN signaling URL to put in the QR (signalingUrl).") var lan: String?
    @Option(help: "Write each QR text to this file (what `conformance run --role desktop --qr-file` reads).") var qrFile: String?
    @Option(help: "Also write each QR as a PNG image here (needs qrencode).") var qrPng: String?
    @Option(help: "Flow A: while a code is shown, scan the phone's QR text from this file when it appears (then removed).") var scanFile: String?
    @Option(help: "The desktop's own peer id (pcPeerId).") var peerId = "desktop-" + String(UUID().uuidString.prefix(8)).lowercased()
    @Option(help: "The desktop's name.") var name = "Reference Desktop"
    @Option(help: "win32, darwin or linux.") var platform = "linux"
    @Option(help: "Misbehave on purpose: \(DesktopFault.allCases.map(\.rawValue).joined(separator: ", ")) (repeatable).") var fault: [DesktopFault] = []
    @Option(help: ArgumentHelp("How long a code is valid, ms (test builds only; the seed's 300000).", visibility: .hidden)) var validityMs: Int64 = PairingTimeouts.validity
    @Flag(help: "Register each code's alias on a connection of its own (as ChainlessChain's desktop does), not beside the desktop's id.")
    var aliasConnection = false
    @OptionGroup var client: PairingClientOptions

    func run() async throws {
        var options = DesktopPeer.Options(
            desktop: DesktopContext(pcPeerId: peerId, device: DesktopDeviceInfo(name: name, platform: platform, version: "1.0.0"), relayUrl: relay, signalingUrl: lan))
        options.policy = try client.policy()
        options.trust = try client.tls.trust()
        options.log = client.log("desktop")
        options.faults.noAlias = fault.contains(.noAlias)
        options.faults.confirmAnyCode = fault.contains(.confirmAnyCode)
        options.faults.neverExpire = fault.contains(.neverExpire)
        options.faults.aliasNoKeepalive = fault.contains(.aliasNoKeepalive)
        if options.faults.aliasNoKeepalive && !aliasConnection { throw ValidationError("--fault alias-no-keepalive needs --alias-connection") }
        options.aliasConnection = aliasConnection
        guard (1...PairingTimeouts.validity).contains(validityMs) else { throw ValidationError("--validity-ms must be 1 ... 300000") }
        options.validity = validityMs
        options.client.noBackoff = fault.contains(.noBackoff)
        options.client.noKeepalive = fault.contains(.noKeepalive)
        options.client.keepDeadConnection = fault.contains(.keepDeadConnection)
        options.webrtcTimeout = client.webrtcTimeout
        let peer = DesktopPeer(options)
        let (qrFile, qrPng) = (qrFile, qrPng)
        var allSucceeded = true
        await client.repeatSessions {
            var random = SystemRandomNumberGenerator()
            let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &random) }
            // Flow A: a phone's QR in --scan-file replaces the code on display.
            let scanned = scanFile.map { file in
                Task { () -> String? in
                    guard let text = try? await Handoff.take(file) else { return nil }
                    await peer.cancel()
                    return text
                }
            }
            var outcome = await peer.pair(random: bytes) { qr in
                await Handoff.show(qr, as: "desktop", file: qrFile, png: qrPng)
            }
            scanned?.cancel()
            if let text = await scanned?.value { outcome = await peer.scan(text) }
            allSucceeded = allSucceeded && outcome.succeeded && outcome.negotiated != false
            Handoff.say("desktop: \(outcome.state)")
            if let stored = outcome.stored { Handoff.say("desktop: stored paired phone \(stored)") }
        }
        if !allSucceeded { throw ExitCode(1) }
    }
}

/// How QR texts and codes pass between a pairing peer and the runner (or a person).
enum Handoff {
    /// One line on stdout at once (unbuffered, also into a pipe: a harness reads outcomes as they come).
    static func say(_ line: String) {
        // An outcome names the other side's device: its text, escaped, stays one line.
        FileHandle.standardOutput.write(Data((line.terminalSafe + "\n").utf8))
    }

    /// Waits for `path` to appear with content, reads it and removes it.
    static func take(_ path: String) async throws -> String {
        try await HandoffFile.take(URL(fileURLWithPath: path), within: nil) ?? ""
    }

    /// Shows a QR text: as a QR image on the terminal when qrencode is installed, always as text
    /// (and a desktop's six digits); writes it to `file` (atomically) and as a PNG to `png`.
    static func show(_ qr: String, as name: String, file: String?, png: String?) async {
        if name == "desktop", let code = (try? JSONParser.parse(Array(qr.utf8)))?["code"]?.stringValue {
            FileHandle.standardError.write(Data("desktop: code \(code)  (type it on the phone, or scan the QR)\n".utf8))
        }
        if isatty(STDERR_FILENO) == 1, let image = qrencode(["-t", "UTF8", "--", qr]) { FileHandle.standardError.write(image) }
        FileHandle.standardError.write(Data("\(name): QR \(qr)\n".utf8))
        if let png, qrencode(["-o", png, "--", qr]) == nil { FileHandle.standardError.write(Data("\(name): --qr-png needs qrencode (apt-get install qrencode)\n".utf8)) }
        if let file { try? Data(qr.utf8).write(to: URL(fileURLWithPath: file), options: .atomic) }
    }

    /// Runs qrencode with `arguments`; its output, or nil when it is not installed or failed.
    static func qrencode(_ arguments: [String]) -> Data? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["qrencode"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }
}
