/// Six-digit codes shown to people (the pairing code, the migration PIN): strings of exactly
/// six ASCII digits, drawn uniformly from random bytes.
public enum SixDigitCode {
    public static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        return bytes.count == 6 && bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Largest multiple of 10^6 not above 2^32: words at or above it are discarded, so that
    /// every code is equally likely (no modulo bias).
    public static let rejectionBound: UInt32 = 4_294_000_000

    /// Four bytes at a time, big-endian; nil when the source runs out.
    public static func draw<R: RandomByteSource>(from source: inout R) -> String? {
        while let bytes = source.next(4) {
            let word = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if word < rejectionBound {
                let digits = String(word % 1_000_000)
                return String(repeating: "0", count: 6 - digits.count) + digits
            }
        }
        return nil
    }
}
