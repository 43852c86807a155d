import Crypto
import Foundation
import WireCore

#if canImport(Glibc)
    import Glibc
    import SystemGlibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file-system operations packing, restoring and transferring need, with the guarantees
/// they rely on.
public enum FileSystem {
    static let manager = FileManager.default

    public static func size(of url: URL) throws -> Int64 {
        try stamp(of: url).size
    }

    /// Size and modification time (to the nanosecond): what a snapshot compares before and after
    /// reading a file. One stat(2): Foundation's attributes cost about twenty system calls a file.
    static func stamp(of url: URL) throws -> FileStamp {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw PackageError.io("cannot stat \(url.path): \(String(cString: strerror(errno)))") }
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        return FileStamp(size: Int64(info.st_size), seconds: Int64(modified.tv_sec), nanoseconds: Int64(modified.tv_nsec))
    }

    struct FileStamp: Equatable {
        var size: Int64
        var seconds: Int64
        var nanoseconds: Int64
    }

    /// Writes through `body` into a temporary sibling, syncs it (unless `sync` is false: then it
    /// survives a process crash but not a power cut), then renames it into place.
    public static func writeAtomically(to url: URL, sync: Bool = true, _ body: (AtomicFileWriter) throws -> Void) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        try? manager.removeItem(at: temporary)
        guard manager.createFile(atPath: temporary.path, contents: nil) else {
            throw PackageError.io("cannot create \(temporary.path)")
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            do {
                try body(AtomicFileWriter(handle, writeBack: sync))
                if sync { try handle.synchronize() }
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
            try replace(url, with: temporary)
        } catch {
            try? manager.removeItem(at: temporary)
            throw error
        }
    }

    /// Writes everything on the file system that holds `url` to the disk (syncfs(2); on other
    /// systems sync(2)): the restore's new store, names and data, before the switch may rely on
    /// it, and the switch's renames before the old store is deleted.
    public static func syncFileSystem(containing url: URL) throws {
        #if os(Linux)
            let descriptor = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw PackageError.io("cannot open \(url.path): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            guard syncfs(descriptor) == 0 else { throw PackageError.io("cannot sync \(url.path)'s file system: \(String(cString: strerror(errno)))") }
        #else
            sync()
        #endif
    }

    /// Asks the kernel to start writing `count` bytes of the file from `offset` back now (0: to
    /// its end), without waiting (sync_file_range, where there is one; a hint: a kernel that
    /// refuses leaves the work to the sync that follows).
    static func startWriteback(_ descriptor: Int32, from offset: Int64 = 0, count: Int64 = 0) {
        #if os(Linux)
            _ = sync_file_range(descriptor, off_t(offset), off_t(count), UInt32(SYSTEM_SYNC_FILE_RANGE_WRITE))
        #endif
    }

    /// rename(2): atomic on one file system, replacing a file at the destination.
    public static func replace(_ destination: URL, with source: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw PackageError.io("rename \(source.path) → \(destination.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Renames a directory into a place that must be free.
    static func move(_ source: URL, to destination: URL) throws {
        guard !manager.fileExists(atPath: destination.path) else {
            throw PackageError.io("\(destination.path) already exists")
        }
        try replace(destination, with: source)
    }

    public static func removeIfPresent(_ url: URL) throws {
        if manager.fileExists(atPath: url.path) { try manager.removeItem(at: url) }
    }

    public static func sha256(of url: URL) throws -> String {
        let reader = try FileReader(url)
        var hasher = SHA256()
        while case let chunk = try reader.read(1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().hexEncoded
    }

    /// Regular files under `root`, as `/`-separated paths relative to it, sorted. Symbolic
    /// links and other special files are reported, never followed.
    static func files(under root: URL) throws -> [String] {
        guard manager.fileExists(atPath: root.path) else { return [] }
        var result: [String] = []
        guard let enumerator = manager.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey, .isDirectoryKey]) else {
            return []
        }
        let base = root.standardizedFileURL.path
        for case let url as URL in enumerator {
            let values = try url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey, .isDirectoryKey])
            if values.isDirectory == true && values.isSymbolicLink != true { continue }
            let path = url.standardizedFileURL.path
            guard let relative = path.droppingBytePrefix(base + "/") else { throw PackageError.io("\(path) is outside \(base)") }
            guard values.isRegularFile == true, values.isSymbolicLink != true else {
                throw PackageError.io("\(relative) is not a regular file")
            }
            result.append(relative)
        }
        return result.sorted()
    }
}
