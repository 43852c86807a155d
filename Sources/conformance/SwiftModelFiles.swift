import ArgumentParser
import ConformanceKit
import Dispatch
import Foundation
import Reference
import WireCore

#if SwiftModels
import SwiftDataModel
#endif

/// `check Models/*.swift`: SwiftData's `@Model` classes, read from source by swift-syntax into
/// the model form and checked as one model (relationships cross files), each finding with the
/// file and line of its declaration (Spec records.md 7, "SwiftData's classes").
enum SwiftModelFiles {
    static func handles(_ file: String) -> Bool { file != "-" && URL(fileURLWithPath: file).pathExtension == "swift" }

    /// The name the report and a baseline give the model: the file, or `FOLDER/*.swift`.
    static func name(_ paths: [String]) -> String {
        guard paths.count > 1 else { return paths.first ?? "" }
        let folders = Set(paths.map { URL(fileURLWithPath: $0).deletingLastPathComponent().relativePath })
        return folders.count == 1 ? "\(folders.first!)/*.swift" : "*.swift (\(paths.count) files)"
    }
}

#if !SwiftModels
/// Built without the `SwiftModels` trait (`swift run conformance` leaves swift-syntax out of its
/// first build): a Swift source is exit 2 saying how to get a build that reads it.
extension SwiftModelFiles {
    struct Read { var model: JSONValue }

    static var unavailable: InputError {
        InputError(
            lines: [
                "this build of conformance reads no Swift sources (swift-syntax is left out of its default build)",
                "run it as: swift run --traits SwiftModels conformance check ... (or use the standalone bundle, which reads them)",
            ])
    }

    static func read(_ sources: [(name: String, bytes: [UInt8])], origin: String) throws -> Read { throw unavailable }
    static func load(_ paths: [String]) throws -> Read { throw unavailable }
    static func check(_ paths: [String], previous: JSONValue?, allowUnresolved: Bool) throws -> DocumentChecker.Result { throw unavailable }
}
#else
extension SwiftModelFiles {

    /// The model the files declare; a file that cannot be read, or files declaring no
    /// `@Model` class, are usage errors.
    static func read(_ sources: [(name: String, bytes: [UInt8])], origin: String) throws -> SwiftDataModelReader.Result {
        let files = sources.map { SwiftDataModelReader.SourceFile(name: $0.name, bytes: $0.bytes) }
        let read: SwiftDataModelReader.Result?
        do {
            read = try withinBudget(files)
        } catch let error as SwiftDataModelReader.SourceError {
            // `check` names the file; `--previous REV` says which revision it was read from.
            throw InputError(origin.hasPrefix("--previous") ? "\(origin): \(error.description)" : error.description)
        }
        guard let read else { throw ValidationError("\(origin): no @Model class, so no SwiftData model to check") }
        return read
    }

    /// The reader on a thread of its own (with a stack for the parser's recursion), given 10 s
    /// and 1 s more per 100 KB: the bounds keep the parser from every slow input known, and a
    /// file that still takes longer is exit 2 with its name, never a wait without end.
    static func withinBudget(_ files: [SwiftDataModelReader.SourceFile]) throws -> SwiftDataModelReader.Result? {
        final class Answer: @unchecked Sendable {
            let done = DispatchSemaphore(value: 0)
            var result: Result<SwiftDataModelReader.Result?, SwiftDataModelReader.SourceError>?
        }
        let answer = Answer()
        let thread = Thread {
            answer.result = Result { () throws(SwiftDataModelReader.SourceError) in try SwiftDataModelReader.read(files) }
            answer.done.signal()
        }
        thread.stackSize = 64 << 20
        thread.start()
        let seconds = 10 + files.reduce(0) { $0 + $1.bytes.count } / 100_000
        guard answer.done.wait(timeout: .now() + .seconds(seconds)) == .success, let result = answer.result else {
            throw InputError("\(files.map(\.name).joined(separator: ", ")): not read within \(seconds) s (a construct the reader's bounds do not foresee; please report it)")
        }
        return try result.get()
    }

    static func load(_ paths: [String]) throws -> SwiftDataModelReader.Result {
        let sources = try paths.map { path -> (name: String, bytes: [UInt8]) in
            // Refused by its size before a byte is read: a huge file must not cost its size in memory.
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= SwiftSourceBounds.maxBytes else {
                throw ValidationError("\(path): \(size) bytes, more than the \(SwiftSourceBounds.maxBytes) a Swift source may have")
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
            return (path, [UInt8](data))
        }
        return try read(sources, origin: name(paths))
    }

    /// The files' model checked by the model rules (and evolution against `previous`). A
    /// property of a type none of the files declares is exit 2 naming it (it may be a model
    /// class in a file not passed, read as bytes), or with `allowUnresolved` a note in the report.
    static func check(_ paths: [String], previous: JSONValue?, allowUnresolved: Bool) throws -> DocumentChecker.Result {
        let read = try load(paths)
        if !read.unresolved.isEmpty, !allowUnresolved {
            let listed = read.unresolved.prefix(20).map { "  " + $0 } + (read.unresolved.count > 20 ? ["  and \(read.unresolved.count - 20) more"] : [])
            throw InputError(
                lines: ["types declared in none of the files read (a @Model class in a file not passed would be read as bytes):"] + listed
                    + ["pass the files that declare them, or --allow-unresolved to take them as Codable values"])
        }
        var context = JSONObject()
        if let previous { context["previous"] = previous }
        var result = DocumentChecker.check(Array(JSONSerializer.compact(read.model).utf8), name: name(paths), kind: "model", context: .object(context))
        result.violations = result.violations.map { v in
            var located = v
            located.location = read.location(of: v.path)
            return located
        }
        result.notes = read.notes + read.unresolved.map { "\($0): taken as a Codable value (Binary), --allow-unresolved" }
        return result
    }
}
#endif
