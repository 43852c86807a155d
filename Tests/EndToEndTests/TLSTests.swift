import Foundation
import TestFixture
import Testing

/// wss:// end to end, with a CA and certificates made at test time (Tests/Fixtures/tls/make-certs):
/// the relay role and the migration roles over TLS, and each certificate problem ending the run
/// with its own outcome, exit 1, no case played.
@Suite("TLS: live peers over wss://", .serialized)
struct TLSTests {
    let live: LiveRunTests
    let certs: URL

    init() async throws {
        live = try LiveRunTests()
        certs = live.file("certs")
        let made = try await Fixture.execute(Fixture.root.appendingPathComponent("Tests/Fixtures/tls/make-certs"), [certs.path])
        #expect(made.status == 0, "openssl could not make the test certificates: \(made.stderr)")
    }

    func cert(_ name: String) -> String { certs.appendingPathComponent(name).path }

    /// `reference-peer relay` serving wss:// with the certificate `name`; returns it and its URL.
    func relay(_ name: String) async throws -> (Process, String) {
        try? FileManager.default.removeItem(at: live.file("url"))
        let relay = try await live.start(
            ["relay", "--listen", "127.0.0.1:0", "--ready-file", live.file("url").path, "--cert", cert("\(name).pem"), "--key", cert("\(name).key")],
            log: "relay.log", readyFile: live.file("url"))
        return (relay, try String(contentsOf: live.file("url"), encoding: .utf8))
    }

    @Test func relayRoleOverTLSWithAPrivateCA() async throws {
        defer { try? FileManager.default.removeItem(at: live.scratch) }
        let (relay, url) = try await relay("server")
        defer { relay.terminate() }
        #expect(url.hasPrefix("wss://127.0.0.1:"))
        let run = try await Fixture.run("conformance", ["run", "--role", "relay", "--peer", url, "--ca-file", cert("ca.pem")])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("TLS: verified the host name against the CA in \(cert("ca.pem"))"), "\(run.stdout)")
        let relayCases = Fixture.cases.filter { $0.family == "pairing" && $0.subject == "relay" }.count
        #expect(run.stdout.contains("PASS  \(relayCases - 3) passed, 0 failed"), "\(run.stdout)")
        // The same relay pinned by its key, and refused without the CA: an outcome, not a violation list.
        let pin = try String(contentsOfFile: cert("server.pin"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let pinned = try await Fixture.run("conformance", ["run", "--role", "relay", "--peer", url, "--pin-sha256", pin, "--case", "pairing/relay/routes-between-registered-peers"])
        #expect(pinned.status == 0, "\(pinned.stdout)\(pinned.stderr)")
        #expect(pinned.stdout.contains("TLS: verified the server key against the pin sha256//\(pin)"), "\(pinned.stdout)")
        let untrusted = try await Fixture.run("conformance", ["run", "--role", "relay", "--peer", url], limit: 60)
        #expect(untrusted.status == 1, "\(untrusted.stdout)\(untrusted.stderr)")
        #expect(untrusted.stdout.hasPrefix("FAIL  tls-unknown-ca: "), "\(untrusted.stdout)")
        let insecure = try await Fixture.run("conformance", ["run", "--role", "relay", "--peer", url, "--insecure-skip-verify", "--case", "pairing/relay/routes-between-registered-peers"])
        #expect(insecure.status == 0)
        #expect(insecure.stdout.contains("TLS: verified NOTHING (--insecure-skip-verify)"), "\(insecure.stdout)")
        // JUnit, what CI pages show, says so too (issue 24.8): on every suite.
        let junit = try await Fixture.run(
            "conformance",
            ["run", "--role", "relay", "--peer", url, "--insecure-skip-verify", "--case", "pairing/relay/routes-between-registered-peers", "--format", "junit"])
        #expect(junit.stdout.contains(#"<property name="note" value="TLS: verified NOTHING (--insecure-skip-verify)"#), "\(junit.stdout)")
    }

    @Test(arguments: [
        ("otherhost", [String](), "tls-wrong-host: the certificate names other.example, not 127.0.0.1"),
        ("expired", [String](), "tls-certificate-expired: the certificate of 127.0.0.1 expired at 2020-01-02"),
        ("future", [String](), "tls-certificate-not-yet-valid: the certificate of 127.0.0.1 is valid from 2099-01-01"),
        ("selfsigned", [String](), "tls-unknown-ca: "),
        ("server", ["--pin-sha256", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="], "tls-pin-mismatch: the server's key is sha256//"),
    ])
    func eachCertificateProblemIsItsOwnOutcome(name: String, trust: [String], outcome: String) async throws {
        defer { try? FileManager.default.removeItem(at: live.scratch) }
        let (relay, url) = try await relay(name)
        defer { relay.terminate() }
        let options = trust.isEmpty ? ["--ca-file", cert("ca.pem")] : trust
        let run = try await Fixture.run("conformance", ["run", "--role", "relay", "--peer", url] + options, limit: 60)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasPrefix("FAIL  " + outcome), "\(run.stdout)")
    }

    /// Two reference peers migrate over wss://: the receiver trusts the sender through the private CA.
    @Test func migrationOverTLSGivesIdenticalStores() async throws {
        defer { try? FileManager.default.removeItem(at: live.scratch) }
        let store = try await live.senderStore()
        let sender = try await live.start(
            [
                "send", store, "--listen", "127.0.0.1:0", "--ready-file", live.file("url").path, "--password-file", live.file("password").path,
                "--pin-file", live.file("pin").path, "--iterations", "1000", "--test-only", "--chunk-size", "4K",
                "--cert", cert("server.pem"), "--key", cert("server.key"),
            ], log: "send.log", readyFile: live.file("url"))
        defer { sender.terminate() }
        let url = try String(contentsOf: live.file("url"), encoding: .utf8)
        #expect(url.hasPrefix("wss://"))
        let received = try await Fixture.run(
            "reference-peer",
            [
                "receive", "--connect", url, "--into", live.file("new").path, "--password-file", live.file("password").path,
                "--pin-out", live.file("pin").path, "--yes", "--minimum-iterations", "1000", "--ca-file", cert("ca.pem"),
            ])
        #expect(received.status == 0, "\(received.stderr)\n\(live.log("send.log"))")
        await Fixture.exit(of: sender)
        let diff = try await Fixture.execute(URL(fileURLWithPath: "/usr/bin/diff"), ["-r", store, live.file("new").path])
        #expect(diff.status == 0, "the restored store differs from the sent one: \(diff.stdout)")
    }
}
