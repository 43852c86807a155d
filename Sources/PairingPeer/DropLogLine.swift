import Pairing

extension FailureReason {
    /// How a dropped input is logged: rule, path, why.
    var logLine: String { "dropped: \(rule) at \(path.description.isEmpty ? "/" : path.description): \(detail)" }
}
