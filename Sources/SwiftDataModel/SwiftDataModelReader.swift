import SwiftParser
import SwiftSyntax
import WireCore

/// SwiftData's `@Model` classes, read from Swift source into the model checker's JSON form
/// (Spec records.md 7, "SwiftData's classes"), so a team without a model file is checked like
/// one with an `.xcdatamodeld`. Pure: the caller reads the files.
public enum SwiftDataModelReader {
    public struct SourceFile: Sendable {
        public var name: String
        /// The file's bytes: UTF-8 is checked, not repaired.
        public var bytes: [UInt8]
        public init(name: String, bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
        public init(name: String, text: String) {
            self.init(name: name, bytes: Array(text.utf8))
        }
    }

    /// A file the reader cannot read as Swift: its name, the line and why. A model half read
    /// would be judged as if the unread declarations did not exist.
    public struct SourceError: Error, Sendable, Equatable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var reason: String
        public var description: String { "\(file):\(line): \(reason)" }
        public init(file: String, line: Int, reason: String) {
            self.file = file
            self.line = line
            self.reason = reason
        }
    }

    public struct Result: Sendable {
        /// The model in the JSON form.
        public var model: JSONValue
        /// `file:line` of the declaration each entity, member and constraint came from, by its
        /// pointer into `model`.
        public var locations: [String: String]
        /// What the reader took on trust, one line each.
        public var notes: [String]
        /// Properties whose type is declared in none of the files read, neither a type SwiftData
        /// maps nor an alias of one: `file:line: Entity.member is a T`. It may be a `@Model` class
        /// in a file not passed (a relationship read as bytes), so `check` refuses them unless
        /// told to take them as Codable values (`--allow-unresolved`).
        public var unresolved: [String] = []

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
    /// none (the files are not a SwiftData model). A file out of the reader's bounds
    /// (`SwiftSourceBounds`) or with a syntax error is a `SourceError`, never half a model.
    public static func read(_ files: [SourceFile]) throws(SourceError) -> Result? {
        var classes: [(converter: SourceLocationConverter, declaration: ClassDeclSyntax)] = []
        var types: Set<String> = []
        var aliases: [String: String] = [:]
        for file in files {
            if let problem = SwiftSourceBounds.problem(in: file.bytes) {
                throw SourceError(file: file.name, line: problem.line, reason: problem.reason)
            }
            let tree = file.bytes.withUnsafeBufferPointer { Parser.parse(source: $0, maximumNestingLevel: SwiftSourceBounds.maxNesting) }
            // One converter a file: it indexes the file's lines once (one a class was a scan of
            // the whole file per class).
            let converter = SourceLocationConverter(fileName: file.name, tree: tree)
            if tree.hasError, let (node, reason) = SyntaxErrorFinder.first(in: tree) {
                let location = node.startLocation(converter: converter, afterLeadingTrivia: true)
                throw SourceError(file: file.name, line: location.line, reason: reason)
            }
            let finder = ModelClassFinder(viewMode: .sourceAccurate)
            finder.walk(tree)
            classes += finder.found.map { (converter, $0) }
            types.formUnion(finder.types)
            for (alias, target) in finder.aliases where aliases[alias] == nil { aliases[alias] = target }
        }
        guard !classes.isEmpty else { return nil }
        let scope = TypeScope(models: Set(classes.map { $0.declaration.name.text }), declared: types, aliases: aliases)
        var entities: [Entity] = []
        var declared: Set<String> = []
        var notes: [String] = []
        var unresolved: [String] = []
        for (converter, declaration) in classes where declared.insert(declaration.name.text).inserted {
            entities.append(Entity(declaration, scope: scope, converter: converter, notes: &notes, unresolved: &unresolved))
        }
        Entity.pairInverses(&entities)
        var locations: [String: String] = [:]
        let list: [JSONValue] = entities.enumerated().map { i, entity in entity.json(at: .root / "entities" / i, locations: &locations) }
        var result = Result(model: .object(JSONObject(["entities": .array(list)])), locations: locations, notes: notes)
        result.unresolved = unresolved
        return result
    }
}

/// The classes marked `@Model`, at any nesting; every type the files declare, and their
/// `typealias`es of a named type.
final class ModelClassFinder: SyntaxVisitor {
    var found: [ClassDeclSyntax] = []
    var types: Set<String> = []
    var aliases: [String: String] = [:]

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        if node.attributes.contains(where: { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Model" }) { found.append(node) }
        types.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { declare(node.name) }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { declare(node.name) }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { declare(node.name) }

    private func declare(_ name: TokenSyntax) -> SyntaxVisitorContinueKind {
        types.insert(name.text)
        return .visitChildren
    }

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        if let target = DeclaredType.name(of: node.initializer.value), aliases[node.name.text] == nil { aliases[node.name.text] = target }
        types.insert(node.name.text)
        return .skipChildren
    }
}

/// The first syntax error of a tree, in source order, and what it is; only subtrees that hold an
/// error are entered.
final class SyntaxErrorFinder: SyntaxAnyVisitor {
    var found: (Syntax, String)?

    static func first(in tree: SourceFileSyntax) -> (Syntax, String)? {
        let finder = SyntaxErrorFinder(viewMode: .all)
        finder.walk(tree)
        return finder.found
    }

    override func visitAny(_ node: Syntax) -> SyntaxVisitorContinueKind {
        guard found == nil, node.hasError else { return .skipChildren }
        if let unexpected = node.as(UnexpectedNodesSyntax.self) {
            found = (node, "unexpected code \(Self.excerpt(unexpected.trimmedDescription))")
            return .skipChildren
        }
        if let token = node.as(TokenSyntax.self) {
            if token.presence == .missing {
                let what = token.text.isEmpty ? Self.name(of: node.parent) : "'\(token.text)'"
                found = (node, "expected \(what)")
            } else if let diagnostic = token.tokenDiagnostic, diagnostic.severity == .error {
                found = (node, "\(Self.words(diagnostic.kind)) near \(Self.excerpt(token.description.trimmingWhitespace))")
            }
            return .skipChildren
        }
        if node.is(MissingSyntax.self) || node.is(MissingExprSyntax.self) || node.is(MissingTypeSyntax.self) || node.is(MissingDeclSyntax.self)
            || node.is(MissingPatternSyntax.self) || node.is(MissingStmtSyntax.self)
        {
            found = (node, "expected \(Self.name(of: Syntax(node)))")
            return .skipChildren
        }
        return .visitChildren
    }

    /// What a missing node stands for, from its kind (`MissingExprSyntax`: an expression).
    static func name(of node: Syntax?) -> String {
        guard let node else { return "more code" }
        if node.is(MissingExprSyntax.self) { return "an expression" }
        if node.is(MissingTypeSyntax.self) { return "a type" }
        if node.is(MissingDeclSyntax.self) { return "a declaration" }
        if node.is(MissingPatternSyntax.self) { return "a pattern" }
        if node.is(MissingStmtSyntax.self) { return "a statement" }
        return "more code (\(node.kind))"
    }

    /// A lexer diagnostic's kind in words: `invalidCharacter` is "invalid character".
    static func words(_ kind: TokenDiagnostic.Kind) -> String {
        var out = ""
        for scalar in "\(kind)".unicodeScalars {
            if scalar.properties.isUppercase { out += " " + String(scalar).lowercased() } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// At most 40 scalars of the code, quoted; control characters escaped.
    static func excerpt(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let head = String(String.UnicodeScalarView(scalars.prefix(40)))
        return "'\(TerminalText.escaped(head))\(scalars.count > 40 ? "..." : "")'"
    }
}

extension String {
    /// Without the spaces, tabs and line breaks at either end (scalars, not Characters).
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        let blank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !blank($0) }), let last = scalars.lastIndex(where: { !blank($0) }) else { return "" }
        return String(scalars[first...last])
    }
}
