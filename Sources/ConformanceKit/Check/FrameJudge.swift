import Reference
import WireCore

/// Judges one document a live peer sent against the document a case expects it to send, with
/// the same checker as `conformance check`: the kind's rules first (a violation there names the
/// rule that member breaks, at a pointer into the received frame), then the canonical forms
/// member by member, so members the Spec does not declare are ignored as receivers must
/// ignore them (Spec/core.md, Unknown members).
public enum FrameJudge {
    /// - Parameters:
    ///   - frame: the bytes as received.
    ///   - expected: the document the case expects (its canonical form is compared).
    ///   - rule: the rule a differing declared member breaks (e.g. the relay's routing rule).
    ///   - subject: where the frame came from, e.g. "connection 2 at step 4".
    public static func judge(_ frame: [UInt8], expected: JSONValue, kind: String, context: JSONValue, rule: RuleID, subject: String) -> [Violation] {
        // A frame of a kind no family defines (`pong`): the members the case names, and only those.
        guard Families.defining(kind: kind) != nil else {
            guard let found = try? JSONParser.parse(frame), case .object(let object) = expected else {
                return [Violation(rule: rule, path: .root, expected: JSONSerializer.compact(expected), found: quote(String(decoding: frame, as: UTF8.self)), subject: subject)]
            }
            return object.members.compactMap { member in
                let got = found[member.key]
                guard got != member.value else { return nil }
                return Violation(rule: rule, path: .root / member.key, expected: member.value.brief, found: got?.brief ?? "absent", subject: subject)
            }
        }
        let checked = DocumentChecker.check(frame, name: subject, kind: kind, context: context)
        guard checked.violations.isEmpty, let found = checked.canonical else { return checked.violations }
        let want = DocumentChecker.check(Array(JSONSerializer.compact(expected).utf8), name: subject, kind: kind, context: context).canonical ?? expected
        return JSONDiff.differences(expected: want, found: found).map {
            Violation(rule: rule, path: $0.path, expected: $0.expected, found: $0.found, subject: subject)
        }
    }

    /// A frame quoted for a report: at most `limit` characters.
    public static func quote(_ text: String, limit: Int = 200) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > limit else { return text }
        var out = String(String.UnicodeScalarView(scalars.prefix(limit)))
        out += "… (\(text.utf8.count) bytes)"
        return out
    }
}
