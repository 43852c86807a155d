import Foundation

/// POSIX shell quoting for the commands a report prints (a replay line must run as printed).
public enum ShellWord {
    /// `word` as one shell word: bare when it holds only characters no shell treats specially,
    /// else in single quotes, with each single quote written as '\''.
    public static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { s in
            s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || "-_./:=@,+%".unicodeScalars.contains(s))
        }
        if plain { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
