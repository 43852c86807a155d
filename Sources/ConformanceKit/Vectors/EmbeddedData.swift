import Crypto
import Foundation
import ZIPFoundation

/// The vectors, catalog and scenarios that `Conformance/dist/make-bundle` appends to a
/// `conformance` executable, so that the binary alone is the whole kit: the executable's bytes,
/// then a zip of those files, then a 24-byte trailer (`CONFORMANCE-ZIP1` and the zip's length,
/// big-endian). On first use they are unpacked into a folder named by their digest, under the
/// temporary directory, and read from there like a checkout.
public enum EmbeddedData {
    static let marker = Array("CONFORMANCE-ZIP1".utf8)

    /// The folder holding the embedded files, or nil when this executable carries none.
    public static func repository() -> URL? {
        guard let executable = executableURL(), let handle = try? FileHandle(forReadingFrom: executable) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 24, (try? handle.seek(toOffset: size - 24)) != nil,
            let trailer = try? handle.read(upToCount: 24), trailer.count == 24, Array(trailer.prefix(16)) == marker
        else { return nil }
        let length = trailer.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard length > 0, length <= size - 24, (try? handle.seek(toOffset: size - 24 - length)) != nil,
            let zip = try? handle.read(upToCount: Int(length)), UInt64(zip.count) == length
        else { return nil }
        let digest = SHA256.hash(data: zip).prefix(8).map { String(format: "%02x", $0) }.joined()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-data-\(digest)")
        if Repository.isRoot(folder) { return folder }
        // Unpacked beside the final name and renamed, so a concurrent first run never sees half a folder.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-data-\(digest)-\(UUID().uuidString)")
        let file = scratch.appendingPathExtension("zip")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: scratch)
        }
        do {
            try zip.write(to: file)
            try FileManager.default.unzipItem(at: file, to: scratch)
            try? FileManager.default.moveItem(at: scratch, to: folder)
        } catch {
            return nil
        }
        return Repository.isRoot(folder) ? folder : nil
    }

    static func executableURL() -> URL? {
        #if os(Linux)
            return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
            return Bundle.main.executableURL
        #endif
    }
}
