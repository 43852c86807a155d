import WireCore

/// A seeded, coverage-blind mutator for the replay that runs inside `swift test`: libFuzzer's
/// cheapest moves (bit flips, interesting bytes, erased, repeated and inserted ranges, a splice
/// with another seed), stacked one to four deep. The same seed gives the same inputs, so a finding
/// is reproduced from its seed and index alone.
public struct Mutator: Sendable {
    private var random: SplitMix64
    private let interesting: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x3A, 0x2C, 0x0A, 0x2F, 0x2E]

    public init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// A mutation of `input`; `other` is the splice partner (another seed of the same target).
    public mutating func mutate(_ input: [UInt8], splicingWith other: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0...Int(random.next() % 4) { step(&bytes, other) }
        return bytes
    }

    private mutating func index(_ count: Int) -> Int {
        count == 0 ? 0 : Int(random.next() % UInt64(count))
    }

    private mutating func step(_ bytes: inout [UInt8], _ other: [UInt8]) {
        switch random.next() % 7 {
        case 0 where !bytes.isEmpty:
            bytes[index(bytes.count)] ^= 1 << UInt8(random.next() % 8)
        case 1 where !bytes.isEmpty:
            bytes[index(bytes.count)] = interesting[index(interesting.count)]
        case 2 where !bytes.isEmpty:
            let start = index(bytes.count)
            bytes.removeSubrange(start..<min(bytes.count, start + 1 + index(16)))
        case 3 where !bytes.isEmpty:
            let start = index(bytes.count)
            let piece = bytes[start..<min(bytes.count, start + 1 + index(64))]
            bytes.insert(contentsOf: Array(piece), at: index(bytes.count + 1))
        case 4:
            let fresh = (0...index(8)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            bytes.insert(contentsOf: fresh, at: index(bytes.count + 1))
        case 5 where !bytes.isEmpty:
            bytes.removeSubrange(index(bytes.count)...)
        case 6 where !other.isEmpty:
            let cut = index(bytes.count + 1)
            bytes = Array(bytes[..<cut]) + other[index(other.count)...]
        default:
            bytes.append(interesting[index(interesting.count)])
        }
    }
}
