import WireCore

/// Why an envelope cannot be opened. Each case has a stable code (for people, logs and the
/// testee protocol) and a rule id; `path` names the header field or segment.
public struct EnvelopeError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case notAnEnvelope = "not-an-envelope"
        case unsupportedVersion = "unsupported-version"
        case headerInvalid = "header-invalid"
        case wrongPassword = "wrong-password"
        case headerTampered = "header-tampered"
        case truncated = "truncated"
        case extended = "extended"
        case reordered = "segments-reordered"
        case segmentCorrupt = "segment-corrupt"

        public var rule: RuleID {
            switch self {
            case .notAnEnvelope: return MigrationRule.envelopeMagic
            case .unsupportedVersion: return MigrationRule.envelopeVersion
            case .headerInvalid: return MigrationRule.envelopeParameters
            case .wrongPassword: return MigrationRule.envelopePassword
            case .headerTampered: return MigrationRule.envelopeHeaderMAC
            case .truncated: return MigrationRule.envelopeTruncated
            case .extended: return MigrationRule.envelopeExtended
            case .reordered: return MigrationRule.envelopeReordered
            case .segmentCorrupt: return MigrationRule.envelopeSegment
            }
        }
    }

    public var code: Code
    /// `/header/<field>` or `/segments/<index>`.
    public var path: JSONPointer
    public var byteOffset: Int?
    public var detail: String

    public init(_ code: Code, _ path: JSONPointer, at byteOffset: Int? = nil, _ detail: String) {
        self.code = code
        self.path = path
        self.byteOffset = byteOffset
        self.detail = detail
    }

    public var violation: Violation {
        Violation(rule: code.rule, path: path, byteOffset: byteOffset, expected: "a sound envelope", found: "\(code.rawValue): \(detail)")
    }

    public var description: String {
        let at = path == .root ? (byteOffset.map { "at byte \($0)" } ?? "in the file") : "at \(path)"
        return "\(code.rawValue) \(at): \(detail)"
    }
}
