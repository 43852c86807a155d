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

/// A property's declared type, unwrapped: whether it is optional, and what it holds.
struct DeclaredType {
    var optional: Bool
    var stored: SwiftDataType
    /// The type's name when it is neither a known value type nor a `@Model` class among the
    /// files read: encoded as bytes, which is right for a Codable value and wrong for a model
    /// class in a file not named (the reader says so).
    var unknownName: String?

    init(_ type: TypeSyntax, models: Set<String>) {
        var type = type
        optional = false
        while let inner = Self.unwrapOptional(type) {
            optional = true
            type = inner
        }
        if let element = Self.collectionElement(type), let name = Self.name(of: element), models.contains(name) {
            stored = .relationship(destination: name, toMany: true)
        } else if let name = Self.name(of: type), models.contains(name) {
            stored = .relationship(destination: name, toMany: false)
        } else if let name = Self.name(of: type).map(Self.resolved), let attribute = SwiftDataType.attributes[name] {
            stored = .attribute(attribute)
        } else {
            stored = .attribute("Binary")
            let element = Self.collectionElement(type) ?? type
            let name = Self.name(of: element).map(Self.resolved) ?? element.trimmedDescription
            if SwiftDataType.attributes[name] == nil { unknownName = name }
        }
    }

    /// A standard alias's type (`TimeInterval` is `Double`); any other name as written.
    static func resolved(_ name: String) -> String { SwiftDataType.aliases[name] ?? name }

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
