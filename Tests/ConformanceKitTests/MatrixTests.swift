import Foundation
import Testing
import WireCore

/// `conformance matrix` (issue 31.1): the reference peers, docs-only outsiders and the
/// third-party relay fixture, each in the roles it plays, one cell a run; the matrix in text,
/// JSON and HTML, and the HTML rendered by a browser with every cell linked to its report.
@Suite("Interop matrix", .serialized)
struct MatrixTests {
    @Test(.timeLimit(.minutes(5))) func implementationsByRolesWithEveryCellLinked() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let password = scratch.appendingPathComponent("password")
        try "conformance".write(to: password, atomically: true, encoding: .utf8)
        let peer = "'\(Fixture.executable("reference-peer"))'"
        func fixture(_ path: String) -> String { "'" + Fixture.root.appendingPathComponent("Tests/Fixtures/" + path).path + "'" }
        let file: JSONValue = [
            "matrix": 1,
            "implementations": [
                [
                    "name": "reference",
                    "roles": [
                        "testee": ["command": .string("\(peer) testee")],
                        "relay": ["command": .string("\(peer) relay --listen 127.0.0.1:{port}")],
                        "phone": [
                            "command": .string("\(peer) phone --handoff-file {handoff} --qr-file {qr} --signaling {url} --sessions 0 --time-scale 0.1 --webrtc"),
                            "runner": ["--time-scale", "0.1"],
                        ],
                    ],
                ],
                ["name": "five-digit-testee", "roles": ["testee": ["command": .string("\(peer) testee --fault accept-five-digit-codes")]]],
                ["name": "third-party-relay", "roles": ["relay": ["command": .string("node \(fixture("third-party-relay/relay.js")) --host 127.0.0.1 --port {port}")]]],
                ["name": "outsider-phone", "roles": ["phone": ["command": .string("python3 \(fixture("outsider-phone/phone.py")) --handoff-file {handoff} --qr-file {qr} --signaling {url}")]]],
                [
                    "name": "outsider-receiver",
                    "roles": [
                        "receiver": ["command": .string("python3 \(fixture("outsider-receiver/receiver.py")) --connect {url} --out {dir} --pin-out {pin} --password-file '\(password.path)'")]
                    ],
                ],
            ],
        ]
        let matrixFile = scratch.appendingPathComponent("matrix.json")
        try JSONSerializer.pretty(file).write(to: matrixFile, atomically: true, encoding: .utf8)
        let out = scratch.appendingPathComponent("out")
        let cases = ["pairing/pair-ack/code-five-digits", "pairing/relay/message-before-register", "pairing/live-phone/flow-b", "migration/live-receiver/clean"]
        let run = try Fixture.run(
            "conformance", ["matrix", matrixFile.path, "--out", out.path] + cases.flatMap { ["--case", $0] }, limit: 280)
        // The faulty testee and the third-party relay fail their cells; the rest pass.
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        for line in [
            "PASS  reference as testee: 2/2 passed", "PASS  reference as relay: 1/1 passed", "PASS  reference as phone: 1/1 passed",
            "FAIL  five-digit-testee as testee: 1/2 passed, 1 failed", "FAIL  third-party-relay as relay: 0/1 passed, 1 failed",
            "PASS  outsider-phone as phone: 1/1 passed", "PASS  outsider-receiver as receiver: 1/1 passed", "FAIL  5 of 7 cells passed",
        ] {
            #expect(run.stdout.contains(line), "\(line)\n\(run.stdout)")
        }
        let matrix = try JSONParser.parse(Array(try Data(contentsOf: out.appendingPathComponent("matrix.json"))))
        #expect(matrix["ok"] == false)
        let cells = matrix["cells"]?.arrayValue ?? []
        #expect(cells.count == 7)
        for cell in cells {
            // Each cell's own reports are there: the run's JSON and the HTML the matrix links to.
            for key in ["report", "html"] {
                let path = out.appendingPathComponent(cell[key]?.stringValue ?? "?").path
                #expect(FileManager.default.fileExists(atPath: path), "\(path)")
            }
        }

        let dom = try HTMLReportTests.renderedDOM(out.appendingPathComponent("matrix.html"))
        #expect(dom.contains(#"<p id="verdict">FAIL: 5 of 7 cells passed</p>"#), "\(dom.prefix(600))")
        let links = dom.matches(of: /<td class="(pass|fail)"><a href="cells\/([^"]+)\.html">/).map { String($0.output.2) }
        #expect(
            Set(links)
                == [
                    "reference--testee", "reference--relay", "reference--phone", "five-digit-testee--testee", "third-party-relay--relay", "outsider-phone--phone",
                    "outsider-receiver--receiver",
                ], "\(links)")
        #expect(dom.components(separatedBy: #"<td class="none">not played</td>"#).count - 1 == 5 * 4 - 7, "every other cell says it was not played")
    }
}
