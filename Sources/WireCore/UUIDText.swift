/// True for the 8-4-4-4-12 hexadecimal form of a UUID, either case (RFC 9562 §4), the form the
/// migration and records families both require. Checked over the UTF-8 bytes in place.
public func isUUIDText(_ text: String) -> Bool {
    guard text.utf8.count == 36 else { return false }
    var text = text
    return text.withUTF8 { bytes in
        for (i, b) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard b == UInt8(ascii: "-") else { return false }
            } else if !Hex.isDigit(b) {
                return false
            }
        }
        return true
    }
}
