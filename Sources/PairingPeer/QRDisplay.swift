import WebSocketTransport

/// A QR a reference peer shows once: when the relay has answered `registered` for the ids it
/// names (a phone as fast as a script must never find them missing), or once the wait for that
/// is over.
struct QRDisplay {
    let show: (@Sendable (String) async -> Void)?
    /// The wait for the relay's answers is over: the QR is shown without them.
    var waitedEnough = false
    private var shown = false

    init(_ show: (@Sendable (String) async -> Void)?) { self.show = show }

    /// Shows `qr` (nil: nothing on display) if it is time and it has not been shown.
    mutating func offer<Input>(_ qr: String?, registered: Bool, on edge: Edge<Input>) {
        guard let show, let qr, !shown, registered || waitedEnough else { return }
        shown = true
        edge.spawn { await show(qr) }
    }

    /// How long the relay's answers are waited for.
    static let wait: Duration = .seconds(5)
}
