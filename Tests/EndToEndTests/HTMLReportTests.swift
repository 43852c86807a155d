import Foundation
import TestFixture
import Testing
import WireCore

/// The HTML report rendered by a real browser (headless Chromium, which `.ci/run` installs):
/// what a person opening the file sees, not only what the file contains.
@Suite("HTML report in a browser", .serialized)
struct HTMLReportTests {
    static func chromium() -> String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The page as headless Chromium renders it (its DOM after the scripts ran).
    static func renderedDOM(_ page: URL) async throws -> String {
        let browser = try #require(Self.chromium(), "headless Chromium is needed: apt-get install -y chromium (.ci/run does)")
        return try await Fixture.execute(URL(fileURLWithPath: browser), ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.absoluteString]).stdout
    }

    @Test func failuresShowAndPassesHideInTheRenderedPage() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let html = scratch.appendingPathComponent("report.html")
        let testee = "'\(Fixture.executable("reference-peer"))' testee --fault accept-five-digit-codes"
        let run = try await Fixture.run(
            "conformance",
            ["run", "--family", "pairing", "--case", "pairing/desktop-pairing/*", "--peer", "exec:\(testee)", "--format", "html", "--output", html.path])
        #expect(run.status == 1, "\(run.stderr)")

        let dom = try await Self.renderedDOM(html)

        #expect(dom.contains(#"<span class="fail" id="verdict">FAIL</span>"#), "\(dom.prefix(400))")
        // The fault fails exactly the three five-digit cases of the kind.
        let total = Fixture.cases.filter { $0.id.hasPrefix("pairing/desktop-pairing/") }.count
        #expect(dom.contains("\(total) cases: \(total - 3) passed, 3 failed"), "\(dom.prefix(600))")
        // The failure is shown with its rule linked to the Spec text; the filter script ran and hid the passes.
        #expect(dom.contains(#"<section class="case" data-status="failed" id="pairing/desktop-pairing/code-five-digits">"#))
        #expect(dom.contains("pairing.md#PAIR-CODE-001\">PAIR-CODE-001</a>"))
        #expect(dom.contains(#"<section class="case hidden" data-status="passed""#), "the filter script did not run")
        #expect(!dom.contains(#"<section class="case hidden" data-status="failed""#))
    }
}
