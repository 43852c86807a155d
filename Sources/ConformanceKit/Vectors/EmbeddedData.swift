import Crypto
import Foundation
import ZIPFoundation

/// The vectors, catalog and scenarios that `Conformance/dist/make-bundle` appends to a
/// `conformance` executable, so that the binary alone is the whole kit: the executable's bytes,
/// then a zip of those files, then a 24-byte trailer (`CONFORMANCE-ZIP1` and the zip's length,
/// big-endian). On first use in a process they are unpacked into a fresh private folder (mkdtemp,
/// mode 0700) and read from there like a checkout; the folder is removed when the process exits.
/// A shared folder named by the data's digest could be planted by another local user (issue 24.5).
public enum EmbeddedData {
    static let marker = Array("CONFORMANCE-ZIP1".utf8)

    /// The folder holding the embedded files, or nil when this executable carries none.
    public static func repository() -> URL? { extracted }

    /// Whether this executable carries embedded data (without unpacking it).
    public static var isBundled: Bool { embeddedZip() != nil }

    private static let extracted: URL? = {
        guard let zip = embeddedZip() else { return nil }
        var template = Array((FileManager.default.temporaryDirectory.path + "/conformance-data-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return nil }
        let folder = URL(fileURLWithPath: String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        privateFolder.withLock { $0 = folder.path }
        atexit {
            if let path = EmbeddedData.privateFolder.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        let file = folder.appendingPathComponent("data.zip")
        let data = folder.appendingPathComponent("data")
        do {
            try zip.write(to: file)
            try FileManager.default.unzipItem(at: file, to: data)
            try FileManager.default.removeItem(at: file)
        } catch {
            return nil
        }
        return Repository.isRoot(data) ? data : nil
    }()

    /// The private folder to remove at exit.
    private static let privateFolder = LockedPath()

    /// The zip appended to this executable, or nil.
    private static func embeddedZip() -> Data? {
        guard let executable = executableURL(), let handle = try? FileHandle(forReadingFrom: executable) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 24, (try? handle.seek(toOffset: size - 24)) != nil,
            let trailer = try? handle.read(upToCount: 24), trailer.count == 24, Array(trailer.prefix(16)) == marker
        else { return nil }
        let length = trailer.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard length > 0, length <= size - 24, (try? handle.seek(toOffset: size - 24 - length)) != nil,
            let zip = try? handle.read(upToCount: Int(length)), UInt64(zip.count) == length
        else { return nil }
        return zip
    }

    static func executableURL() -> URL? {
        #if os(Linux)
            return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
            return Bundle.main.executableURL
        #endif
    }
}

/// A path behind a lock, readable from the `atexit` handler.
final class LockedPath: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?

    func withLock<T>(_ body: (inout String?) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
