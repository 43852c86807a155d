import WireCore

extension ReceiverMachine.PasswordCheck {
    /// MIG-META-002 at the edge: `BackupMeta.envelopeHeader` judged as opening the envelope would
    /// judge it (parameters, then the key check and the MAC when there is a password), a header
    /// that breaks an envelope rule reported at `/payload/envelopeHeader`. Without the password
    /// only the parameters can be judged (MIG-ENV-003): a header no receiver may accept is the
    /// sender's break all the same. One judgement for the receiver, the runner and the watch.
    public init(header: [UInt8], password: String?, policy: EnvelopePolicy) {
        do throws(EnvelopeError) {
            if let password {
                _ = try EnvelopeOpener(header: header, password: password, policy: policy)
                self = .opens
            } else {
                _ = try EnvelopeHeader.parse(header, policy: policy)
                self = .notChecked
            }
        } catch {
            if error.code == .wrongPassword {
                self = .wrongPassword
                return
            }
            var violation = error.violation
            violation.path = .root / "payload" / "envelopeHeader"
            self = .invalidHeader(violation)
        }
    }
}
