import Foundation
import Testing

@testable import MigrationPackage

@Suite("File reader")
struct FileReaderTests {
    /// A refused file must close its descriptor exactly once. It once closed it in `init` and
    /// again in `deinit` (which Swift runs when an initializer throws after every stored property
    /// is set); between the two, the digest thread's next open could take the same number, and its
    /// read failed with EBADF (CI, `aFIFOInTheStoreIsRefused`). Here one thread is refused a FIFO
    /// over and over while this one reads a regular file: every read must succeed.
    @Test func aRefusedFileNeverClosesAnotherThreadsDescriptor() throws {
        let scratch = try Scratch()
        let fifo = scratch.url("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let regular = scratch.url("regular")
        let contents = [UInt8](repeating: 7, count: 4096)
        try Data(contents).write(to: regular)

        let refusals = ManagedCounter()
        let refuser = Thread {
            while !refusals.stopped {
                do {
                    _ = try FileReader(fifo)
                } catch PackageError.io(let detail) {
                    if detail == "\(fifo.path) is not a regular file" { refusals.add() }
                } catch {}
            }
        }
        refuser.start()
        defer { refusals.stop() }
        var failures: [String] = []
        for _ in 0..<20_000 where failures.count < 3 {
            do {
                let reader = try FileReader(regular)
                let read = try reader.read(8192)
                if Array(read) != contents { failures.append("read \(read.count) bytes, not the file") }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures == [])
        #expect(refusals.count > 0)
    }
}

/// A counter and a stop flag shared with the refusing thread.
private final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    private var halted = false
    var count: Int { lock.withLock { value } }
    var stopped: Bool { lock.withLock { halted } }
    func add() { lock.withLock { value += 1 } }
    func stop() { lock.withLock { halted = true } }
}
