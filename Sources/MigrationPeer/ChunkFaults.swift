/// Faults a peer injects on purpose into the chunk frames it sends (a sender) or handles (a
/// receiver): for tests, and for the conformance runner playing against a peer under test.
/// Frames are counted from 1 over the whole run. The names are those of
/// `Conformance/scenarios/migration.json`.
public struct ChunkFaults: Sendable, Equatable {
    /// Flip the last byte of these frames, leaving the digest: the receiver must ask again.
    public var corruptChunks: Set<Int> = []
    /// Pass these frames on twice.
    public var duplicateChunks: Set<Int> = []
    /// Pass these frames on after the next one (reordered).
    public var holdChunks: Set<Int> = []
    /// Never pass these frames on (lost on the way).
    public var dropChunks: Set<Int> = []
    /// Drop the connection (no closing handshake) after these frames.
    public var disconnectAfterChunks: Set<Int> = []
    /// Announce (in BackupMeta and Complete) an envelopeSHA256 with its first byte flipped, while
    /// sending the true bytes: the receiver must answer `digest-mismatch` (MIG-XFER-004). A sender
    /// only; not counted in frames.
    public var wrongDigest = false
    public init() {}

    /// The last frame a fault needs (nil: none counts frames): a stream of fewer frames never
    /// met it.
    public var lastFrame: Int? {
        [corruptChunks, duplicateChunks, holdChunks, dropChunks, disconnectAfterChunks].compactMap { $0.max() }.max()
    }

    /// The member names a scenario may use, for the loader's check.
    public static let names = ["corruptChunks", "duplicateChunks", "holdChunks", "dropChunks", "disconnectAfterChunks"]
    /// The faults without frames (`wrongDigest`), set by name alone.
    public static let flagNames = ["wrongDigest"]

    /// Sets the fault called `name` (one of `flagNames`); false for another name.
    public mutating func set(_ name: String) -> Bool {
        guard name == "wrongDigest" else { return false }
        wrongDigest = true
        return true
    }

    /// Sets the fault called `name` (one of `names`); false for another name.
    public mutating func set(_ name: String, _ frames: Set<Int>) -> Bool {
        switch name {
        case "corruptChunks": corruptChunks = frames
        case "duplicateChunks": duplicateChunks = frames
        case "holdChunks": holdChunks = frames
        case "dropChunks": dropChunks = frames
        case "disconnectAfterChunks": disconnectAfterChunks = frames
        default: return false
        }
        return true
    }
}

/// Applies `ChunkFaults` to a stream of frames, holding back at most one (`holdChunks`).
struct FaultyLine<Frame> {
    let faults: ChunkFaults
    /// Flips the last byte of a frame.
    let corrupt: (Frame) -> Frame
    private(set) var count = 0
    private var held: Frame?

    init(_ faults: ChunkFaults, corrupt: @escaping (Frame) -> Frame) {
        self.faults = faults
        self.corrupt = corrupt
    }

    /// The frames to pass on in place of `frame`, in order, and whether to drop the connection
    /// after them.
    mutating func pass(_ frame: Frame) -> (frames: [Frame], disconnect: Bool) {
        count += 1
        let k = count
        let frame = faults.corruptChunks.contains(k) ? corrupt(frame) : frame
        var out: [Frame] = []
        if faults.holdChunks.contains(k) {
            held = frame
        } else if !faults.dropChunks.contains(k) {
            out = faults.duplicateChunks.contains(k) ? [frame, frame] : [frame]
            if let earlier = held {
                out.append(earlier)
                held = nil
            }
        }
        return (out, faults.disconnectAfterChunks.contains(k))
    }
}
