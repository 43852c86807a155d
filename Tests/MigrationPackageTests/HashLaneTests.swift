import Crypto
import Foundation
import Testing

@testable import MigrationPackage

/// Unpack's hash lanes: each file's pieces are hashed in order on its lane while other files'
/// are hashed on the other, and a buffer is given back only when nothing reads it any more.
@Suite("Hash lanes")
struct HashLaneTests {
    /// Three files' pieces handed over interleaved, each 1 MiB buffer under its own hold: every
    /// digest is its file's SHA-256 and every hold is released exactly once.
    @Test func interleavedFilesHashToTheirOwnDigestsAndEachHoldIsReleasedOnce() throws {
        let lane = HashLane(lanes: 2)
        defer { lane.stop() }
        let files = (0..<3).map { f in (0..<5).map { p in [UInt8](repeating: UInt8(f * 16 + p), count: 1 << 20) } }
        let digests = files.map { _ in lane.digest() }
        let releases = Counter()
        for piece in 0..<5 {
            for (f, file) in files.enumerated() {
                let hold = HashLane.Hold { releases.add() }
                file[piece].withUnsafeBytes { lane.hash($0, into: digests[f], hold: hold) }
                hold.done()
            }
        }
        lane.drain()
        #expect(releases.value == 15)
        for (f, file) in files.enumerated() {
            #expect(digests[f].finalize() == SHA256.hash(data: file.flatMap { $0 }).hexEncoded, "file \(f)")
        }
    }

    /// One buffer, refilled for each piece as soon as its hold is released: a release before
    /// the lane had hashed the piece lets the next piece's bytes into this one's digest.
    @Test func aBufferIsReleasedOnlyOnceItsLaneHashedIt() throws {
        let lane = HashLane(lanes: 2)
        defer { lane.stop() }
        let digest = lane.digest()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 16)
        defer { buffer.deallocate() }
        let free = DispatchSemaphore(value: 1)
        var expected = SHA256()
        for piece in 0..<32 {
            #expect(free.wait(timeout: .now() + 60) == .success, "piece \(piece - 1) was never released")
            buffer.initializeMemory(as: UInt8.self, repeating: UInt8(piece))
            expected.update(bufferPointer: UnsafeRawBufferPointer(buffer))
            let hold = HashLane.Hold { free.signal() }
            lane.hash(UnsafeRawBufferPointer(buffer), into: digest, hold: hold)
            hold.done()
        }
        lane.drain()
        #expect(digest.finalize() == expected.finalize().hexEncoded)
    }

    /// A stopped lane gives back what it never reached, and what is handed over after the stop.
    @Test func stoppingReleasesPiecesUnhashed() throws {
        let lane = HashLane(lanes: 2)
        lane.stop()
        let released = Counter()
        let hold = HashLane.Hold { released.add() }
        [UInt8](repeating: 1, count: 8).withUnsafeBytes { lane.hash($0, into: lane.digest(), hold: hold) }
        hold.done()
        #expect(released.value == 1)
    }

    /// `streamHeld` over a source that lends each piece only while `body` runs waits for the
    /// piece's release before the next: a lane may still be reading it.
    @Test func aLentPieceIsWaitedForBeforeTheNext() throws {
        var source = TwoPieces()
        let released = Counter()
        var seenReleasedBefore: [Int] = []
        try source.streamHeld { _, release in
            seenReleasedBefore.append(released.value)
            DispatchQueue.global().async {
                released.add()
                release()
            }
        }
        #expect(seenReleasedBefore == [0, 1])
    }
}

private struct TwoPieces: ZipBytes {
    var length: Int64 { 2 }
    func read(_ range: Range<Int64>) throws -> [UInt8] { [UInt8](repeating: 0, count: range.count) }
    func stream(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        for byte in [UInt8(1), 2] { try withUnsafeBytes(of: byte) { try body($0) } }
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
