import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file front to back with read(2) into one reused buffer. Foundation's `FileHandle` on
/// Linux reads 4 KiB per system call and returns a fresh `Data` each time: a 2 GiB package was
/// half a million system calls and as many allocations (strace of unpack).
final class FileReader {
    fileprivate let descriptor: Int32
    fileprivate let path: String
    private var buffer: [UInt8] = []

    /// Refuses anything but a regular file: opening a FIFO put where a store file belongs would
    /// wait for a writer forever (hence O_NONBLOCK, which regular files ignore).
    /// The descriptor is opened and checked before any stored property is set: a class whose
    /// initializer throws after that runs `deinit`, which would close the number a second time,
    /// after another thread may have been given it.
    init(_ url: URL) throws {
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw PackageError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw PackageError.io("\(path) is not a regular file")
        }
        self.path = path
        self.descriptor = descriptor
    }

    /// The whole file (a document of the store, bounded by the caller's limits when parsed).
    static func contents(of url: URL) throws -> [UInt8] {
        let reader = try FileReader(url)
        var bytes: [UInt8] = []
        while case let chunk = try reader.read(1 << 20), !chunk.isEmpty { bytes += chunk }
        return bytes
    }

    deinit {
        close(descriptor)
    }

    /// The next `count` bytes, fewer only at the end of the file. The slice shares the reused
    /// buffer: a caller that keeps it gets its own copy when the buffer is filled again.
    func read(_ count: Int) throws -> ArraySlice<UInt8> {
        // Uninitialised: zeroing 1 MiB for each of a store's thousands of files was 2 % of pack.
        if buffer.count < count { buffer = [UInt8](unsafeUninitializedCapacity: count) { $1 = count } }
        var filled = 0
        try buffer.withUnsafeMutableBytes { raw in
            while filled < count {
                let n = systemRead(descriptor, raw.baseAddress! + filled, count - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw PackageError.io("cannot read \(path): \(String(cString: strerror(errno)))")
                }
                if n == 0 { break }
                filled += n
            }
        }
        return buffer[0..<filled]
    }
}

extension FileReader {
    /// Exactly `count` bytes at `offset` (pread(2): the sequential position is unchanged);
    /// fewer only at the end of the file.
    func read(at offset: Int64, _ count: Int) throws -> [UInt8] {
        // Uninitialised, and only the bytes read are kept: no zeroing, no second copy.
        try [UInt8](unsafeUninitializedCapacity: count) { raw, filled in
            filled = 0
            while filled < count {
                let n = pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw PackageError.io("cannot read \(path): \(String(cString: strerror(errno)))")
                }
                if n == 0 { break }
                filled += n
            }
        }
    }
}

/// `read(2)` under one name on both C libraries (Swift's `read` would resolve to the method).
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        return Glibc.read(fd, buffer, count)
    #else
        return Darwin.read(fd, buffer, count)
    #endif
}

/// Creates a new file and writes it with write(2), the counterpart of `FileReader`: Foundation's
/// `createFile` writes a temporary file and renames it, then `FileHandle` opens it again (three
/// system calls and a rename more per file; a store has thousands).
final class FileWriter {
    private let descriptor: Int32
    private let path: String

    /// Refuses a path that exists, a symbolic link included.
    init(creating url: URL) throws {
        let path = url.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw PackageError.io("cannot create \(path): \(String(cString: strerror(errno)))") }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Asks the kernel to start writing the file back now (sync_file_range, where there is one):
    /// the restore syncs its file system before the switch, and a file already under way when
    /// the next is written leaves that sync little to wait for.
    func startWriteback() {
        FileSystem.startWriteback(descriptor)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = systemWrite(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw PackageError.io("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }

    func write(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        return Glibc.write(fd, buffer, count)
    #else
        return Darwin.write(fd, buffer, count)
    #endif
}
