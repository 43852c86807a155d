import Crypto
import Foundation
#if canImport(SystemLibcrypto)
import SystemLibcrypto
#endif

/// The AES-256-GCM implementation an envelope's segments go through. Both give the same bytes
/// (every envelope vector runs through each); they differ in speed by CPU, either way (bench
/// prints both; the package paths take the faster, measured: `SegmentCipher.fastest`).
/// swift-crypto is the API, the default, and the only one on Apple platforms.
public enum SegmentCipher: String, Sendable, CaseIterable {
    case swiftCrypto = "swift-crypto"
    /// The system's libcrypto through its EVP interface (Linux, `libssl-dev`).
    case libcrypto

    /// The ones this build has.
    public static var available: [SegmentCipher] {
        #if canImport(SystemLibcrypto)
        return [.libcrypto, .swiftCrypto]
        #else
        return [.swiftCrypto]
        #endif
    }

    /// The default where speed does not matter (a document, a test package): swift-crypto.
    public static let preferred = SegmentCipher.swiftCrypto

    /// Appends ciphertext ‖ tag of `plaintext` to `output`. Returns what the caller keeps until
    /// the next segment's exists: a 64 KiB buffer freed at the top of the heap is returned to the
    /// kernel by malloc and the next one page-faults it back (a third of sealing's time in `perf`).
    /// Where libcrypto is not built in, `.libcrypto` goes through swift-crypto: the same bytes.
    func seal(_ plaintext: UnsafeRawBufferPointer, key: SymmetricKey, nonce: [UInt8], aad: [UInt8], appendingTo output: inout [UInt8]) throws -> Data {
        #if canImport(SystemLibcrypto)
        if self == .libcrypto {
            try LibcryptoGCM.seal(plaintext, key: key, nonce: nonce, aad: aad, appendingTo: &output)
            return Data()
        }
        #endif
        // A `Data`: swift-crypto reads other DataProtocols through unspecialised generic code.
        let data = plaintext.isEmpty ? Data() : Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: plaintext.baseAddress!), count: plaintext.count, deallocator: .none)
        let box = try AES.GCM.seal(data, using: key, nonce: try AES.GCM.Nonce(data: nonce), authenticating: aad)
        // Ciphertext and tag straight from the combined form (a 12-byte nonce always has one), as one memcpy.
        let combined = box.combined!
        combined.withUnsafeBytes { output.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[12...])) }
        return combined
    }

    /// The plaintext of ciphertext ‖ tag, or nil when the tag does not verify (nothing of an
    /// unverified plaintext is returned). `scratch` is reused across segments (see `seal`).
    func open(_ sealed: UnsafeRawBufferPointer, key: SymmetricKey, nonce: [UInt8], aad: [UInt8], scratch: inout Data) -> Data? {
        guard sealed.count >= 16 else { return nil }
        #if canImport(SystemLibcrypto)
        if self == .libcrypto { return LibcryptoGCM.open(sealed, key: key, nonce: nonce, aad: aad) }
        #endif
        // Nonce ‖ ciphertext ‖ tag with one memcpy each: swift-crypto's
        // `SealedBox(nonce:ciphertext:tag:)` assembles them through unspecialised generic code.
        scratch.count = 12 + sealed.count
        scratch.withUnsafeMutableBytes { out in
            nonce.withUnsafeBytes { out.copyMemory(from: $0) }
            UnsafeMutableRawBufferPointer(rebasing: out[12...]).copyMemory(from: sealed)
        }
        guard let box = try? AES.GCM.SealedBox(combined: scratch) else { return nil }
        // On Linux a failed open throws underlyingCoreCryptoError, not authenticationFailure: any error is a failure.
        return try? AES.GCM.open(box, using: key, authenticating: aad)
    }
}

#if canImport(SystemLibcrypto)
/// AES-256-GCM through OpenSSL's EVP interface: one context per segment (a context shared by
/// copies of a Sendable sealer would race), the cipher fetched once.
enum LibcryptoGCM {
    struct Failure: Error {}

    /// Fetched once: OpenSSL 3 looks an implicit `EVP_aes_256_gcm()` up in its provider on
    /// every init. An `EVP_CIPHER` is immutable and reference-counted: safe to share.
    nonisolated(unsafe) static let cipher: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)

    static func seal(_ plaintext: UnsafeRawBufferPointer, key: SymmetricKey, nonce: [UInt8], aad: [UInt8], appendingTo output: inout [UInt8]) throws {
        guard let context = EVP_CIPHER_CTX_new() else { throw Failure() }
        defer { EVP_CIPHER_CTX_free(context) }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: plaintext.count + 16))
        let sealed = output.withUnsafeMutableBytes { out -> Bool in
            let ciphertext = out.baseAddress!.advanced(by: start).assumingMemoryBound(to: UInt8.self)
            var written: Int32 = 0
            let ok = key.withUnsafeBytes { k in nonce.withUnsafeBytes { n in
                EVP_EncryptInit_ex2(context, cipher, k.baseAddress?.assumingMemoryBound(to: UInt8.self), n.baseAddress?.assumingMemoryBound(to: UInt8.self), nil) == 1
            } }
            guard ok, aad.withUnsafeBytes({ EVP_EncryptUpdate(context, nil, &written, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32($0.count)) }) == 1,
                EVP_EncryptUpdate(context, ciphertext, &written, plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(plaintext.count)) == 1,
                EVP_EncryptFinal_ex(context, ciphertext.advanced(by: Int(written)), &written) == 1
            else { return false }
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, ciphertext.advanced(by: plaintext.count)) == 1
        }
        guard sealed else {
            output.removeSubrange(start...)
            throw Failure()
        }
    }

    static func open(_ sealed: UnsafeRawBufferPointer, key: SymmetricKey, nonce: [UInt8], aad: [UInt8]) -> Data? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let length = sealed.count - 16
        let input = sealed.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var plaintext = Data(count: length)
        let verified = plaintext.withUnsafeMutableBytes { out -> Bool in
            var written: Int32 = 0
            let output = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let ok = key.withUnsafeBytes { k in nonce.withUnsafeBytes { n in
                EVP_DecryptInit_ex2(context, cipher, k.baseAddress?.assumingMemoryBound(to: UInt8.self), n.baseAddress?.assumingMemoryBound(to: UInt8.self), nil) == 1
            } }
            guard ok, aad.withUnsafeBytes({ EVP_DecryptUpdate(context, nil, &written, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32($0.count)) }) == 1,
                length == 0 || EVP_DecryptUpdate(context, output, &written, input, Int32(length)) == 1,
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, 16, UnsafeMutableRawPointer(mutating: input!.advanced(by: length))) == 1
            else { return false }
            // GCM's final step writes nothing; it checks the tag.
            var none: (UInt64, UInt64) = (0, 0)
            return withUnsafeMutableBytes(of: &none) { EVP_DecryptFinal_ex(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &written) } == 1
        }
        return verified ? plaintext : nil
    }
}
#endif
