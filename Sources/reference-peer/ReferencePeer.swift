import ArgumentParser
import Foundation
import Migration
import MigrationPackage
import Reference
import WebSocketTransport
import WireCore

@main
struct ReferencePeer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reference-peer",
        abstract: "The Swift reference implementation, acting as a peer.",
        subcommands: [
            Testee.self, SampleStoreCommand.self, Pack.self, Unpack.self, Rollback.self, Recover.self, Send.self, Receive.self, Relay.self, Phone.self, Desktop.self,
        ])
}

extension TesteeFault: ExpressibleByArgument {}

struct Testee: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer the conformance runner's requests on stdin/stdout (Conformance/testee-protocol.md).")

    @Option(help: ArgumentHelp(
        "Misbehave on purpose, to rehearse a run against a wrong implementation: "
            + "accept-five-digit-codes (accepts 5-digit pairing codes; pair it with Conformance/expected-failures/example-accepts-five-digit-codes.txt) "
            + "or crash-on-machines (exits when asked to run a machine).",
        valueName: "fault"))
    var fault: TesteeFault?

    func run() {
        if let fault {
            TesteeServer.serve(answer: fault.answer)
        } else {
            TesteeServer.serve()
        }
    }
}

/// `256M`, `2G`, `100K` (also `KiB`, `MiB`, `GiB`, `KB`, ...: all powers of 1024) or plain bytes.
struct ByteSize: ExpressibleByArgument, CustomStringConvertible {
    let bytes: Int64
    init?(argument: String) {
        let units: [String: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var text = argument.uppercased()
        for suffix in ["IB", "B"] where text.hasSuffix(suffix) && text.count > suffix.count + 1 {
            text.removeLast(suffix.count)
            break
        }
        if let last = text.last, let unit = units[String(last)], let n = Int64(text.dropLast()), n >= 0, n <= Int64.max / unit {
            bytes = n * unit
        } else if let n = Int64(text), n >= 0 {
            bytes = n
        } else {
            return nil
        }
    }

    /// How `--help` shows a default: `8M`, not `ByteSize(bytes: 8388608)`.
    var description: String {
        for (suffix, unit) in [("G", Int64(1) << 30), ("M", Int64(1) << 20), ("K", Int64(1) << 10)] where bytes >= unit && bytes % unit == 0 {
            return "\(bytes / unit)\(suffix)"
        }
        return "\(bytes)"
    }

    var defaultValueDescription: String { description }
}

struct SampleStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample-store", abstract: "Generate a realistic device store (entities, media, master key).")

    @Argument(help: "The store folder to create.") var out: String
    @Option(help: "Total size of the media files, e.g. 256M, 2G.") var mediaSize: ByteSize = ByteSize(argument: "8M")!
    @Option(help: "Seed: the same seed gives the same store.") var seed: UInt64 = 1
    @Option(help: "Number of stories.") var stories = 300
    @Option(help: "Number of categories.") var categories = 24
    @Option(help: "Media records whose files are missing.") var brokenMedia = 0
    @Option(help: "Number of media files sharing --media-size (default: sizes like a phone's, so the count grows with it).") var mediaCount: Int?

    func run() throws {
        guard !FileManager.default.fileExists(atPath: out) else { throw ValidationError("\(out) already exists") }
        var options = SampleStore.Options()
        options.mediaBytes = mediaSize.bytes
        options.stories = stories
        options.categories = categories
        options.brokenMedia = brokenMedia
        options.mediaCount = mediaCount
        try SampleStore.generate(at: URL(fileURLWithPath: out), seed: seed, options: options)
        print("wrote \(out)")
    }
}

/// How the migration password is obtained: a file, or a prompt without echo.
struct PasswordOptions: ParsableArguments {
    @Option(help: "A file whose first line is the migration password (default: ask).") var passwordFile: String?

    func password(confirm: Bool) throws -> String {
        if let passwordFile {
            guard let data = FileManager.default.contents(atPath: passwordFile) else {
                throw ValidationError("cannot read \(passwordFile)")
            }
            return PasswordFile.password(from: [UInt8](data))
        }
        guard let first = getpass("Migration password: ").map({ String(cString: $0) }), !first.isEmpty else {
            throw ValidationError("a password is required")
        }
        if confirm {
            // A typo here would make the package unopenable on the new phone: type it twice.
            guard let again = getpass("The same password again (a typo would lock the package): ").map({ String(cString: $0) }), again == first else {
                throw ValidationError("the passwords differ")
            }
        }
        return first
    }
}

struct Pack: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pack a store into an encrypted migration package (backup-ID.enc).")

    @Argument(help: "The store to pack.") var store: String
    @Option(help: "The package to write.") var out: String
    @OptionGroup var password: PasswordOptions
    @Option(help: "PBKDF2 iterations (at least 600000 unless --test-only).") var iterations: UInt32 = EnvelopePolicy.defaultIterations
    @Option(help: "Envelope segment size in bytes (a power of two, 4096 ... 16777216).") var segmentSize: UInt32 = 1 << 16
    @Option(help: "Reproducible output: take all randomness from this seed and the time from --created-at.") var deterministic: UInt64?
    @Option(help: "The backup's creation time, Unix seconds (default: now).") var createdAt: Int64?
    @Flag(help: "Allow fewer than 600000 iterations (for test vectors only).") var testOnly = false

    func run() throws {
        guard testOnly || iterations >= EnvelopePolicy.standard.iterations.lowerBound else {
            throw ValidationError("fewer than 600000 iterations needs --test-only")
        }
        var options = Packer.Options()
        options.iterations = iterations
        options.segmentSize = segmentSize
        let now = createdAt ?? SystemClock().now() / 1000
        let secret = try password.password(confirm: true)
        let result: Packer.Result
        if let deterministic {
            var random = GeneratorBytes(SplitMix64(seed: deterministic))
            result = try Packer.pack(DeviceStore(URL(fileURLWithPath: store)), to: URL(fileURLWithPath: out), password: secret, options: options, now: now, random: &random)
        } else {
            var random = GeneratorBytes(SystemRandomNumberGenerator())
            result = try Packer.pack(DeviceStore(URL(fileURLWithPath: store)), to: URL(fileURLWithPath: out), password: secret, options: options, now: now, random: &random)
        }
        print("packed backup \(result.backupId): \(result.envelopeSize) bytes, \(result.brokenMedia) broken media")
    }
}

struct Unpack: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify, decrypt and restore a package into a store, atomically.",
        discussion: "On any failure the store is left exactly as it was. Exit 1 on a rejected package, with the rule that failed.")

    @Argument(help: "The package (backup-ID.enc).") var package: String
    @OptionGroup var password: PasswordOptions
    @Option(help: "The store to replace.") var into: String
    @Flag(help: "Keep the old store as STORE.BackupBeforeMigration for `rollback`.") var keepPrevious = false
    @Option(help: "Lowest PBKDF2 iteration count accepted (test vectors only; default 600000).") var minimumIterations: UInt32?

    func run() throws {
        var options = Restorer.Options()
        options.keepPrevious = keepPrevious
        if let minimumIterations { options.policy = EnvelopePolicy(iterations: minimumIterations...EnvelopePolicy.standard.iterations.upperBound) }
        do {
            let result = try Restorer.restore(
                URL(fileURLWithPath: package), password: try password.password(confirm: false), into: DeviceStore(URL(fileURLWithPath: into)), options: options)
            print("restored backup \(result.backupId): \(result.entityCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")), \(result.mediaFiles) media files")
        } catch let error as PackageError {
            FileHandle.standardError.write(Data("unpack: \(error.terminalSafe)\n".utf8))
            if let v = error.violation { FileHandle.standardError.write(Data("  see \(v.section)\n".utf8)) }
            throw ExitCode(1)
        }
    }
}

struct Rollback: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Put STORE.BackupBeforeMigration back in place of STORE.")
    @Argument(help: "The store.") var store: String
    func run() throws {
        try Restorer.rollback(DeviceStore(URL(fileURLWithPath: store)))
        print("rolled back \(store)")
    }
}

struct Recover: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Finish or undo a restore that was interrupted (also done before every unpack).")
    @Argument(help: "The store.") var store: String
    func run() throws {
        try StoreTransaction.recover(DeviceStore(URL(fileURLWithPath: store)))
        print("recovered \(store)")
    }
}
