import SwiftSyntax

/// How SwiftData stores a property's Swift type (Spec records.md 7, "SwiftData's classes").
enum SwiftDataType: Equatable {
    /// A Core Data attribute type, in the model form's spelling.
    case attribute(String)
    /// A `@Model` class, one or many.
    case relationship(destination: String, toMany: Bool)

    /// Swift's value types and the Core Data attribute types SwiftData gives them. Any other
    /// value type (a Codable struct or enum, an array of values) is encoded into bytes.
    static let attributes: [String: String] = [
        "String": "String", "Int": "Integer64", "Int64": "Integer64", "UInt": "Integer64", "UInt64": "Integer64",
        "Int32": "Integer32", "UInt32": "Integer32", "Int16": "Integer16", "UInt16": "Integer16", "Int8": "Integer16", "UInt8": "Integer16",
        "Bool": "Boolean", "Double": "Double", "CGFloat": "Double", "Float": "Float", "Decimal": "Decimal", "Date": "Date",
        "Data": "Binary", "UUID": "UUID", "URL": "URI",
    ]

    /// The standard library's and Foundation's names for those types, as the compiler resolves
    /// them before SwiftData sees the type (`TimeInterval` is a `Double`, not a Codable value).
    static let aliases: [String: String] = [
        "TimeInterval": "Double", "CFTimeInterval": "Double", "Float64": "Double", "Float32": "Float", "CFAbsoluteTime": "Double",
        "NSInteger": "Int", "NSUInteger": "UInt",
    ]
}

/// The names the files read give meaning to: their `@Model` classes, every type they declare
/// (a Codable struct or enum is stored as bytes), and their aliases of a named type.
struct TypeScope {
    var models: Set<String>
    var declared: Set<String>
    var aliases: [String: String]

    /// A name through the files' aliases (a few steps, never a loop), then the standard ones.
    func resolved(_ name: String) -> String {
        var name = name
        for _ in 0..<8 {
            guard let next = aliases[name], next != name else { break }
            name = next
        }
        return SwiftDataType.aliases[name] ?? name
    }
}

/// A property's declared type, unwrapped: whether it is optional, and what it holds.
struct DeclaredType {
    var optional: Bool
    var stored: SwiftDataType
    /// The type's name when it is neither a known value type nor a type declared in the files
    /// read: encoded as bytes, which is right for a Codable value and wrong for a model class in
    /// a file not named (the reader says so).
    var unknownName: String?

    init(_ type: TypeSyntax, scope: TypeScope) {
        let models = scope.models
        var type = type
        optional = false
        while let inner = Self.unwrapOptional(type) {
            optional = true
            type = inner
        }
        if let element = Self.collectionElement(type), let name = Self.name(of: element).map(scope.resolved), models.contains(name) {
            stored = .relationship(destination: name, toMany: true)
        } else if let name = Self.name(of: type).map(scope.resolved), models.contains(name) {
            stored = .relationship(destination: name, toMany: false)
        } else if let name = Self.name(of: type).map(scope.resolved), let attribute = SwiftDataType.attributes[name] {
            stored = .attribute(attribute)
        } else {
            stored = .attribute("Binary")
            unknownName = Self.unknown(in: type, scope)
        }
    }

    /// The first name in a stored value's type that nothing read declares: `Category` in
    /// `[String: Category]`; nil when every part is a mapped type, one the files declare, or a
    /// standard container of them.
    static func unknown(in type: TypeSyntax, _ scope: TypeScope) -> String? {
        if let inner = unwrapOptional(type) { return unknown(in: inner, scope) }
        if let array = type.as(ArrayTypeSyntax.self) { return unknown(in: array.element, scope) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) { return unknown(in: dictionary.key, scope) ?? unknown(in: dictionary.value, scope) }
        if let tuple = type.as(TupleTypeSyntax.self) { return tuple.elements.lazy.compactMap { unknown(in: $0.type, scope) }.first }
        let named: (name: String, arguments: GenericArgumentListSyntax?)?
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            named = (identifier.name.text, identifier.genericArgumentClause?.arguments)
        } else if let member = type.as(MemberTypeSyntax.self) {
            named = (member.name.text, member.genericArgumentClause?.arguments)
        } else {
            named = nil
        }
        guard let named else { return type.trimmedDescription }
        if let arguments = named.arguments, ["Array", "Set", "Dictionary", "Optional"].contains(named.name) {
            return arguments.lazy.compactMap { $0.argument.as(TypeSyntax.self).flatMap { unknown(in: $0, scope) } }.first
        }
        let name = scope.resolved(named.name)
        let known = SwiftDataType.attributes[name] != nil || scope.declared.contains(name) || scope.models.contains(name)
        return known ? nil : named.name
    }

    /// `T?`, `T!` and `Optional<T>`.
    static func unwrapOptional(_ type: TypeSyntax) -> TypeSyntax? {
        if let o = type.as(OptionalTypeSyntax.self) { return o.wrappedType }
        if let o = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return o.wrappedType }
        if let named = type.as(IdentifierTypeSyntax.self), named.name.text == "Optional", let arguments = named.genericArgumentClause?.arguments,
            arguments.count == 1, let first = arguments.first
        {
            return first.argument.as(TypeSyntax.self)
        }
        return nil
    }

    /// The element of `[T]`, `Array<T>` or `Set<T>`.
    static func collectionElement(_ type: TypeSyntax) -> TypeSyntax? {
        if let array = type.as(ArrayTypeSyntax.self) { return array.element }
        if let named = type.as(IdentifierTypeSyntax.self), ["Array", "Set"].contains(named.name.text), let arguments = named.genericArgumentClause?.arguments,
            arguments.count == 1, let first = arguments.first
        {
            return first.argument.as(TypeSyntax.self)
        }
        return nil
    }

    /// The last component of a named type (`Foundation.Date` is `Date`).
    static func name(of type: TypeSyntax) -> String? {
        if let named = type.as(IdentifierTypeSyntax.self), named.genericArgumentClause == nil { return named.name.text }
        if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil { return member.name.text }
        return nil
    }
}
