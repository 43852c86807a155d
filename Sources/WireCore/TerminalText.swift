/// Text from outside the process (a peer's frame, a testee's reason, a log, a file name, git's
/// words) made safe for a terminal and a text report: every control character and every
/// bidirectional override is written as `\u{HEX}`. A raw ESC from a peer could clear the screen,
/// print a green PASS and hide the real FAIL; a newline could forge a report line; U+202E could
/// show a rule id backwards (Spec security.md, "What reaches a terminal").
public enum TerminalText {
    /// `text` with each scalar that steers a terminal or the reading order escaped.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: steers) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if steers(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// C0 controls (newline and tab included: a field is one line), DEL, C1 controls (U+009B is
    /// a CSI on its own), the line and paragraph separators, and the bidirectional marks,
    /// embeddings, overrides and isolates.
    public static func steers(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

extension CustomStringConvertible {
    /// The text as a terminal or a text report may show it (`TerminalText.escaped`).
    public var terminalSafe: String { TerminalText.escaped(description) }
}
