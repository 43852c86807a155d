import WireCore

/// Oracle for the readers of files a user names and someone else wrote: linear work, at most
/// 1 s per KB (and 1 s for any input), the bound Spec security.md states, times `scale`.
public func withinTimeBudget(_ input: [UInt8], scale: Double = 1, _ body: () -> Void) {
    let clock = ContinuousClock()
    let took = clock.measure(body)
    let budget = Duration.seconds(max(1, Double(input.count) / 1024) * scale)
    if took > budget { fatalError("\(input.count) bytes took \(took), more than \(budget)") }
}

/// Oracle: text meant for a terminal holds no control character but line breaks.
public func steersNothing(_ text: String) {
    if let scalar = text.unicodeScalars.first(where: { $0 != "\n" && TerminalText.steers($0) }) {
        fatalError("U+\(String(scalar.value, radix: 16)) reached terminal text")
    }
}
