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

/// The 8-4-4-4-12 lower-case text of 16 bytes (the wire form of a chunk's backupId).
public func uuidText(_ bytes: [UInt8]) -> String {
    let h = Array(bytes.prefix(16).hexEncoded)
    return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-" + String(h[20..<32])
}

/// A version-4 UUID (RFC 9562 §5.4) made from 16 random bytes: the injected randomness stays
/// the only source, so a vector's scripted bytes give the same id everywhere.
public func uuidV4Text(random bytes: [UInt8]) -> String {
    var b = Array(bytes.prefix(16))
    b += Array(repeating: 0, count: 16 - b.count)
    b[6] = b[6] & 0x0F | 0x40
    b[8] = b[8] & 0x3F | 0x80
    return uuidText(b)
}
