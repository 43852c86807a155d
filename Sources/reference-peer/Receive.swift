import ArgumentParser
import Foundation
import Migration
import MigrationPackage
import MigrationPeer
import WebSocketTransport
import WireCore

struct Receive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be the new phone: connect to a sender, show the PIN, receive the package and restore it into a store.",
        discussion: """
            Shows a PIN for the sender's user (or writes it to --pin-out). After a disconnect it connects \
            again and resumes; run it again with the same --into after a crash and it resumes from its \
            journal (STORE.transfer/). The store is replaced atomically, only after the whole package \
            verified. Exit 0 when restored, 1 otherwise.
            """)

    @Option(help: "The sender, ws://HOST:PORT or wss://HOST:PORT.") var connect: String
    @OptionGroup var tls: TLSClientOptions
    @Option(help: "The store to replace.") var into: String
    @OptionGroup var password: PasswordOptions
    @Option(help: "Write the PIN to this file instead of only showing it.") var pinOut: String?
    @Flag(help: "Replace the local data without asking.") var yes = false
    @Flag(help: "Keep the old store as STORE.BackupBeforeMigration for `rollback`.") var keepPrevious = false
    @Flag(help: ArgumentHelp(
        "Write no package file: unpack each chunk into the new store's staging as it arrives (resumes from STORE.transfer/ too)."))
    var streaming = false
    @Option(help: "Largest chunk accepted, in bytes.") var maxChunkSize: ByteSize = ByteSize(argument: "1M")!
    @Option(help: "Most chunks unacknowledged at once (1 ... 64).") var window = 16
    @Option(help: "Lowest PBKDF2 iteration count accepted (tests only; default 600000).") var minimumIterations: UInt32?
    @Option(help: "Receive this many migrations one after another (0: until stopped); for conformance runs.") var sessions = 1
    @Option(help: ArgumentHelp("Drop the connection after these chunk counts, e.g. 5,40 (fault injection).", visibility: .hidden))
    var disconnectAfterChunks: String?
    @Option(help: ArgumentHelp("Stop dead after this many chunks, as a crash would (fault injection).", visibility: .hidden))
    var stopAfterChunks: Int?
    @Option(help: ArgumentHelp("The wait after a first locked session, in ms (tests only; the Spec's 30000).", visibility: .hidden))
    var lockoutFirstWaitMs: Int64 = 30_000
    @Option(help: ArgumentHelp("End the session when the sender sends no Handshake within this many ms (tests only; the Spec's 10000).", visibility: .hidden))
    var handshakeTimeoutMs: Int64 = 10_000

    func run() async throws {
        MemoryPolicy.returnLargeBlocks()
        guard ControlMessage.chunkSizes.contains(Int(maxChunkSize.bytes)) else { throw ValidationError("--max-chunk-size must be 4096 ... 16777216") }
        guard (1...ControlMessage.maxWindow).contains(window) else { throw ValidationError("--window must be 1 ... 64") }
        let secret = try password.password(confirm: false)
        let console = Console("receive")
        let store = DeviceStore(URL(fileURLWithPath: into))
        var options = ReceiverPeer.Options(url: connect, incoming: IncomingPackage(folder: store.transfer))
        options.trust = try tls.trust()
        options.configuration.maxChunkSize = Int(maxChunkSize.bytes)
        options.configuration.maxWindow = window
        options.configuration.handshakeTimeout = handshakeTimeoutMs
        options.configuration.freeSpace = FreeSpace.bytes(near: store.root)
        if let list = disconnectAfterChunks {
            options.faults.disconnectAfterChunks = Set(list.split(separator: ",").compactMap { Int($0) })
        }
        options.stopAfterChunks = stopAfterChunks
        var restoreOptions = Restorer.Options()
        restoreOptions.keepPrevious = keepPrevious
        if let minimumIterations { restoreOptions.policy = EnvelopePolicy(iterations: minimumIterations...EnvelopePolicy.standard.iterations.upperBound) }
        if streaming { options.streaming = ReceiverPeer.Streaming(store: store, password: secret, restore: restoreOptions) }

        let hooks = Self.hooks(console, store: store, secret: secret, pinOut: pinOut, yes: yes, restore: restoreOptions)
        var failed = 0
        var session = 1
        var lockout = PINLockout(firstWait: lockoutFirstWaitMs)
        let clock = SystemClock()
        while true {
            // MIG-PIN-003: after locked sessions, wait longer and longer before showing a new PIN.
            if case .wait(let until)? = lockout.handle(.sessionWanted(at: clock.now())).first {
                let wait = until - clock.now()
                console.say("receive: \(lockout.lockedInARow) locked session(s) in a row: the next PIN in \((wait + 999) / 1000) s (MIG-PIN-003)")
                try await Task.sleep(for: .milliseconds(wait))
            }
            do {
                let ending = try await ReceiverPeer.run(options: options, hooks: hooks)
                _ = lockout.handle(.sessionEnded(ending.lockoutOutcome, at: clock.now()))
                if ending.state.phase != .done {
                    let reason = if case .failed(let why, _) = ending.state { " (\(why.wireName))" } else { "" }
                    console.say("receive: ended \(ending.state.phase.rawValue)\(reason)")
                    failed += 1
                    if sessions != 1 { try? FileManager.default.removeItem(at: store.transfer) }
                }
            } catch {
                guard sessions != 1 else { throw error }
                console.say("receive: \(error)")
                failed += 1
                // A session that broke leaves no journal worth resuming into the next one.
                try? FileManager.default.removeItem(at: store.transfer)
            }
            guard sessions == 0 || session < sessions else { break }
            session += 1
        }
        if failed > 0 { throw ExitCode(1) }
    }
}

/// Free bytes on the volume that holds (or will hold) the store.
enum FreeSpace {
    static func bytes(near url: URL) -> Int64 {
        var folder = url
        while !FileManager.default.fileExists(atPath: folder.path), folder.path != "/" { folder = folder.deletingLastPathComponent() }
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: folder.path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value ?? .max
    }
}

extension Receive {
    /// What the receiving phone's user sees and answers: the PIN (also written to `pinOut`), the
    /// question before its data is replaced, the restore and the password check.
    static func hooks(
        _ console: Console, store: DeviceStore, secret: String, pinOut: String?, yes: Bool, restore: Restorer.Options
    ) -> ReceiverPeer.Hooks {
        var hooks = ReceiverPeer.Hooks(
            showPIN: { pin in
                console.say("receive: PIN \(pin)  (enter it on the old phone)")
                if let pinOut { try? Data((pin + "\n").utf8).write(to: URL(fileURLWithPath: pinOut), options: .atomic) }
            },
            confirmWipe: { meta in
                if yes { return true }
                // Nothing to replace: the question would only alarm (seed 000 §7.3 asks before replacing data).
                let existing = (try? FileManager.default.contentsOfDirectory(atPath: store.root.path))?.isEmpty == false
                let prompt = existing
                    ? "Replace the data in \(store.root.path) with backup \(meta.backupId) (\(Console.bytes(meta.fileSize)))? [y/N] "
                    : "Receive backup \(meta.backupId) (\(Console.bytes(meta.fileSize))) into the new store \(store.root.path)? [y/N] "
                let answer = await Console.readLine(prompt: prompt)
                return answer?.lowercased().hasPrefix("y") == true
            },
            restore: { file, meta in
                do {
                    var restore = restore
                    restore.expectedBackupId = meta.backupId
                    let result = try Restorer.restore(file, password: secret, into: store, options: restore)
                    console.say("receive: restored backup \(result.backupId): \(result.entityCounts.values.reduce(0, +)) entities, \(result.mediaFiles) media files")
                } catch let error as PackageError {
                    console.say("receive: restore refused: \(error)")
                    // The sender's package broke a rule: named like any other violation.
                    if let violation = error.violation { console.report(.violation(violation)) }
                    throw error
                }
            },
            report: console.report,
            checkPassword: { header in
                let check = ReceiverMachine.PasswordCheck(header: header, password: secret, policy: restore.policy)
                if check == .wrongPassword { console.say("receive: the password does not open this backup; nothing will be transferred") }
                return check
            })
        hooks.restoredStream = { result in
            console.say("receive: restored backup \(result.backupId): \(result.entityCounts.values.reduce(0, +)) entities, \(result.mediaFiles) media files")
        }
        return hooks
    }
}
