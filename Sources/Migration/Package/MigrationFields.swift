import Foundation
import WireCore

/// Member rules shared by the manifest and the exports.
enum MigrationFields {
    /// [10^9, 10^11): Unix seconds (seed 000 §5.2 "Unix 时间戳（秒）"), not milliseconds.
    static let secondsRange: Range<Int64> = 1_000_000_000..<100_000_000_000

    static func seconds(_ r: ObjectReader, _ key: String) throws(Violation) -> Int64 {
        let value = try r.integer(key)
        guard secondsRange.contains(value) else {
            let hint = value >= 1_000_000_000_000 && value < 10_000_000_000_000 ? " (looks like milliseconds)" : ""
            throw Violation(rule: MigrationRule.seconds, path: r.pointer(key), expected: "Unix seconds in [10^9, 10^11)", found: "\(value)\(hint)")
        }
        return value
    }

    static func uuid(_ r: ObjectReader, _ key: String) throws(Violation) -> String {
        let value = try r.string(key)
        try checkUUID(value, at: r.pointer(key))
        return value
    }

    static func optionalUUID(_ r: ObjectReader, _ key: String) throws(Violation) -> String? {
        guard let value = try r.optionalString(key) else { return nil }
        try checkUUID(value, at: r.pointer(key))
        return value
    }

    static func checkUUID(_ value: String, at path: JSONPointer) throws(Violation) {
        guard isUUIDText(value) else {
            throw Violation(rule: MigrationRule.uuid, path: path, expected: "a UUID (8-4-4-4-12 hex)", found: JSONSerializer.quoted(value))
        }
    }

    static func nonNegative(_ r: ObjectReader, _ key: String, rule: RuleID) throws(Violation) -> Int64 {
        let value = try r.integer(key)
        guard value >= 0 else {
            throw Violation(rule: rule, path: r.pointer(key), expected: "an integer ≥ 0", found: "\(value)")
        }
        return value
    }

    static func number(_ r: ObjectReader, _ key: String) throws(Violation) -> Double {
        let value = try r.required(key, expecting: "number")
        guard case .number(let n) = value, let d = n.double else {
            throw Violation(rule: CoreRule.type, path: r.pointer(key), expected: "number", found: value.brief)
        }
        return d
    }

    static func nonBlank(_ r: ObjectReader, _ key: String, rule: RuleID) throws(Violation) -> String {
        let value = try r.string(key)
        guard !value.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) else {
            throw Violation(rule: rule, path: r.pointer(key), expected: "a non-blank string", found: JSONSerializer.quoted(value))
        }
        return value
    }

    /// A plain file name: no separators, no `..`, no NUL, at most 255 bytes (MIG-EXP-003).
    /// One segment a package path may have (MIG-PKG-006), in NFC: the file it names is found
    /// in the package byte for byte.
    static func isSafeFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.bytesEqual(".") && !name.bytesEqual("..") && name.utf8.count <= 255
            && !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F } && PackagePath.isNFC(name)
    }

}
