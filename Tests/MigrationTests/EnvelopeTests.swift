import Crypto
import Foundation
import Migration
import Testing
import WireCore

@Suite("Encrypted envelope")
struct EnvelopeTests {
    static let policy = EnvelopePolicy(iterations: 1...10_000_000)
    static let password = "correct horse 电池 staple"

    static func seal(_ plaintext: [UInt8], segmentSize: UInt32 = 4096, seed: UInt8 = 1) throws -> [UInt8] {
        var random = ScriptedBytes(Array(repeating: seed, count: 23))
        return try Envelope.seal(plaintext, password: password, segmentSize: segmentSize, iterations: 1000, random: &random)
    }

    static func code(_ envelope: [UInt8], password: String = password) -> EnvelopeError.Code? {
        do throws(EnvelopeError) {
            _ = try Envelope.open(envelope, password: password, policy: policy)
            return nil
        } catch {
            return error.code
        }
    }

    @Test(arguments: [0, 1, 4095, 4096, 4097, 3 * 4096, 20_000])
    func roundTrip(length: Int) throws {
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let envelope = try Self.seal(plaintext)
        let segments = max(1, (length + 4095) / 4096)
        #expect(envelope.count == EnvelopeHeader.length + segments * EnvelopeHeader.frameOverhead + length)
        #expect(try Envelope.open(envelope, password: Self.password, policy: Self.policy) == plaintext)
    }

    @Test func passwordIsNormalizedToNFC() throws {
        let accented = try { () throws -> [UInt8] in
            var random = ScriptedBytes(Array(repeating: 9, count: 23))
            return try Envelope.seal([7], password: "caf\u{E9}", iterations: 1000, random: &random)
        }()
        #expect(Self.code(accented, password: "cafe\u{301}") == nil, "decomposed é must open what precomposed é sealed")
        #expect(Self.code(accented, password: "cafe") == .wrongPassword)
    }

    @Test func wrongPasswordAndPolicy() throws {
        let envelope = try Self.seal([1, 2, 3])
        #expect(Self.code(envelope, password: "wrong") == .wrongPassword)
        do throws(EnvelopeError) {
            _ = try Envelope.open(envelope, password: Self.password)
            Issue.record("1000 iterations must be refused by the standard policy")
        } catch {
            #expect(error.code == .headerInvalid)
            #expect(error.path.description == "/header/iterations")
        }
    }

    @Test func truncationExtensionAndReordering() throws {
        let envelope = try Self.seal((0..<10_000).map { UInt8($0 & 0xFF) })
        let frame = 4096 + EnvelopeHeader.frameOverhead
        #expect(Self.code(Array(envelope.dropLast())) == .truncated)
        #expect(Self.code(Array(envelope.prefix(EnvelopeHeader.length + frame))) == .truncated)
        #expect(Self.code(envelope + [0]) == .extended)
        var swapped = envelope
        let a = EnvelopeHeader.length
        swapped.replaceSubrange(a..<a + frame, with: envelope[a + frame..<a + 2 * frame])
        swapped.replaceSubrange(a + frame..<a + 2 * frame, with: envelope[a..<a + frame])
        #expect(Self.code(swapped) == .reordered)
        var duplicated = envelope
        duplicated.replaceSubrange(a + frame..<a + 2 * frame, with: envelope[a..<a + frame])
        #expect(Self.code(duplicated) == .reordered)
    }

    /// The code the Spec assigns to a change of one header byte (Spec migration.md, table of header fields).
    static func expectedCode(forHeaderByte offset: Int, in mutated: [UInt8]) -> EnvelopeError.Code {
        switch offset {
        case 0..<8: return .notAnEnvelope
        case 8, 9: return .unsupportedVersion
        case 10..<14:
            let iterations = mutated[10..<14].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return policy.iterations.contains(iterations) ? .wrongPassword : .headerInvalid
        case 14..<30, 49..<65: return .wrongPassword
        case 30..<34:
            let size = mutated[30..<34].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return EnvelopeHeader.segmentSizeRange.contains(size) && size & (size - 1) == 0 ? .headerTampered : .headerInvalid
        case 34..<42:
            let length = mutated[34..<42].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return length <= EnvelopeHeader.maxPlaintextLength ? .headerTampered : .headerInvalid
        default: return .headerTampered
        }
    }

    /// Every single-byte change of a small envelope, at every offset, is rejected with the code
    /// the Spec assigns to that offset.
    @Test func everySingleByteChangeIsRejectedWithItsCode() throws {
        let envelope = try Self.seal((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 13) })
        var rejected = 0
        for offset in 0..<envelope.count {
            for delta: UInt8 in [0x01, 0x80] {
                var mutated = envelope
                mutated[offset] ^= delta
                let expected = offset < EnvelopeHeader.length ? Self.expectedCode(forHeaderByte: offset, in: mutated) : .segmentCorrupt
                let found = Self.code(mutated)
                #expect(found == expected, "byte \(offset) ^ \(delta)")
                if found != nil { rejected += 1 }
            }
        }
        #expect(rejected == envelope.count * 2)
    }
}

/// The Swift sealer, given the golden vectors' salt and nonce prefix, writes the same bytes
/// as the independent Python implementation that made the vectors.
@Suite("Envelope golden vectors")
struct EnvelopeGoldenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Vectors/migration/envelope")

    static let sealed = [
        ("empty-payload", 0, 4096), ("one-byte", 1, 4096), ("one-full-segment", 4096, 4096), ("three-segments", 10_000, 4096),
        ("default-segment-size", 100_000, 65_536),
    ]

    /// Each AES-GCM implementation this build has (`SegmentCipher`) seals every vector alike.
    @Test(arguments: SegmentCipher.available)
    func sealingReproducesTheVectorByteForByte(cipher: SegmentCipher) throws {
        #expect(SegmentCipher.available.count == 2, "Linux builds both implementations in")
        for (name, length, segmentSize) in Self.sealed {
            let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) }
            var random = ScriptedBytes(Array(0..<16) + Array(0xA0..<0xA7))
            let sealed = try Envelope.seal(
                plaintext, password: "correct horse 电池 staple", segmentSize: UInt32(segmentSize), iterations: 1000, cipher: cipher, random: &random)
            let golden = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent("\(name).enc")))
            #expect(sealed == golden, "\(name) through \(cipher)")
        }
    }

    /// Every envelope of the vectors, good or broken, opens to the same plaintext or fails with
    /// the same code through each implementation; so does every single-byte change of a frame.
    @Test func everyEnvelopeOpensAlikeThroughEachCipher() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".enc") }.sorted()
        #expect(names.count >= 10)
        func outcome(_ envelope: [UInt8], _ cipher: SegmentCipher) -> String {
            do throws(EnvelopeError) {
                return "plaintext \(try Envelope.open(envelope, password: "correct horse 电池 staple", policy: EnvelopeTests.policy, cipher: cipher))"
            } catch {
                return "\(error.code) \(error.path)"
            }
        }
        for name in names {
            let envelope = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(name)))
            #expect(outcome(envelope, .libcrypto) == outcome(envelope, .swiftCrypto), "\(name)")
        }
        let three = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent("three-segments.enc")))
        for offset in stride(from: EnvelopeHeader.length, to: three.count, by: 97) {
            var changed = three
            changed[offset] ^= 0x01
            let (a, b) = (outcome(changed, .libcrypto), outcome(changed, .swiftCrypto))
            #expect(a == b && !a.hasPrefix("plaintext"), "byte \(offset): \(a) / \(b)")
        }
    }
}

@Suite("Envelope errors in words")
struct EnvelopeErrorWordingTests {
    /// A whole-file error names the byte where it was found, never an empty path ("truncated at : ...").
    @Test func wholeFileErrorsNameTheByte() {
        let error = EnvelopeError(.truncated, .root, at: 4096, "4096 bytes, the header promises 8213")
        #expect(error.description == "truncated at byte 4096: 4096 bytes, the header promises 8213")
        let field = EnvelopeError(.headerInvalid, .root / "header" / "iterations", at: 10, "too few")
        #expect(field.description == "header-invalid at /header/iterations: too few")
    }
}

@Suite("Password files")
struct PasswordFileTests {
    /// CR LF is one Swift Character, so a split on "\n" kept "secret\r\n" as the password.
    @Test(arguments: [
        ("secret\n", "secret"), ("secret\r\n", "secret"), ("secret", "secret"), ("\u{FEFF}secret\r\nsecond line\n", "secret"),
        ("pass word 电池\r\n", "pass word 电池"), ("", ""),
    ])
    func theFirstLineWithoutItsEnding(file: String, password: String) {
        #expect(PasswordFile.password(from: Array(file.utf8)) == password)
    }
}
