import ArgumentParser
import ConformanceKit
import Foundation
import Migration
import Reference
import WebSocketTransport
import WireCore

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate documents against the Spec and name each violation's field and rule.",
        discussion: """
            The kind comes from each document's `type` member, its file name (manifest.json, \
            categories.json, ...), or --kind. Migration packages are checked whole: a .enc \
            (with --password-file), a .zip, or an unpacked Backup-{id}/ folder. Time rules use the \
            current clock unless --now fixes it. The receiver is assumed to have an active DID.
            Exit status: 0 all conform, 1 violations, 2 usage errors or unreadable input.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, junit, html }

    @Argument(help: "Files to check; '-' reads standard input.") var files: [String] = []
    @Option(help: "Judge a recorded watch session (a session log, Conformance/session-log.md) as `conformance watch` judged it live.")
    var session: String?
    @OptionGroup var repo: RepositoryOption
    @Option(help: "Check every document as this kind (e.g. paired-desktop, which has no type member).") var kind: String?
    @Option(help: "The receiver's clock, epoch milliseconds.") var now: Int64?
    @Option(help: "The receiver's active DID.") var activeDid: String = "did:cc:conformance-check"
    @Flag(help: "Check as a receiver without an active DID.") var noActiveDid = false
    @Option(help: "The sender's own peer id (checks that `register` claims only it).") var localPeerId: String?
    @Option(help: "Output format: text or json (junit and html too with --session).") var format: Format = .text
    @Option(help: "Write the report to this file instead of standard output.") var output: String?
    @Option(help: "A file holding the migration password, for .enc packages.") var passwordFile: String?
    @Option(help: "Lowest PBKDF2 iteration count accepted (test vectors only; default 600000).") var minimumIterations: UInt32?
    @Option(help: ArgumentHelp(
        "The previous version of a Core Data model, to check schema evolution: an .xcdatamodeld or .xcdatamodel folder, a contents file, the JSON form, or a git revision (REV:PATH, or REV alone for the one model checked, e.g. HEAD~1).",
        valueName: "model|REV[:PATH]")) var previous: String?
    @Option(help: ArgumentHelp(
        "The first version that reached CloudKit: for an .xcdatamodeld a version (e.g. \"Model 3\"); with --previous REV a revision (e.g. v2.0, for SwiftData or a model edited in place). An earlier previous version binds nothing, so it is not compared.",
        valueName: "version|REV")) var firstMirroredVersion: String?
    @Option(help: ArgumentHelp(
        "The app's Core Data model (.xcdatamodeld, .xcdatamodel, contents, the JSON form, or a SwiftData .swift file): records are checked against the CD_ types it defines (implies --kind mirrored-record).",
        valueName: "model")) var model: String?
    @Flag(help: "SwiftData: take a property whose type none of the files declares as a Codable value (a note), instead of exit 2.")
    var allowUnresolved = false
    @Flag(help: "With --model: the model is the writer's newest, so a CD_ field it lacks is reported instead of taken for a newer app version's (REC-CD-002).")
    var strictFields = false
    @Option(help: "The writer's time zone (an IANA name such as Asia/Shanghai), for day-valued fields.") var timeZone: String?
    @Option(help: ArgumentHelp(
        "Findings accepted for now (one a line, DOCUMENT RULE AT, as --write-baseline writes them): they do not fail the run; a line that matches nothing in a checked document does.",
        valueName: "file")) var baseline: String?
    @Option(help: ArgumentHelp("Write every finding of this run as a baseline to this file (the run's report and exit status are unchanged).", valueName: "file"))
    var writeBaseline: String?

    func validate() throws {
        if session == nil, files.isEmpty { throw ValidationError("name files to check, '-' for standard input, or --session FILE") }
        if session != nil, !files.isEmpty { throw ValidationError("--session judges one session log; name no other files") }
        if session == nil, format == .junit || format == .html { throw ValidationError("--format \(format.rawValue) is for --session; documents are reported as text or json") }
        if let now, now < 0 || now > maxSafeInteger {
            throw ValidationError("--now is epoch milliseconds in 0...2^53-1, not \(now)")
        }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("--time-zone \(timeZone) is not a time zone identifier (e.g. Asia/Shanghai, UTC)")
        }
        if session != nil, baseline != nil || writeBaseline != nil { throw ValidationError("--baseline and --write-baseline are for documents, not --session") }
        if firstMirroredVersion != nil, previous == nil, !files.contains(where: { URL(fileURLWithPath: $0).pathExtension == "xcdatamodeld" }) {
            throw ValidationError("--first-mirrored-version names a version of the .xcdatamodeld checked, or, with --previous REV, the first revision that reached CloudKit")
        }
        if strictFields, model == nil { throw ValidationError("--strict-fields is about the model named by --model; name one") }
        if let kind, Families.defining(kind: kind) == nil {
            let closest = DocumentChecker.closestNames(to: kind, in: Families.allKinds)
            throw ValidationError("unknown kind \(kind); did you mean \(closest.joined(separator: ", "))?")
        }
    }

    func run() throws {
        if let session { return try judgeSession(session) }
        let accepted = try baseline.map(Self.readBaseline)
        let clock = now ?? SystemClock().now()
        let password = try passwordFile.map(readPassword)
        let setup = try setUp(clock: clock, password: password)
        var results: [DocumentChecker.Result] = []
        // SwiftData's classes are one model, however many files declare them.
        let swiftFiles = kind == nil ? files.filter(SwiftModelFiles.handles) : []
        if !swiftFiles.isEmpty { results.append(try SwiftModelFiles.check(swiftFiles, previous: setup.previousModel, allowUnresolved: allowUnresolved)) }
        for file in files where !swiftFiles.contains(file) {
            results.append(try check(file, setup, password: password))
        }
        let unmirrored = setup.unmirrored
        if let unmirrored { results = results.map { var r = $0; r.notes.append(unmirrored); return r } }
        if let writeBaseline { try writeOutput(CheckBaseline.render(results), to: writeBaseline) }
        let outcome = accepted?.apply(to: results)
        if let outcome { results = outcome.results }
        switch format {
        case .text: try writeOutput(CheckReport.text(results, color: output == nil && isTerminal(.standardOutput), baseline: outcome), to: output)
        case .json, .junit, .html: try writeOutput(CheckReport.json(results, baseline: outcome), to: output)
        }
        // A recorded payload judged by today's clock fails its time rules: say so, once.
        if now == nil, results.contains(where: { $0.violations.contains { $0.rule.rawValue.hasPrefix("PAIR-TIME-") } }) {
            FileHandle.standardError.write(Data(
                "conformance check: time rules were judged by this machine's clock (now = \(clock) ms); to check a recorded payload, pass --now with the time it was made\n".utf8))
        }
        if results.contains(where: { !$0.violations.isEmpty }) || outcome?.stale.isEmpty == false { throw ExitCode(Status.violations) }
    }

    /// What every document is checked against: the context the families read, the previous
    /// model, the note for a history not yet mirrored, the envelope policy.
    struct Setup {
        var context: JSONObject
        var previousModel: JSONValue?
        var unmirrored: String?
        var policy: EnvelopePolicy
    }

    func setUp(clock: Int64, password: String?) throws -> Setup {
        var context = JSONObject([
            "now": .number(JSONNumber(clock)), "activeDid": noActiveDid ? .null : .string(activeDid),
        ])
        if let localPeerId { context["localPeerId"] = .string(localPeerId) }
        if let password { context["password"] = .string(password) }
        // A history git holds (SwiftData's, or a model edited in place) names its first mirrored
        // release as a revision; an .xcdatamodeld names a version of its own.
        let bundles = files.contains { URL(fileURLWithPath: $0).pathExtension == "xcdatamodeld" }
        let unmirrored = try previous.flatMap { spec in
            try firstMirroredVersion.flatMap { bundles ? nil : try PreviousModel.unmirrored(spec, firstMirrored: $0, checking: files) }
        }
        let previousModel = try previous.flatMap { unmirrored == nil ? try PreviousModel.load($0, checking: files) : nil }
        if let previousModel { context["previous"] = previousModel }
        if let model, SwiftModelFiles.handles(model) {
            context["model"] = try SwiftModelFiles.load([model]).model
        } else if let model {
            do {
                context["model"] = try ModelFileChecker.contextModel(URL(fileURLWithPath: model))
            } catch {
                throw Self.usage("--model \(error.description.terminalSafe)")
            }
        }
        if let timeZone { context["timeZone"] = .string(timeZone) }
        if strictFields { context["strictFields"] = true }
        var policy = EnvelopePolicy.standard
        if let minimumIterations {
            context["minimumIterations"] = .number(JSONNumber(Int64(minimumIterations)))
            policy = EnvelopePolicy(iterations: minimumIterations...EnvelopePolicy.standard.iterations.upperBound)
        }
        return Setup(context: context, previousModel: previousModel, unmirrored: unmirrored, policy: policy)
    }

    /// One file named on the command line, by what it is: a model, a package, a MyStory backup or a document.
    func check(_ file: String, _ setup: Setup, password: String?) throws -> DocumentChecker.Result {
        let url = URL(fileURLWithPath: file)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory)
        if file != "-" && exists && (kind == "xcdatamodel" || (kind == nil && ModelFileChecker.handles(url))) {
            return try usageOnFailure { () throws(ModelFileChecker.Unreadable) in
                try ModelFileChecker.check(url, previous: setup.previousModel, firstMirrored: firstMirroredVersion)
            }
        }
        if file != "-" && kind == nil && exists && url.pathExtension == "enc" && password == nil {
            // Nothing in an envelope can be read without its password: the user's omission, not a violation.
            throw Self.usage("\(file.terminalSafe) is an encrypted package: pass --password-file FILE")
        }
        if file != "-", kind == nil, isDirectory.boolValue, !Self.looksLikePackage(url) {
            // A folder of sources or models is the user's slip, not a package missing its manifest.
            let swift = ((try? FileManager.default.contentsOfDirectory(atPath: file)) ?? []).contains { $0.hasByteSuffix(".swift") }
            let hint = swift ? "; for SwiftData, pass its .swift files (\(file)/*.swift)" : ""
            throw Self.usage(
                "\(file.terminalSafe) is a folder that is neither a package (no manifest.json, not Backup-{id}) nor a model (.xcdatamodeld, .xcdatamodel)\(hint.terminalSafe)")
        }
        if file != "-" && kind == nil && exists && (isDirectory.boolValue || url.pathExtension == "zip" || url.pathExtension == "enc") {
            return PackageChecker.check(url, password: password, policy: setup.policy)
        }
        if file != "-", !isDirectory.boolValue, let result = Self.myStoryBackup(url) { return result }
        return try checkDocument(file, setup, exists: exists, isDirectory: isDirectory.boolValue)
    }

    /// A file (or standard input) read as one JSON document, refused unread when it is larger than
    /// any kind allows (CORE-JSON-004: checking a 1 GB file must not take a gigabyte of memory).
    func checkDocument(_ file: String, _ setup: Setup, exists: Bool, isDirectory: Bool) throws -> DocumentChecker.Result {
        let url = URL(fileURLWithPath: file)
        let name = file == "-" ? "<stdin>" : file
        let handle: FileHandle
        do {
            handle = file == "-" ? FileHandle.standardInput : try FileHandle(forReadingFrom: url)
        } catch {
            let reason = exists ? (isDirectory ? "it is a folder, not a package or a model" : error.localizedDescription) : "no such file"
            throw Self.usage("cannot read \(file.terminalSafe): \(reason.terminalSafe)")
        }
        let limit = Families.maxDocumentBytes
        let size = file == "-" ? nil : (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.intValue
        let data = size.map { $0 > limit } == true ? Data() : ((try? handle.read(upToCount: limit + 1)) ?? nil) ?? Data()
        if let total = size.flatMap({ $0 > limit ? $0 : nil }) ?? (data.count > limit ? data.count : nil) {
            let found = size == nil ? "more than \(limit) bytes" : "\(total) bytes"
            let v = Violation(
                rule: CoreRule.size, path: .root, expected: "at most \(limit) bytes (the largest document any kind allows)", found: found, subject: name)
            return DocumentChecker.Result(name: name, kind: kind, violations: [v], canonical: nil)
        }
        let bytes = [UInt8](data)
        if file != "-", kind == nil, url.pathExtension != "json", !Self.beginsLikeJSON(bytes) {
            // Neither a model, a package nor JSON: the wrong file named (exit 2), not a
            // document that breaks CORE-JSON-001. A file named .json, a --kind or standard
            // input is a document, and its syntax is judged.
            throw Self.usage("\(file.terminalSafe) is neither a JSON document, a model nor a package (give --kind to check it as a document)")
        }
        if kind == "xcdatamodel" {
            // Not a model is the user's mistake (exit 2), as for a model file named on the command line.
            return try usageOnFailure { () throws(ModelFileChecker.Unreadable) in
                try ModelFileChecker.check(bytes, previous: setup.previousModel, name: name, location: file == "-" ? "standard input" : file)
            }
        }
        let documentKind = kind ?? (previous != nil ? "model" : nil) ?? (model != nil ? "mirrored-record" : nil) ?? Families.kind(forFileName: url.lastPathComponent)
        return DocumentChecker.check(bytes, name: name, kind: documentKind, context: .object(setup.context))
    }

    /// A model that cannot be read is the user's mistake: said on standard error, exit 2.
    func usageOnFailure(_ body: () throws(ModelFileChecker.Unreadable) -> DocumentChecker.Result) throws -> DocumentChecker.Result {
        do {
            return try body()
        } catch {
            throw Self.usage(error.description.terminalSafe)
        }
    }

    /// Says `message` on standard error; the error to throw for exit 2.
    static func usage(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("conformance check: \(message)\n".utf8))
        return ExitCode(Status.usage)
    }

    /// An unpacked package: `Backup-{id}/` or a folder holding its manifest.
    static func looksLikePackage(_ folder: URL) -> Bool {
        folder.lastPathComponent.hasBytePrefix("Backup-") || FileManager.default.fileExists(atPath: folder.appendingPathComponent(PackagePath.manifest).path)
    }

    /// Where a text's content begins: after blanks and a byte order mark's bytes.
    static func contentStart(_ bytes: [UInt8]) -> Int? {
        bytes.firstIndex { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
    }

    /// What follows blanks (and a byte order mark) can begin a JSON value: `{`, `[`, `"`, a
    /// number, or a whole `true`, `false` or `null` (YAML's `type: x` begins with a `t`).
    static func beginsLikeJSON(_ bytes: [UInt8]) -> Bool {
        guard let start = contentStart(bytes) else { return true }
        if Array("{[\"-0123456789".utf8).contains(bytes[start]) { return true }
        let rest = bytes[start...].prefix(5)
        return ["true", "false", "null"].contains { rest.starts(with: $0.utf8) }
    }

    static func readBaseline(_ path: String) throws -> CheckBaseline {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read the baseline \(path)") }
        do {
            return try CheckBaseline.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw ValidationError("the baseline \(path), \(error.description)")
        }
    }
}

/// The first line of a password file, without its line break.
func readPassword(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationError("cannot read the password file \(path)")
    }
    return PasswordFile.password(from: [UInt8](data))
}

extension Check {
    /// `--session FILE`: the same judge as the live watch, over the logged frames, with the
    /// options the log's header says it judged with; the same report.
    func judgeSession(_ path: String) throws {
        let repository = try repo.locate()
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= SessionLog.maxBytes else { throw InputError("\(path): \(size) bytes, more than the \(SessionLog.maxBytes) a session log may have") }
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
        let log: SessionLog.Contents
        do {
            log = try SessionLog.read([UInt8](data))
        } catch {
            throw InputError("\(path): not a session log: \(error.description)")
        }
        guard let result = WatchResult.replay(log) else {
            throw InputError("\(path): a session log of family \(JSONSerializer.quoted(log.header.family)), which watch does not judge")
        }
        try Watch.write(result, format: format, output: output, repository: repository)
    }
}

extension Check {
    /// MyStory's `MYSTBACK1` container (the migration seed's own app): named, told apart from
    /// the Spec's package, and its JSON document checked as a manifest. Only the header and the
    /// document are read: the media after them may be gigabytes.
    static func myStoryBackup(_ url: URL) -> DocumentChecker.Result? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let prefix = try? handle.read(upToCount: MyStoryBackup.prefixLength), let length = MyStoryBackup.documentLength(prefix),
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
        else { return nil }
        let readable = length <= UInt64(PackageDocument.maxBytes) ? Int(length) : 0
        let document = readable > 0 ? ((try? handle.read(upToCount: readable)) ?? nil).map { [UInt8]($0) } ?? [] : []
        let violations = MyStoryBackup.check(document: document, length: length, fileSize: size).map { v -> Violation in
            var copy = v
            copy.subject = url.path
            return copy
        }
        return DocumentChecker.Result(name: url.path, kind: "mystory-backup (MyStory's container, not the Spec's package)", violations: violations, canonical: nil)
    }
}
