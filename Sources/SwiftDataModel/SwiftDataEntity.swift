import SwiftSyntax
import WireCore

/// One `@Model` class as the model form's entity: its stored properties as attributes and
/// relationships, with what `@Attribute`, `@Relationship`, `#Unique` and `@Transient` say.
struct Entity {
    struct Member {
        var name: String
        var line: String
        var json: JSONObject
        var relationship: (destination: String, inverse: String?)?
    }

    var name: String
    var parent: String?
    var line: String
    var attributes: [Member] = []
    var relationships: [Member] = []
    /// `#Unique` constraints and unique relationships, each with its line.
    var constraints: [(JSONValue, String)] = []

    init(_ declaration: ClassDeclSyntax, scope: TypeScope, converter: SourceLocationConverter, notes: inout [String], unresolved: inout [String]) {
        let models = scope.models
        func line(_ node: some SyntaxProtocol) -> String {
            let location = node.startLocation(converter: converter, afterLeadingTrivia: true)
            return "\(location.file):\(location.line)"
        }
        name = declaration.name.text
        self.line = line(declaration.name)
        // SwiftData subclasses a model (iOS 26) as Core Data's entity inheritance.
        parent = declaration.inheritanceClause?.inheritedTypes.compactMap { DeclaredType.name(of: $0.type) }.first { models.contains($0) }
        for item in declaration.memberBlock.members {
            if let macro = item.decl.as(MacroExpansionDeclSyntax.self), macro.macroName.text == "Unique" {
                for argument in macro.arguments {
                    let paths = argument.expression.as(ArrayExprSyntax.self)?.elements.compactMap { Self.keyPathProperty($0.expression) } ?? []
                    constraints.append((.array(paths.map { .string($0) }), line(macro)))
                }
                continue
            }
            guard let variable = item.decl.as(VariableDeclSyntax.self), Self.isStored(variable) else { continue }
            let written = variable.attributes.compactMap { $0.as(AttributeSyntax.self) }
            let marks = Dictionary(written.map { ($0.attributeName.trimmedDescription, $0) }, uniquingKeysWith: { a, _ in a })
            guard marks["Transient"] == nil else { continue }
            let options = marks["Attribute"].map(Self.options) ?? []
            // An ephemeral property is tracked, not stored.
            guard !options.contains(where: { $0.name == "ephemeral" }) else { continue }
            for binding in variable.bindings {
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, let annotation = binding.typeAnnotation else {
                    // `var x = 0` without a type: SwiftData's macro needs the type written out.
                    if let pattern = binding.pattern.as(IdentifierPatternSyntax.self) {
                        notes.append("\(line(binding)): \(name).\(pattern.identifier.text) has no written type: not read (SwiftData's macro needs one)")
                    }
                    continue
                }
                let declared = DeclaredType(annotation.type, scope: scope)
                var json = JSONObject(["name": .string(identifier)])
                if declared.optional { json["optional"] = true }
                switch declared.stored {
                case .attribute(let type):
                    // A transformed value needs no mapping: its transformer makes the bytes.
                    if let unknown = declared.unknownName, !options.contains(where: { $0.name == "transformable" }) {
                        unresolved.append("\(line(binding)): \(name).\(identifier) is a \(unknown), declared in none of the files read")
                    }
                    // A transformer class the files do not declare may not exist in the app, or
                    // not be the secure one its name suggests (REC-MODEL-006 reads only names).
                    for option in options where option.name == "transformable" {
                        if let type = option.transformerType, !scope.declared.contains(type), !Self.foundationTransformers.contains(type) {
                            unresolved.append("\(line(binding)): \(name).\(identifier) is transformed by \(type), declared in none of the files read")
                        }
                    }
                    json["type"] = .string(type)
                    if let value = binding.initializer?.value, value.trimmedDescription != "nil" { json["defaultValue"] = .string(value.trimmedDescription) }
                    for option in options {
                        switch option.name {
                        case "unique": json["unique"] = true
                        case "allowsCloudEncryption": json["allowsCloudEncryption"] = true
                        case "transformable":
                            json["type"] = "Transformable"
                            json["valueTransformerName"] = option.transformer.map { .string($0) } ?? .null
                        default: break
                        }
                    }
                    if let original = marks["Attribute"].flatMap({ Self.labeled($0, "originalName") }) { json["renamingIdentifier"] = .string(original) }
                    attributes.append(Member(name: identifier, line: line(binding), json: json))
                case .relationship(let destination, let toMany):
                    let relationship = marks["Relationship"]
                    json["destination"] = .string(destination)
                    if toMany { json["toMany"] = true }
                    json["deleteRule"] = .string(relationship.flatMap(Self.deleteRule) ?? "Nullify")
                    if let original = relationship.flatMap({ Self.labeled($0, "originalName") }) { json["renamingIdentifier"] = .string(original) }
                    let inverse = relationship.flatMap(Self.inverse)
                    if relationship.map(Self.options)?.contains(where: { $0.name == "unique" }) == true {
                        constraints.append(([.string(identifier)], line(binding)))
                    }
                    relationships.append(Member(name: identifier, line: line(binding), json: json, relationship: (destination, inverse)))
                }
            }
        }
    }

    /// The model form, recording where each part was declared.
    func json(at path: JSONPointer, locations: inout [String: String]) -> JSONValue {
        locations[path.description] = line
        var o = JSONObject(["name": .string(name)])
        if let parent { o["parent"] = .string(parent) }
        func members(_ list: [Member], _ key: String) -> JSONValue {
            .array(list.enumerated().map { j, member in
                locations[(path / key / j).description] = member.line
                var json = member.json
                if let relationship = member.relationship { json["inverse"] = relationship.inverse.map { .string($0) } ?? .null }
                return .object(json)
            })
        }
        o["attributes"] = members(attributes, "attributes")
        o["relationships"] = members(relationships, "relationships")
        if !constraints.isEmpty {
            for (k, constraint) in constraints.enumerated() { locations[(path / "uniquenessConstraints" / k).description] = constraint.1 }
            o["uniquenessConstraints"] = .array(constraints.map(\.0))
        }
        return .object(o)
    }

    /// SwiftData keeps both ends of a relationship: `inverse:` written on one end names the
    /// other, and that end's inverse is this one. Without `inverse:`, SwiftData infers the pair
    /// when it is safe (Hacking with Swift, "Inferred vs explicit relationships"): one optional
    /// relationship each way between two classes.
    static func pairInverses(_ entities: inout [Entity]) {
        // Indexes, not scans: a file of 2000 classes took 43 s when each relationship looked
        // its destination up among all entities.
        var entityIndex: [String: Int] = [:]
        for (k, entity) in entities.enumerated() where entityIndex[entity.name] == nil { entityIndex[entity.name] = k }
        var memberIndex: [[String: Int]] = []
        var byDestination: [[String: [Int]]] = []
        for entity in entities {
            var names: [String: Int] = [:]
            var destinations: [String: [Int]] = [:]
            for (l, member) in entity.relationships.enumerated() {
                if names[member.name] == nil { names[member.name] = l }
                if let destination = member.relationship?.destination { destinations[destination, default: []].append(l) }
            }
            memberIndex.append(names)
            byDestination.append(destinations)
        }
        for i in entities.indices {
            for j in entities[i].relationships.indices {
                guard let (destination, inverse) = entities[i].relationships[j].relationship, let inverse,
                    let k = entityIndex[destination], let l = memberIndex[k][inverse],
                    entities[k].relationships[l].relationship?.inverse == nil
                else { continue }
                let name = entities[i].relationships[j].name
                entities[k].relationships[l].relationship?.inverse = name
            }
        }
        for i in entities.indices {
            for j in entities[i].relationships.indices {
                let name = entities[i].name
                guard let (destination, inverse) = entities[i].relationships[j].relationship, inverse == nil, destination != name,
                    let k = entityIndex[destination]
                else { continue }
                let there = byDestination[k][name] ?? []
                let back = byDestination[i][destination] ?? []
                guard back.count == 1, there.count == 1, let l = there.first, entities[k].relationships[l].relationship?.inverse == nil,
                    Self.inferable(entities[i].relationships[j].json, entities[k].relationships[l].json)
                else { continue }
                let here = entities[i].relationships[j].name, other = entities[k].relationships[l].name
                entities[i].relationships[j].relationship?.inverse = other
                entities[k].relationships[l].relationship?.inverse = here
            }
        }
    }

    /// Whether SwiftData pairs two ends by itself: a to-one end must be optional (a school's
    /// `[Student]` with a student's `School?` pairs; with `School` it does not, HWS's example),
    /// and a to-many end may be written either way. Two to-many ends name their inverse.
    static func inferable(_ a: JSONObject, _ b: JSONObject) -> Bool {
        let ends = [a, b]
        guard ends.contains(where: { $0["toMany"] != true }) else { return false }
        return ends.allSatisfy { $0["toMany"] == true || $0["optional"] == true }
    }

    /// A stored property: not static, not computed (a getter), observers allowed.
    static func isStored(_ variable: VariableDeclSyntax) -> Bool {
        if variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { return false }
        return variable.bindings.allSatisfy { binding in
            switch binding.accessorBlock?.accessors {
            case nil: return true
            case .getter?: return false
            case .accessors(let list)?: return list.allSatisfy { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }
            }
        }
    }

    struct Option {
        var name: String
        /// `.transformable(by: X.self)` or `(by: "Name")`: the transformer's name.
        var transformer: String?
        /// `X` of `.transformable(by: X.self)`: a class the files (or Foundation) declare.
        var transformerType: String?
    }

    /// Foundation's transformer classes a model may name by type.
    static let foundationTransformers: Set<String> = ["NSSecureUnarchiveFromDataTransformer", "ValueTransformer"]

    /// The unlabeled options of `@Attribute(.unique, .externalStorage, ...)`.
    static func options(_ attribute: AttributeSyntax) -> [Option] {
        guard case .argumentList(let arguments)? = attribute.arguments else { return [] }
        return arguments.filter { $0.label == nil }.compactMap { argument in
            if let member = argument.expression.as(MemberAccessExprSyntax.self) { return Option(name: member.declName.baseName.text) }
            if let call = argument.expression.as(FunctionCallExprSyntax.self), let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
                let by = call.arguments.first { $0.label?.text == "by" }?.expression
                let base = by?.as(MemberAccessExprSyntax.self).flatMap { $0.declName.baseName.text == "self" ? $0.base : nil }
                let transformer = base?.trimmedDescription ?? by?.as(StringLiteralExprSyntax.self).map(\.representedLiteralValue).flatMap { $0 }
                // `Module.Name.self` is declared as `Name`.
                let declaredName = base?.as(DeclReferenceExprSyntax.self)?.baseName.text ?? base?.as(MemberAccessExprSyntax.self)?.declName.baseName.text
                return Option(name: member.declName.baseName.text, transformer: transformer, transformerType: declaredName)
            }
            return nil
        }
    }

    /// A labeled string argument, e.g. `originalName: "title"`.
    static func labeled(_ attribute: AttributeSyntax, _ label: String) -> String? {
        guard case .argumentList(let arguments)? = attribute.arguments else { return nil }
        return arguments.first { $0.label?.text == label }?.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
    }

    static func deleteRule(_ attribute: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments)? = attribute.arguments,
            let rule = arguments.first(where: { $0.label?.text == "deleteRule" })?.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
        else { return nil }
        return ["cascade": "Cascade", "nullify": "Nullify", "deny": "Deny", "noAction": "No Action"][rule] ?? rule
    }

    static func inverse(_ attribute: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments)? = attribute.arguments, let path = arguments.first(where: { $0.label?.text == "inverse" }) else { return nil }
        return keyPathProperty(path.expression)
    }

    /// The last property of `\Type.a.b` or `\.a`.
    static func keyPathProperty(_ expression: ExprSyntax) -> String? {
        expression.as(KeyPathExprSyntax.self)?.components.last?.component.as(KeyPathPropertyComponentSyntax.self)?.declName.baseName.text
    }
}
