import Foundation

/// Prefix and suffix tests on a string's UTF-8 bytes. `String.hasPrefix` compares Characters
/// (grapheme clusters) under canonical equivalence: `"media/\u{301}x".hasPrefix("media/")` is
/// false, because `/` and the combining mark form one Character, while the file system, a zip
/// reader and every other language see the bytes `media/` first. Paths, names and protocol
/// tokens are compared with these.
extension StringProtocol {
    @inlinable public func hasBytePrefix(_ prefix: some StringProtocol) -> Bool {
        let (a, b) = (utf8, prefix.utf8)
        guard a.count >= b.count else { return false }
        // memcmp over contiguous text, as in `bytesEqual`: the generic `starts(with:)` walk was
        // a percent of validating a record (every field's type is tested for `ENCRYPTED_`).
        let compared = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in y.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, y.count) == 0 }
        }
        if let compared, let equal = compared { return equal }
        return a.starts(with: b)
    }

    @inlinable public func hasByteSuffix(_ suffix: some StringProtocol) -> Bool {
        utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    /// Equal byte for byte (`==` on String treats canonically equivalent strings as equal).
    /// Contiguous text (every native String) is compared with memcmp: the byte-by-byte walk of
    /// two UTF-8 views was a tenth of validating a record (member lookups by name).
    @inlinable public func bytesEqual(_ other: some StringProtocol) -> Bool {
        let (a, b) = (utf8, other.utf8)
        guard a.count == b.count else { return false }
        let compared = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
        if let compared, let equal = compared { return equal }
        return a.elementsEqual(b)
    }

    /// The text after `prefix`'s bytes, or nil when it does not begin with them.
    @inlinable public func droppingBytePrefix(_ prefix: some StringProtocol) -> String? {
        guard hasBytePrefix(prefix) else { return nil }
        return String(decoding: utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }
}

/// A string as a key compared byte for byte: `Set<String>` and `[String: V]` treat canonically
/// equivalent strings (`é` and `e` + U+0301, `K` and U+212A KELVIN SIGN) as one key, while JSON
/// (RFC 8259 8.3), file systems that do not normalize and every other language tell them apart.
public struct ByteString: Hashable, Sendable, CustomStringConvertible {
    public var value: String

    public init(_ value: String) {
        self.value = value
    }

    public static func == (a: ByteString, b: ByteString) -> Bool { a.value.bytesEqual(b.value) }

    /// String's own hash: byte-equal strings are canonically equal, so they hash alike.
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

    public var description: String { value }
}
