import WireCore

/// Reads the `context` objects of vectors and testee requests. A malformed context is the
/// vector's fault, reported as `invalidRequest`, never as a violation of the document.
struct ContextReader {
    let value: JSONValue

    struct Problem: Error {
        let message: String
    }

    func object() throws(Problem) -> JSONObject {
        if case .null = value { return JSONObject() }
        guard case .object(let o) = value else { throw Problem(message: "context must be an object") }
        return o
    }

    /// An integer member; `null` and absent both give nil.
    func integer(_ key: String) throws(Problem) -> Int64? {
        guard let v = try object()[key], v != .null else { return nil }
        guard case .number(let n) = v, let i = n.int64 else { throw Problem(message: "context.\(key) must be an integer") }
        return i
    }

    /// A required time: epoch milliseconds in 0...2^53 − 1.
    func requiredTime(_ key: String) throws(Problem) -> Int64 {
        guard let i = try integer(key) else { throw Problem(message: "context.\(key) is required") }
        guard i >= 0, i <= maxSafeInteger else { throw Problem(message: "context.\(key) must be in 0...2^53-1") }
        return i
    }

    /// A boolean member; `null` and absent both give nil.
    func flag(_ key: String) throws(Problem) -> Bool? {
        switch try object()[key] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        default: throw Problem(message: "context.\(key) must be a boolean or null")
        }
    }

    /// A string member; `null` and absent both give nil.
    func string(_ key: String) throws(Problem) -> String? {
        switch try object()[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw Problem(message: "context.\(key) must be a string or null")
        }
    }
}
