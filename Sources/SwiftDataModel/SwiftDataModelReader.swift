import SwiftParser
import SwiftSyntax
import WireCore

/// SwiftData's `@Model` classes, read from Swift source into the model checker's JSON form
/// (Spec records.md 7, "SwiftData's classes"), so a team without a model file is checked like
/// one with an `.xcdatamodeld`. Pure: the caller reads the files.
public enum SwiftDataModelReader {
    public struct SourceFile: Sendable {
        public var name: String
        public var text: String
        public init(name: String, text: String) {
            self.name = name
            self.text = text
        }
    }

    public struct Result: Sendable {
        /// The model in the JSON form.
        public var model: JSONValue
        /// `file:line` of the declaration each entity, member and constraint came from, by its
        /// pointer into `model`.
        public var locations: [String: String]
        /// What the reader took on trust (a type it could not place), one line each.
        public var notes: [String]

        /// Where the declaration a finding points into was written: the longest pointer prefix
        /// of `path` that names a declaration.
        public func location(of path: JSONPointer) -> String? {
            var tokens = path.tokens
            while !tokens.isEmpty {
                if let found = locations[JSONPointer(tokens: tokens).description] { return found }
                tokens.removeLast()
            }
            return nil
        }
    }

    /// The `@Model` classes of `files`, in file order then declaration order; nil when there is
    /// none (the files are not a SwiftData model).
    public static func read(_ files: [SourceFile]) -> Result? {
        let parsed = files.map { ($0, Parser.parse(source: $0.text)) }
        var classes: [(SourceFile, SourceFileSyntax, ClassDeclSyntax)] = []
        for (file, tree) in parsed {
            let finder = ModelClassFinder(viewMode: .sourceAccurate)
            finder.walk(tree)
            classes += finder.found.map { (file, tree, $0) }
        }
        guard !classes.isEmpty else { return nil }
        let models = Set(classes.map { $0.2.name.text })
        var entities: [Entity] = []
        var notes: [String] = []
        for (file, tree, declaration) in classes where !entities.contains(where: { $0.name == declaration.name.text }) {
            let converter = SourceLocationConverter(fileName: file.name, tree: tree)
            entities.append(Entity(declaration, models: models, converter: converter, notes: &notes))
        }
        Entity.pairInverses(&entities)
        var locations: [String: String] = [:]
        let list: [JSONValue] = entities.enumerated().map { i, entity in entity.json(at: .root / "entities" / i, locations: &locations) }
        return Result(model: .object(JSONObject(["entities": .array(list)])), locations: locations, notes: notes)
    }
}

/// The classes marked `@Model`, at any nesting.
final class ModelClassFinder: SyntaxVisitor {
    var found: [ClassDeclSyntax] = []

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        if node.attributes.contains(where: { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Model" }) { found.append(node) }
        return .visitChildren
    }
}
