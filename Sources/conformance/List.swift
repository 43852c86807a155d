import ArgumentParser
import ConformanceKit
import Foundation
import Reference
import WireCore

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List families, kinds, machines, rules and cases.")

    enum What: String, ExpressibleByArgument, CaseIterable { case families, kinds, rules, cases }

    @OptionGroup var repo: RepositoryOption
    @Argument(help: "What to list: families, kinds, rules or cases (default: families with their kinds).") var what: What = .families
    @Option(help: "Only this family.") var family: String?
    @Flag(help: "With `families`: the registrations as JSON (what Conformance/families.json holds for the Python tools).") var json = false

    func run() throws {
        if let family, Families.named(family) == nil {
            throw ValidationError("unknown family \(family); known: \(Families.all.map(\.name).joined(separator: ", "))")
        }
        let families = Families.all.filter { family == nil || $0.name == family }
        var out = ""
        switch what {
        case .families where json:
            out = JSONSerializer.pretty(Families.registrationJSON) + "\n"
        case .families:
            for f in families {
                out += "\(f.name)\n  kinds:    \(f.kinds.joined(separator: ", "))\n  machines: \(f.machines.joined(separator: ", "))\n"
                out += "  rules:    \(f.rules.count) (plus the core rules)\n"
            }
        case .kinds:
            for f in families {
                for k in f.kinds { out += "\(f.name)\tkind\t\(k)\n" }
                for m in f.machines { out += "\(f.name)\tmachine\t\(m)\n" }
            }
        case .rules:
            let catalog = try Catalog.load(try repo.locate().catalogFile)
            for r in catalog.rules where family == nil || r.chapter == family || r.chapter == "core" {
                out += "\(r.id.rawValue)\t\(r.level)\t\(r.title)\t(\(r.source))\n"
            }
        case .cases:
            let repository = try repo.locate()
            let cases = try repository.cases().filter { family == nil || $0.family == family }
            // Listing nothing is no answer: say where nothing was found.
            guard !cases.isEmpty else { throw ValidationError("no vector case\(family.map { " of family \($0)" } ?? "") under \(repository.vectors.path)") }
            for c in cases {
                out += "\(c.id.terminalSafe)\t\(c.comment.terminalSafe)\n"
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }
}
