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
