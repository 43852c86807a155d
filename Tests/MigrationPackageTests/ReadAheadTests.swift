import Foundation
import Testing

@testable import MigrationPackage

/// Unpack's read-ahead lane: order, failures and the bound on memory must hold whatever the two
/// threads' timing, so every assertion here follows from the protocol, not from a sleep.
@Suite("Read-ahead")
struct ReadAheadTests {
    @Test func batchesArriveInOrderAndTheLastMayBeShort() throws {
        let pieces = ["one", "two", "3"]
        let log = FillLog()
        let ahead = ReadAhead(depth: 2, capacity: 8) { batch in
            let index = log.enter(batch)
            Data(pieces[index].utf8).withUnsafeBytes { batch.append($0) }
            return index < pieces.count - 1
        }
        defer { ahead.close() }
        var seen: [String] = []
        while let batch = try ahead.next() {
            seen.append(String(decoding: batch.bytes, as: UTF8.self))
            ahead.recycle(batch)
        }
        #expect(seen == pieces)
        // A recycled batch is handed to `fill` empty: no bytes of one batch leak into the next.
        #expect(log.sizesOnEntry == [0, 0, 0])
    }

    /// The Spec reports the first failure in file order, so a failure reading segment n must not
    /// overtake the batches of segments before it. The consumer starts only once the filler has
    /// recorded the failure, so a reader that let the failure jump the queue fails.
    @Test func aFailureComesAfterEveryBatchFilledBeforeIt() throws {
        let log = FillLog()
        let ahead = ReadAhead(depth: 3, capacity: 8) { batch in
            let index = log.enter(batch)
            if index == 2 { throw Broken.segment(2) }
            withUnsafeBytes(of: UInt8(index)) { batch.append($0) }
            return true
        }
        defer { ahead.close() }
        #expect(ahead.waitUntilEnded(before: Date(timeIntervalSinceNow: 30)), "the filler never recorded its failure")
        let first = try #require(try ahead.next())
        ahead.recycle(first)
        let second = try #require(try ahead.next())
        #expect([Data(first.bytes), Data(second.bytes)] == [Data([0]), Data([1])])
        #expect(throws: Broken.segment(2)) { try ahead.next() }
        // Once failed, it stays failed and fills nothing more.
        #expect(throws: Broken.segment(2)) { try ahead.next() }
        ahead.close()
        #expect(log.sizesOnEntry.count == 3)
    }

    /// At most `depth` batches exist: with none handed back, the filler stops after `depth` and
    /// `close` still returns (a consumer that threw mid-stream closes while the filler waits).
    @Test func neverMoreThanDepthBatchesAndCloseReturnsWhileTheFillerWaits() throws {
        let log = FillLog()
        let ahead = ReadAhead(depth: 2, capacity: 4) { batch in
            withUnsafeBytes(of: UInt8(log.enter(batch))) { batch.append($0) }
            return true
        }
        let kept = [try ahead.next(), try ahead.next()]
        #expect(kept.map { $0.map { Data($0.bytes) } } == [Data([0]), Data([1])])
        ahead.close()
        // Closed means the thread has exited, so nothing can be filled after this count.
        #expect(log.sizesOnEntry.count == 2)
    }

    /// Closing before consuming anything must not wait for the stream to end.
    @Test func closeBeforeTheFirstBatchReturns() {
        let log = FillLog()
        let ahead = ReadAhead(depth: 3, capacity: 4) { batch in
            withUnsafeBytes(of: UInt8(log.enter(batch) % 256)) { batch.append($0) }
            return true
        }
        ahead.close()
        #expect(log.sizesOnEntry.count <= 3)
    }
}

private enum Broken: Error, Equatable {
    case segment(Int)
}

/// What `fill` saw, written on the read-ahead thread and read on the test's.
private final class FillLog: @unchecked Sendable {
    private let lock = NSLock()
    private var sizes: [Int] = []

    var sizesOnEntry: [Int] { lock.withLock { sizes } }

    /// Records the batch's size on entry; returns the call's index.
    func enter(_ batch: ReadAhead.Batch) -> Int {
        lock.withLock {
            sizes.append(batch.count)
            return sizes.count - 1
        }
    }
}
