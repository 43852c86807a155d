import WireCore

/// Text inside XML or HTML markup (the JUnit and HTML reports): the five special characters as
/// entities, and the control characters XML 1.0 cannot carry even escaped (and the ones that
/// steer a reader: `TerminalText.steers`) written as `\\u{..}`.
public enum Markup {
    public static func escape(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            default:
                // XML 1.0 cannot carry other control characters, even escaped; C1 controls and
                // bidirectional overrides would reorder or hide what the page shows.
                if TerminalText.steers(scalar) || (0xFFFE...0xFFFF).contains(scalar.value) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
