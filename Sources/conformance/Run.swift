import ArgumentParser
import ConformanceKit
import Foundation

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay every vector against an implementation and judge each answer.",
        discussion: "Exit status: 0 when every case met its expectation, 1 otherwise, 2 on usage errors.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, junit }

    @OptionGroup var repo: RepositoryOption
    @Option(help: "Only this family (\(Families.all.map(\.name).joined(separator: ", "))).") var family: String?
    @Option(name: .customLong("case"), help: "Only cases whose id matches this glob, e.g. 'pairing/flow-b/*'.") var caseGlob: String?
    @Option(help: "Report format: text, json or junit.") var format: Format = .text
    @Option(help: "Write the report to this file instead of standard output.") var output: String?
    @Option(help: "Cases the implementation is known to fail: `CASE-ID [RULE,...]  # reason` per line.")
    var expectedFailures: String?
    @Option(help: "Write this run's failures as an expected-failure list to this file.") var writeExpectedFailures: String?
    @Option(help: "The implementation: 'local' (the built-in reference) or exec:'COMMAND' (a testee over stdin/stdout).")
    var peer: String = "local"
    @Option(help: "Seconds to wait for a testee's answer.") var timeout: Double = 10
    @Flag(help: "Also list expected failures in the text report.") var verbose = false

    func run() throws {
        let repository = try repo.locate()
        if let family, Families.named(family) == nil {
            throw ValidationError("unknown family \(family); known: \(Families.all.map(\.name).joined(separator: ", "))")
        }
        let cases: [VectorCase]
        do {
            cases = try VectorLoader.load(root: repository.vectors)
        } catch {
            throw ValidationError("cannot load vectors: \(error)")
        }
        var expected = ExpectedFailures()
        if let path = expectedFailures {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ValidationError("cannot read \(path)")
            }
            do {
                expected = try ExpectedFailures.parse(text)
            } catch {
                throw ValidationError("\(path): \(error)")
            }
        }
        let implementation = try makePeer()
        defer { implementation.close() }
        let filter = CaseFilter(family: family, glob: caseGlob)
        if cases.filter(filter.matches).isEmpty {
            throw ValidationError("no case matches the selection")
        }
        let report = Runner.run(cases, against: implementation, expectedFailures: expected, filter: filter)
        switch format {
        case .text: try writeOutput(TextReport.render(report, color: output == nil && isTerminal(.standardOutput), verbose: verbose), to: output)
        case .json: try writeOutput(JSONReport.render(report), to: output)
        case .junit: try writeOutput(JUnitReport.render(report), to: output)
        }
        if output != nil && format != .text {
            FileHandle.standardError.write(Data(TextReport.render(report, color: isTerminal(.standardError)).utf8))
        }
        if let path = writeExpectedFailures {
            try writeOutput(ExpectedFailures.render(report.results), to: path)
        }
        if !report.ok { throw ExitCode(Status.violations) }
    }

    func makePeer() throws -> any Peer {
        if peer == "local" { return LocalPeer() }
        guard peer.hasPrefix("exec:") else {
            throw ValidationError("--peer must be 'local' or exec:'COMMAND', not \(peer)")
        }
        let command = String(peer.dropFirst("exec:".count))
        guard !command.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--peer exec: needs a command") }
        let exec = ExecPeer(command: command, timeout: timeout)
        if case .failure(let failure) = exec.start() {
            throw ValidationError("the testee did not start: \(failure)")
        }
        return exec
    }
}
