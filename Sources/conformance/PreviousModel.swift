import ArgumentParser
import ConformanceKit
import Foundation
import Records
import WireCore

/// `check --previous`: the model version to compare with, in any form the kit reads (an
/// `.xcdatamodeld` or `.xcdatamodel` folder, a `contents` file, the JSON form), from disk or from
/// git (`REV:PATH`, or `REV` alone for the one file being checked). The answer is what
/// `context.previous` holds: the XML text of a Core Data model, or the JSON form's object.
enum PreviousModel {
    static func load(_ spec: String, checking files: [String]) throws -> JSONValue {
        if FileManager.default.fileExists(atPath: spec) {
            let url = URL(fileURLWithPath: spec)
            if SwiftModelFiles.handles(spec) { return try SwiftModelFiles.load([spec]).model }
            if ModelFileChecker.handles(url) {
                do {
                    return .string(String(decoding: try ModelFileChecker.load(url).0, as: UTF8.self))
                } catch {
                    throw ValidationError("--previous \(error.description)")
                }
            }
            guard let data = FileManager.default.contents(atPath: spec) else { throw ValidationError("--previous: cannot read \(spec)") }
            return try parse([UInt8](data), from: spec)
        }
        // Not a file: a git revision, with the path after the first colon or the file checked.
        let revision: String
        let path: String
        if let colon = spec.firstIndex(of: ":"), colon != spec.startIndex {
            revision = String(spec[..<colon])
            path = String(spec[spec.index(after: colon)...])
        } else if !files.isEmpty, files.allSatisfy(SwiftModelFiles.handles) {
            // A SwiftData model is every file checked, each as it was at the revision (a file
            // added since is new entities, not a missing one).
            var sources: [(name: String, bytes: [UInt8])] = []
            var firstError: Error?
            for file in files {
                do {
                    sources.append((file, try GitTree(revision: spec, path: file).modelContents()))
                } catch {
                    firstError = firstError ?? error
                }
            }
            // Nothing at all: an unknown revision says so in git's words, not as missing files.
            guard !sources.isEmpty else { throw firstError ?? ValidationError("--previous \(spec): none of the Swift files checked exists at that revision") }
            return try SwiftModelFiles.read(sources, origin: "--previous \(spec)").model
        } else {
            guard files.count == 1, files[0] != "-" else {
                throw ValidationError("--previous \(spec) is neither a file nor REV:PATH; a revision alone (e.g. HEAD~1) needs exactly one model file to check")
            }
            revision = spec
            path = files[0]
        }
        guard !path.isEmpty else { throw ValidationError("--previous \(spec): no path after the revision") }
        let git = GitTree(revision: revision, path: path)
        if SwiftModelFiles.handles(path) {
            return try SwiftModelFiles.read([(path, try git.modelContents())], origin: "--previous \(spec)").model
        }
        return try parse(try git.modelContents(), from: "\(revision):\(path)")
    }

    /// The revision `--previous` names, beside the path git runs for; nil for a file on disk.
    static func revision(_ spec: String, checking files: [String]) -> GitTree? {
        guard !FileManager.default.fileExists(atPath: spec) else { return nil }
        if let colon = spec.firstIndex(of: ":"), colon != spec.startIndex {
            return GitTree(revision: String(spec[..<colon]), path: String(spec[spec.index(after: colon)...]))
        }
        return files.first { $0 != "-" }.map { GitTree(revision: spec, path: $0) }
    }

    /// Whether the previous revision reached CloudKit: `firstMirrored` (a revision, for a
    /// history git holds: SwiftData has no versions to name) is it or one of its ancestors.
    /// When not, the note that says why nothing is compared.
    static func unmirrored(_ spec: String, firstMirrored: String, checking files: [String]) throws -> String? {
        guard let previous = revision(spec, checking: files) else {
            throw ValidationError(
                "--first-mirrored-version names a version of the .xcdatamodeld checked, or, with --previous REV, the first revision that reached CloudKit; --previous \(spec) is a file")
        }
        let first = GitTree(revision: firstMirrored, path: previous.path, option: "--first-mirrored-version")
        guard try !previous.descends(from: first) else { return nil }
        return "--previous \(previous.revision) came before the first mirrored revision, \(firstMirrored): no evolution check"
    }

    /// A model's bytes: Xcode's XML (first non-blank byte `<`) as text, else the JSON form.
    static func parse(_ bytes: [UInt8], from origin: String) throws -> JSONValue {
        if let start = Check.contentStart(bytes), bytes[start] == UInt8(ascii: "<") {
            do {
                _ = try CoreDataModelXML.read(bytes)
            } catch {
                throw ValidationError("--previous \(origin): \(error)")
            }
            return .string(String(decoding: bytes, as: UTF8.self))
        }
        do {
            let model = try JSONParser.parse(bytes)
            _ = try MirroredRecordTypes.derive(from: model)
            return model
        } catch {
            throw ValidationError("--previous \(origin) is neither an Xcode model nor a model in the JSON form: \(error)")
        }
    }
}

/// A path at a git revision, read with the `git` command in the path's own folder (so relative
/// paths and the repository are found as the user means them).
/// A model file as it was at a git revision. The revision is the user's text, so git never
/// reads it as an option: it must not begin with `-`, it is resolved to a commit id with
/// `rev-parse --verify --end-of-options` first, and only that id and paths after `./` (or `--`)
/// reach the commands that read (`--previous='--output=/x'` once made `git show` write a file).
struct GitTree {
    var revision: String
    var path: String
    /// The option the revision came from, for messages.
    var option = "--previous"

    /// The model's bytes at the revision: for an `.xcdatamodeld`, its current version's
    /// `contents` as `.xccurrentversion` named it then; for an `.xcdatamodel`, its `contents`.
    func modelContents() throws -> [UInt8] {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let commit = try resolve(in: folder)
        switch url.pathExtension {
        case "xcdatamodeld":
            let names = try run(["ls-tree", "-z", "--name-only", commit, "--", "./" + url.lastPathComponent + "/"], in: folder)
                .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                .map { URL(fileURLWithPath: $0).lastPathComponent }.filter { $0.hasByteSuffix(".xcdatamodel") }
            guard !names.isEmpty else { throw InputError("--previous \(revision):\(path): no .xcdatamodel version at that revision") }
            let plist = try? blob(commit, url.lastPathComponent + "/.xccurrentversion", in: folder)
            var files: [(name: String, contents: [UInt8])] = []
            for name in names { files.append((name, try blob(commit, url.lastPathComponent + "/" + name + "/contents", in: folder))) }
            let bundle = CoreDataModelBundle(files: files, currentName: plist.flatMap { CoreDataModelBundle.currentName(plist: $0) })
            return bundle.versions[bundle.current].contents
        case "xcdatamodel":
            return try blob(commit, url.lastPathComponent + "/contents", in: folder)
        default:
            return try blob(commit, url.lastPathComponent, in: folder)
        }
    }

    /// The revision's commit id (40 or 64 hex digits), or why there is none.
    func resolve(in folder: URL) throws -> String {
        guard !revision.isEmpty, !revision.hasBytePrefix("-") else {
            throw InputError("\(option) \(revision): a revision does not begin with '-' (git would read it as an option)")
        }
        let out = try run(["rev-parse", "--verify", "--end-of-options", revision + "^{commit}"], in: folder)
        let id = String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard [40, 64].contains(id.utf8.count), id.utf8.allSatisfy({ Hex.isDigit($0) }) else {
            throw InputError("\(option) \(revision): git rev-parse answered \(JSONSerializer.quoted(id)), not a commit id")
        }
        return id
    }

    /// Whether `earlier` is this revision or one of its ancestors (`merge-base --is-ancestor`).
    func descends(from earlier: GitTree) throws -> Bool {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let mine = try resolve(in: folder), theirs = try earlier.resolve(in: folder)
        return try run(["merge-base", "--is-ancestor", theirs, mine], in: folder, answers: [0, 1]).status == 0
    }

    /// A file's bytes at the commit: `cat-file blob`, which applies no filter or option.
    private func blob(_ commit: String, _ relative: String, in folder: URL) throws -> [UInt8] {
        try run(["cat-file", "blob", "\(commit):./\(relative)"], in: folder)
    }

    private func run(_ arguments: [String], in folder: URL) throws -> [UInt8] {
        try run(arguments, in: folder, answers: [0]).out
    }

    /// git's output and exit status, an error unless the status is one of `answers`.
    private func run(_ arguments: [String], in folder: URL, answers: Set<Int32>) throws -> (out: [UInt8], status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", folder.path] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            throw InputError("\(option) \(revision):\(path): cannot run git: \(error.localizedDescription)")
        }
        // Read before waiting: a model larger than the pipe's buffer would otherwise block git.
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard answers.contains(process.terminationStatus) else {
            let why = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw InputError("\(option) \(revision):\(path): git \(arguments.first ?? "") failed: \(why.isEmpty ? "exit \(process.terminationStatus)" : why)")
        }
        return ([UInt8](data), process.terminationStatus)
    }
}
