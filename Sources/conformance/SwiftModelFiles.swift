import ArgumentParser
import ConformanceKit
import Foundation
import Reference
import SwiftDataModel
import WireCore

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

    /// The model the files declare; a file that cannot be read, or files declaring no
    /// `@Model` class, are usage errors.
    static func read(_ sources: [(name: String, bytes: [UInt8])], origin: String) throws -> SwiftDataModelReader.Result {
        for source in sources where source.bytes.count > Families.maxDocumentBytes {
            throw ValidationError("\(source.name): \(source.bytes.count) bytes, more than the \(Families.maxDocumentBytes) a model file may have")
        }
        let files = sources.map { SwiftDataModelReader.SourceFile(name: $0.name, text: String(decoding: $0.bytes, as: UTF8.self)) }
        guard let read = SwiftDataModelReader.read(files) else {
            throw ValidationError("\(origin): no @Model class, so no SwiftData model to check")
        }
        return read
    }

    static func load(_ paths: [String]) throws -> SwiftDataModelReader.Result {
        let sources = try paths.map { path -> (name: String, bytes: [UInt8]) in
            // Refused by its size before a byte is read: a huge file must not cost its size in memory.
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= Families.maxDocumentBytes else {
                throw ValidationError("\(path): \(size) bytes, more than the \(Families.maxDocumentBytes) a model file may have")
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
            return (path, [UInt8](data))
        }
        return try read(sources, origin: name(paths))
    }

    /// The files' model checked by the model rules (and evolution against `previous`), notes on
    /// standard error.
    static func check(_ paths: [String], previous: JSONValue?) throws -> DocumentChecker.Result {
        let read = try load(paths)
        for note in read.notes { FileHandle.standardError.write(Data("conformance check: note: \(note)\n".utf8)) }
        var context = JSONObject()
        if let previous { context["previous"] = previous }
        var result = DocumentChecker.check(Array(JSONSerializer.compact(read.model).utf8), name: name(paths), kind: "model", context: .object(context))
        result.violations = result.violations.map { v in
            var located = v
            located.location = read.location(of: v.path)
            return located
        }
        return result
    }
}
