import ArgumentParser
import ConformanceKit

@main
struct ReferencePeer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reference-peer",
        abstract: "The Swift reference implementation, acting as a peer.",
        subcommands: [Testee.self])
}

extension TesteeFault: ExpressibleByArgument {}

struct Testee: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer the conformance runner's requests on stdin/stdout (Conformance/testee-protocol.md).")

    @Option(help: ArgumentHelp("Misbehave on purpose, to test the kit itself.", visibility: .hidden))
    var fault: TesteeFault?

    func run() {
        if let fault {
            TesteeServer.serve(answer: fault.answer)
        } else {
            TesteeServer.serve()
        }
    }
}
