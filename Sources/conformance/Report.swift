import ArgumentParser
import ConformanceKit
import Foundation

/// `conformance report merge`: shard reports of one run as one report.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with JSON reports of earlier runs.", subcommands: [Merge.self])

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the JSON reports of a run's shards (--shard I/N --format json) into the report the unsharded run writes.",
            discussion: """
                No case may be in two reports, and all must be version-1 reports of the same peer; a missing shard is \
                not detected (its cases are absent). The merged report lists the cases in the kit's order and exits as \
                the run would: 0 when every case met its expectation, 1 otherwise, 2 on a usage error (a report \
                unreadable, of another version or peer, overlapping another, or naming a case unlike this kit's).
                """)

        @OptionGroup var repo: RepositoryOption
        @Argument(help: "The shard reports (conformance run --shard I/N --format json --output FILE).") var reports: [String]
        @Option(help: "Report format: text, json, junit or html.") var format: Run.Format = .text
        @Option(help: "With --format html: where the rule links point (default: this checkout's Spec/).") var specBase: String?
        @Option(help: "Write the report to this file instead of standard output.") var output: String?

        func run() throws {
            guard !reports.isEmpty else { throw ValidationError("name at least one report") }
            let repository = try repo.locate()
            let cases = try repository.cases()
            let vectors = Dictionary(cases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            var read: [RunReport] = []
            for path in reports {
                guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
                do {
                    read.append(try ReportReader.read([UInt8](data), name: path, vectors: vectors))
                } catch {
                    throw ValidationError("\(error)")
                }
            }
            let merged: RunReport
            do {
                merged = try ShardMerge.merge(read, order: cases.map(\.id))
            } catch {
                throw ValidationError(error.description)
            }
            switch format {
            case .text: try writeOutput(TextReport.render(merged, color: output == nil && isTerminal(.standardOutput)), to: output)
            case .json: try writeOutput(JSONReport.render(merged), to: output)
            case .junit: try writeOutput(JUnitReport.render(merged), to: output)
            case .html:
                let base = specBase ?? repository.root.appendingPathComponent("Spec").absoluteString + "/"
                try writeOutput(HTMLReport.render(merged, specBase: base.hasSuffix("/") ? base : base + "/"), to: output)
            }
            if !merged.ok { throw ExitCode(Status.violations) }
        }
    }
}
