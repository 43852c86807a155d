import ConformanceKit
import Testing
import WireCore

/// A matrix cell's runner arguments take the same placeholders as the peer's command, as words:
/// `--store {dir}/store` names the receiver's own store (issue 39.1), unquoted.
@Suite("matrix cells")
struct MatrixCellTests {
    @Test func runnerArgumentsTakePlaceholdersUnquoted() throws {
        let text = #"""
            {"matrix": 1, "implementations": [{"name": "phone-app", "roles": {"receiver": {
              "command": "app receive --connect {url} --into {dir}", "runner": ["--store", "{dir}/store", "--timeout", "{unknown}"]}}}]}
            """#
        let file = try MatrixFile.parse(Array(text.utf8))
        let (name, entry) = try #require(file.playing(.receiver).first)
        let cell = MatrixCell(name, entry, port: 9000, files: ["dir": "/tmp/cells/phone app", "pin": "/tmp/cells/pin"])
        #expect(cell.peerCommand == "app receive --connect ws://127.0.0.1:9000 --into '/tmp/cells/phone app'")
        #expect(
            cell.runnerArguments == [
                "run", "--role", "receiver", "--listen", "127.0.0.1:9000", "--pin-file", "/tmp/cells/pin", "--store", "/tmp/cells/phone app/store", "--timeout",
                "{unknown}",
            ])
    }
}
