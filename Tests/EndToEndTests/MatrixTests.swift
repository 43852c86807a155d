import Foundation
import TestFixture
import Testing
import WireCore

/// `conformance matrix` (issue 31.1): the reference peers, docs-only outsiders and the
/// third-party relay fixture, each in the roles it plays, one cell a run; the matrix in text,
/// JSON and HTML, and the HTML rendered by a browser with every cell linked to its report.
@Suite("Interop matrix", .serialized)
struct MatrixTests {
    /// The JSON report of the cell a summary line names ("PASS  reference as desktop: ..."), so
    /// that a cell failing on a loaded machine says why.
    static func cellReport(_ line: String, in out: URL) -> String {
        guard let named = line.firstMatch(of: /^(?:PASS|FAIL)  (\S+) as (\S+):/) else { return "" }
        let url = out.appendingPathComponent("cells/\(named.1)--\(named.2).json")
        return String(((try? String(contentsOf: url, encoding: .utf8)) ?? "no \(url.path)").prefix(6000))
    }

    @Test(.timeLimit(.minutes(5))) func implementationsByRolesWithEveryCellLinked() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let password = scratch.appendingPathComponent("password")
        try "conformance".write(to: password, atomically: true, encoding: .utf8)
        let peer = "'\(Fixture.executable("reference-peer"))'"
        let store = scratch.appendingPathComponent("old")
        let made = try await Fixture.run("reference-peer", ["sample-store", store.path, "--media-size", "1M", "--seed", "5"])
        #expect(made.status == 0, "\(made.stderr)")
        let send = "\(peer) send '\(store.path)' --listen 127.0.0.1:{port} --password-file '\(password.path)' --pin-file {pin} --sessions 0 --chunk-size 4K"
        func fixture(_ path: String) -> String { "'" + Fixture.root.appendingPathComponent("Tests/Fixtures/" + path).path + "'" }
        let file: JSONValue = [
            "matrix": 1,
            "implementations": [
                [
                    "name": "reference",
                    "roles": [
                        "testee": ["command": .string("\(peer) testee")],
                        "relay": ["command": .string("\(peer) relay --listen 127.0.0.1:{port}")],
                        // The Spec's timers, as the outsiders': a pair is judged with one timing for both.
                        "phone": ["command": .string("\(peer) phone --handoff-file {handoff} --qr-file {qr} --signaling {url} --sessions 0 --webrtc")],
                        "desktop": ["command": .string("\(peer) desktop --relay {url} --qr-file {qr} --scan-file {scan} --sessions 0 --webrtc")],
                        "sender": ["command": .string(send), "runner": ["--password-file", .string(password.path)]],
                        "receiver": [
                            "command": .string("\(peer) receive --connect {url} --into {dir} --password-file '\(password.path)' --pin-out {pin} --yes --sessions 0"),
                            // Its store is {dir}: the restore is checked (MIG-REST-001).
                            "runner": ["--store", "{dir}"],
                        ],
                    ],
                ],
                // Announces a digest its package does not have (MIG-XFER-006's check fails at the receiver).
                ["name": "wrong-digest-sender", "roles": ["sender": ["command": .string(send + " --fault wrongDigest"), "runner": ["--password-file", .string(password.path)]]]],
                ["name": "five-digit-testee", "roles": ["testee": ["command": .string("\(peer) testee --fault accept-five-digit-codes")]]],
                ["name": "third-party-relay", "roles": ["relay": ["command": .string("node \(fixture("third-party-relay/relay.js")) --host 127.0.0.1 --port {port}")]]],
                ["name": "outsider-phone", "roles": ["phone": ["command": .string("python3 \(fixture("outsider-phone/phone.py")) --handoff-file {handoff} --qr-file {qr} --signaling {url}")]]],
                // Sends its WebRTC offer as a bare frame after pairing (PAIR-RTC-005).
                [
                    "name": "bare-offer-phone",
                    "roles": [
                        "phone": [
                            "command": .string("python3 \(fixture("outsider-phone/phone.py")) --handoff-file {handoff} --qr-file {qr} --signaling {url} --webrtc --fault bare-offer")
                        ]
                    ],
                ],
                [
                    "name": "outsider-desktop",
                    "roles": ["desktop": ["command": .string("python3 \(fixture("outsider-desktop/desktop.py")) --relay {url} --qr-file {qr} --scan-file {scan}")]],
                ],
                [
                    "name": "outsider-receiver",
                    "roles": [
                        "receiver": [
                            "command": .string("python3 \(fixture("outsider-receiver/receiver.py")) --connect {url} --out {dir} --pin-out {pin} --password-file '\(password.path)'"),
                            "runner": ["--store", "{dir}/store"],
                        ]
                    ],
                ],
            ],
        ]
        let matrixFile = scratch.appendingPathComponent("matrix.json")
        try JSONSerializer.pretty(file).write(to: matrixFile, atomically: true, encoding: .utf8)
        let out = scratch.appendingPathComponent("out")
        let cases = [
            "pairing/pair-ack/code-five-digits", "pairing/relay/message-before-register", "pairing/live-phone/flow-b", "pairing/live-desktop/flow-b",
            "migration/live-receiver/clean", "migration/live-sender/clean",
        ]
        let run = try await Fixture.run(
            "conformance", ["matrix", matrixFile.path, "--out", out.path, "--pair-seconds", "6", "--no-through-relays"] + cases.flatMap { ["--case", $0] }, limit: 280)
        // The faulty testee, the third-party relay, the bare-offer phone and the wrong-digest sender
        // fail their cells; that phone fails both its pairs on its own side, and that sender its
        // transfers on its; the rest pass.
        for line in [
            "PASS  reference as testee: 2/2 passed", "PASS  reference as relay: 1/1 passed", "PASS  reference as phone: 1/1 passed",
            "PASS  reference as desktop: 1/1 passed", "PASS  reference as sender: 1/1 passed", "PASS  reference as receiver: 1/1 passed",
            "FAIL  wrong-digest-sender as sender: 0/1 passed, 1 failed", "FAIL  five-digit-testee as testee: 1/2 passed, 1 failed",
            "FAIL  third-party-relay as relay: 0/1 passed, 1 failed", "PASS  outsider-phone as phone: 1/1 passed",
            "FAIL  bare-offer-phone as phone: 0/1 passed, 1 failed", "PASS  outsider-desktop as desktop: 1/1 passed",
            "PASS  outsider-receiver as receiver: 1/1 passed",
            "PASS  reference phone with reference desktop: paired, 0 violation(s)", "PASS  reference phone with outsider-desktop desktop: paired, 0 violation(s)",
            "PASS  outsider-phone phone with reference desktop: paired, 0 violation(s)",
            "PASS  outsider-phone phone with outsider-desktop desktop: paired, 0 violation(s)",
            "FAIL  bare-offer-phone phone with reference desktop: paired, 1 violation(s) (phone 1)",
            "FAIL  bare-offer-phone phone with outsider-desktop desktop: paired, 1 violation(s) (phone 1)",
            "PASS  reference sender to reference receiver: migrated, 0 violation(s)",
            "PASS  reference sender to outsider-receiver receiver: migrated, 0 violation(s)",
            "FAIL  wrong-digest-sender sender to reference receiver: ", "FAIL  wrong-digest-sender sender to outsider-receiver receiver: ",
            "FAIL  15 of 23 cells passed",
        ] {
            #expect(run.stdout.contains(line), "\(line)\n\(run.stdout)\n\(Self.cellReport(line, in: out))")
        }
        let matrix = try JSONParser.parse(Array(try Data(contentsOf: out.appendingPathComponent("matrix.json"))))
        #expect(matrix["ok"] == false)
        let cells = matrix["cells"]?.arrayValue ?? []
        let pairs = matrix["pairs"]?.arrayValue ?? []
        #expect(cells.count == 13 && pairs.count == 10)
        for cell in cells + pairs {
            // Each cell's own reports are there: the run's (or the watch's) JSON and the HTML the matrix links to.
            for key in ["report", "html"] {
                let path = out.appendingPathComponent(cell[key]?.stringValue ?? "?").path
                #expect(FileManager.default.fileExists(atPath: path), "\(path)")
            }
        }
        // The watch names the bare offer's rule, on the phone's side.
        let bare = try JSONParser.parse(Array(try Data(contentsOf: out.appendingPathComponent("pairs/bare-offer-phone--reference.json"))))
        let found = bare["watch"]?["violations"]?.arrayValue ?? []
        #expect(found.map { "\($0["side"]?.stringValue ?? "") \($0["rule"]?.stringValue ?? "") \($0["path"]?.stringValue ?? "")" } == ["phone PAIR-RTC-005 /type"], "\(found)")
        // Charged to the program whose process holds the connection, not to an id it registered (issue 38.4).
        let owners = (try? String(contentsOf: out.appendingPathComponent("pairs/bare-offer-phone--reference.owners"), encoding: .utf8)) ?? "no owners file"
        #expect(found.map { $0["name"]?.stringValue } == ["bare-offer-phone (phone)"], "\(found)\n\(owners)")
        let lanes = Set((bare["watch"]?["connections"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
        #expect(lanes == ["bare-offer-phone (phone)", "reference (desktop)"], "\(bare["watch"]?["connections"] ?? nil)")

        let dom = try await HTMLReportTests.renderedDOM(out.appendingPathComponent("matrix.html"))
        #expect(dom.contains(#"<p id="verdict">FAIL: 15 of 23 cells passed</p>"#), "\(dom.prefix(600))")
        let links = dom.matches(of: /<td class="(pass|fail)"><a href="((cells|pairs|transfers)\/[^"]+)\.html">/).map { String($0.output.2) }
        #expect(
            Set(links)
                == [
                    "cells/reference--testee", "cells/reference--relay", "cells/reference--phone", "cells/reference--desktop", "cells/five-digit-testee--testee",
                    "cells/third-party-relay--relay", "cells/outsider-phone--phone", "cells/bare-offer-phone--phone", "cells/outsider-desktop--desktop",
                    "cells/outsider-receiver--receiver", "pairs/reference--reference", "pairs/reference--outsider-desktop", "pairs/outsider-phone--reference",
                    "pairs/outsider-phone--outsider-desktop", "pairs/bare-offer-phone--reference", "pairs/bare-offer-phone--outsider-desktop",
                    "cells/reference--sender", "cells/reference--receiver", "cells/wrong-digest-sender--sender", "transfers/reference--reference",
                    "transfers/reference--outsider-receiver", "transfers/wrong-digest-sender--reference", "transfers/wrong-digest-sender--outsider-receiver",
                ], "\(links)")
        #expect(dom.components(separatedBy: #"<td class="none">not played</td>"#).count - 1 == 8 * 6 - 13, "every other cell says it was not played")
    }

    @Test func aPortRangeThatIsNoneIsAUsageError() async throws {
        let run = try await Fixture.run("conformance", ["matrix", "no-such-matrix.json", "--ports", "15199-15000"])
        #expect(run.status == 2 && run.stderr.contains("--ports 15199-15000 is not FROM-TO within 1024-65535"), "\(run.stderr)")
    }

    /// Relays with other implementations' clients: the reference phone and desktop pair through
    /// each relay implementation, the watch forwarding to it and judging all three.
    @Test(.timeLimit(.minutes(3))) func clientsPairThroughEveryRelay() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let peer = "'\(Fixture.executable("reference-peer"))'"
        let relayJS = Fixture.root.appendingPathComponent("Tests/Fixtures/third-party-relay/relay.js").path
        let file: JSONValue = [
            "matrix": 1,
            "implementations": [
                [
                    "name": "reference",
                    "roles": [
                        "relay": ["command": .string("\(peer) relay --listen 127.0.0.1:{port}")],
                        "phone": ["command": .string("\(peer) phone --handoff-file {handoff} --qr-file {qr} --signaling {url} --sessions 0")],
                        "desktop": ["command": .string("\(peer) desktop --relay {url} --qr-file {qr} --scan-file {scan} --sessions 0")],
                    ],
                ],
                ["name": "third-party", "roles": ["relay": ["command": .string("node '\(relayJS)' --host 127.0.0.1 --port {port}")]]],
            ],
        ]
        let matrixFile = scratch.appendingPathComponent("matrix.json")
        try JSONSerializer.pretty(file).write(to: matrixFile, atomically: true, encoding: .utf8)
        let out = scratch.appendingPathComponent("out")
        let cases = ["pairing/relay/routes-between-registered-peers", "pairing/live-phone/flow-b", "pairing/live-desktop/flow-b"]
        // In a port range of its own (a CI runner's share): every port the matrix listens on is in it.
        let run = try await Fixture.run(
            "conformance", ["matrix", matrixFile.path, "--out", out.path, "--pair-seconds", "6", "--ports", "15000-15199"] + cases.flatMap { ["--case", $0] }, limit: 170)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let watchLogs = try FileManager.default.subpathsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".watch.log") }
        #expect(watchLogs.count == 3, "\(watchLogs)")
        for name in watchLogs {
            let text = try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)
            let ports = text.matches(of: /ws:\/\/127\.0\.0\.1:(\d+)/).compactMap { Int($0.1) }
            #expect(!ports.isEmpty && ports.allSatisfy { (15000...15199).contains($0) }, "\(name): \(text)")
        }
        #expect(run.stdout.contains("PASS  reference phone with reference desktop: paired, 0 violation(s)"), "\(run.stdout)")
        #expect(run.stdout.contains("PASS  reference phone with reference desktop through reference relay: paired, 0 violation(s)"), "\(run.stdout)")
        let third = run.stdout.split(separator: "\n").first { $0.contains("through third-party relay") }.map(String.init) ?? ""
        #expect(third.hasPrefix("FAIL  reference phone with reference desktop through third-party relay: "), "\(run.stdout)")
        let report = try JSONParser.parse(Array(try Data(contentsOf: out.appendingPathComponent("relayed/third-party--reference--reference.json"))))
        let sides = Set((report["watch"]?["violations"]?.arrayValue ?? []).compactMap { $0["side"]?.stringValue })
        #expect(sides.contains("relay"), "the third-party relay's own breaks are its: \(report["watch"]?["violations"] ?? .null)")
        let dom = try await HTMLReportTests.renderedDOM(out.appendingPathComponent("matrix.html"))
        for stem in ["relayed/reference--reference--reference", "relayed/third-party--reference--reference", "pairs/reference--reference"] {
            #expect(dom.contains("<a href=\"\(stem).html\">"), "\(stem)")
        }
    }
}
