import ArgumentParser
import ConformanceKit
import Foundation
import WebSocketTransport
import WireCore

@main
struct Conformance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Checks implementations of the device-data protocols against the Spec's golden vectors.",
        subcommands: [Run.self, Check.self, Watch.self, List.self, Report.self, Matrix.self],
        defaultSubcommand: Run.self)

    /// The kit's version; `--version` adds the digest of the vector set it judges with.
    static let version = "1.0.0"

    /// ArgumentParser exits 64 on usage errors; the kit promises 2 (0 ok, 1 violations).
    static func main() async {
        if CommandLine.arguments.dropFirst().first == "--version" {
            var line = "conformance \(version)"
            if let repository = Repository.locate() {
                line += " (vectors sha256:\(repository.vectorSetDigest.prefix(16)), \(repository.root.path))"
            }
            print(line)
            return
        }
        do {
            var command = try parseAsRoot()
            if var live = command as? AsyncParsableCommand {
                try await live.run()
            } else {
                try command.run()
            }
        } catch let error as InputError {
            FileHandle.standardError.write(Data("conformance: \(error.terminalText)\n".utf8))
            Foundation.exit(Status.usage)
        } catch {
            let code = exitCode(for: error)
            if code == .success || code.rawValue == Status.violations {
                exit(withError: error)
            }
            var message = fullMessage(for: error)
            // A usage error's message may quote a file's or a peer's text; the usage around it is ours.
            if let usage = error as? ValidationError, let range = message.range(of: usage.message) {
                message.replaceSubrange(range, with: TerminalText.escaped(usage.message))
            }
            if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            Foundation.exit(Status.usage)
        }
    }
}

/// The trust a wss:// client gives from the TLS options, or the usage error.
func tlsTrust(caFile: String?, pin: String?, insecure: Bool) throws -> TLSClientTrust {
    do {
        return try TLSClientTrust.choose(caFile: caFile, pin: pin, insecure: insecure)
    } catch {
        throw ValidationError(error.description)
    }
}

/// Input the kit cannot read (a Swift source out of the reader's bounds, a session log that is
/// not one, a revision git does not know): exit 2 with the reason, escaped, and without the
/// usage text a mistyped option earns.
struct InputError: Error, CustomStringConvertible {
    /// The message's lines, each escaped on its own: a line break inside one (from a file's
    /// name or a peer's text) cannot forge another.
    var lines: [String]
    init(_ description: String) { lines = [description] }
    init(lines: [String]) { self.lines = lines }
    var description: String { lines.joined(separator: "\n") }
    var terminalText: String { lines.map(TerminalText.escaped).joined(separator: "\n") }
}

/// Exit statuses shared by the subcommands.
enum Status {
    static let ok: Int32 = 0
    static let violations: Int32 = 1
    static let usage: Int32 = 2
}

struct RepositoryOption: ParsableArguments {
    @Option(name: .customLong("repo"), help: "The folder holding Vectors/ and Spec/ (default: found from the working directory).")
    var path: String?

    func locate() throws -> Repository {
        guard let repo = Repository.locate(explicit: path) else {
            throw ValidationError("cannot find Vectors/ and Spec/catalog.json; run inside the checkout or pass --repo")
        }
        return repo
    }
}

extension Repository {
    /// The kit's vector cases, or the usage error that says why they cannot be read.
    func cases() throws -> [VectorCase] {
        do {
            return try VectorLoader.load(root: vectors)
        } catch {
            throw ValidationError("cannot load vectors: \(error)")
        }
    }
}

func isTerminal(_ handle: FileHandle) -> Bool { isatty(handle.fileDescriptor) != 0 }

func writeOutput(_ text: String, to path: String?) throws {
    if let path {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("cannot write \(path): \(error.localizedDescription)")
        }
    } else {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
