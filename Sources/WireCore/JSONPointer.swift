import Foundation

/// An RFC 6901 JSON Pointer. The empty pointer ("") names the whole document.
public struct JSONPointer: Sendable, Hashable, Comparable, CustomStringConvertible {
    public private(set) var tokens: [String]

    public static let root = JSONPointer(tokens: [])

    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses the RFC 6901 string form; nil when it is not a valid pointer. Read by Unicode
    /// scalars: as Characters, `/` or `~1` followed by a combining mark would be one unit.
    public init?(_ text: String) {
        if text.isEmpty {
            self.tokens = []
            return
        }
        guard text.unicodeScalars.first == "/" else { return nil }
        var result: [String] = []
        for raw in text.unicodeScalars.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = String.UnicodeScalarView()
            var iterator = raw.makeIterator()
            while let c = iterator.next() {
                if c == "~" {
                    switch iterator.next() {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: return nil
                    }
                } else {
                    token.append(c)
                }
            }
            result.append(String(token))
        }
        self.tokens = result
    }

    public func appending(_ key: String) -> JSONPointer {
        var copy = self
        copy.tokens.append(key)
        return copy
    }

    public func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    public static func / (lhs: JSONPointer, rhs: String) -> JSONPointer { lhs.appending(rhs) }
    public static func / (lhs: JSONPointer, rhs: Int) -> JSONPointer { lhs.appending(rhs) }

    /// The pointer with `prefix`'s tokens in front, for documents nested in other documents.
    public func nested(under prefix: JSONPointer) -> JSONPointer {
        JSONPointer(tokens: prefix.tokens + tokens)
    }

    public var description: String {
        var text = String.UnicodeScalarView()
        for token in tokens {
            text.append("/")
            for c in token.unicodeScalars {
                switch c {
                case "~": text.append(contentsOf: "~0".unicodeScalars)
                case "/": text.append(contentsOf: "~1".unicodeScalars)
                default: text.append(c)
                }
            }
        }
        return String(text)
    }

    /// Tokens compare byte for byte (`==` on String would merge canonically equivalent names).
    public static func == (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        lhs.tokens.count == rhs.tokens.count && zip(lhs.tokens, rhs.tokens).allSatisfy { $0.bytesEqual($1) }
    }

    public static func < (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        lhs.description.utf8.lexicographicallyPrecedes(rhs.description.utf8)
    }

    /// The value this pointer names inside `value`, or nil.
    public func resolve(in value: JSONValue) -> JSONValue? {
        var current = value
        for token in tokens {
            switch current {
            case .object(let o):
                guard let next = o[token] else { return nil }
                current = next
            case .array(let a):
                guard let i = Int(token), i >= 0, i < a.count, String(i) == token else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}

extension JSONPointer {
    /// `value` with the node this pointer names replaced by `replacement`; nil when it names nothing.
    public func replacing(in value: JSONValue, with replacement: JSONValue) -> JSONValue? {
        guard let first = tokens.first else { return replacement }
        let rest = JSONPointer(tokens: Array(tokens.dropFirst()))
        switch value {
        case .object(var o):
            guard let child = o[first], let updated = rest.replacing(in: child, with: replacement) else { return nil }
            o[first] = updated
            return .object(o)
        case .array(var a):
            guard let i = Int(first), i >= 0, i < a.count, let updated = rest.replacing(in: a[i], with: replacement) else { return nil }
            a[i] = updated
            return .array(a)
        default:
            return nil
        }
    }
}
