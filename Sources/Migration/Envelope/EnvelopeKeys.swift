import Crypto
import Foundation
import _CryptoExtras

/// The envelope's key schedule: PBKDF2-HMAC-SHA256 turns the password into a master key;
/// HKDF-SHA256 (no salt) separates it into a key check, a header MAC key and the payload key.
public struct EnvelopeKeys: Sendable {
    public let keyCheck: [UInt8]
    let headerKey: SymmetricKey
    let payloadKey: SymmetricKey

    public init(password: String, salt: [UInt8], iterations: UInt32) throws {
        // NFC: the same password typed on iOS and Android gives the same bytes.
        let passwordBytes = Array(password.precomposedStringWithCanonicalMapping.utf8)
        let master = try KDF.Insecure.PBKDF2.deriveKey(
            from: passwordBytes, salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: Int(iterations))
        keyCheck = Self.expand(master, "MSBK v1 key check", 16).withUnsafeBytes { Array($0) }
        headerKey = Self.expand(master, "MSBK v1 header", 32)
        payloadKey = Self.expand(master, "MSBK v1 payload", 32)
    }

    static func expand(_ master: SymmetricKey, _ info: String, _ count: Int) -> SymmetricKey {
        HKDF<SHA256>.expand(pseudoRandomKey: master, info: Array(info.utf8), outputByteCount: count)
    }

    func mac(_ bytes: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: bytes, using: headerKey))
    }

    /// Nonce of segment `index`: prefix (7) ‖ index (u32 BE) ‖ last-segment flag (1).
    static func nonce(prefix: [UInt8], index: UInt32, last: Bool) -> [UInt8] {
        prefix + bigEndian(index) + [last ? 1 : 0]
    }
}

/// A password given in a file (`--password-file`): its first line, without the line ending.
/// Split on the byte LF: as a Swift Character, CR LF is one unit, so a file written on Windows
/// gave the password "secret\r\n"; a leading byte order mark (Notepad's) is not part of it.
public enum PasswordFile {
    public static func password(from bytes: [UInt8]) -> String {
        var line = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        if let end = line.firstIndex(of: 0x0A) { line = line[..<end] }
        if line.last == 0x0D { line = line.dropLast() }
        return String(decoding: line, as: UTF8.self)
    }
}
