import WireCore

/// What a transfer machine asks its edge to do. The machines never touch a socket or a file,
/// and ask for no timer: each says when it next needs the clock (`nextDeadline`).
public enum TransferAction: Sendable, Hashable {
    case send(ControlMessage)
    /// Sender: read chunk `index` of the package and send it as a `BackupChunk` frame.
    case sendChunk(index: Int)
    /// Receiver: show the PIN to the user.
    case showPIN(String)
    /// Sender: ask the user for the PIN shown on the new phone (`attemptsLeft` after a wrong one).
    case askPIN(attemptsLeft: Int)
    /// Sender: build the package now (snapshot, zip, envelope) and report `backupReady`.
    case prepareBackup
    /// Receiver: ask the user to confirm that local data will be replaced (seed 000 §7.3 step 2).
    case confirmWipe(ControlMessage.BackupMeta)
    /// Receiver: check the password against this envelope header and report `passwordChecked`
    /// (MIG-META-002), before any chunk is asked for.
    case checkPassword(header: [UInt8])
    /// Receiver: create `backup-{id}.enc.tmp` of the announced size (or keep the one being resumed).
    case openFile(ControlMessage.BackupMeta)
    /// Receiver: write a verified chunk at its offset.
    case writeChunk(index: Int, offset: Int64, data: ArraySlice<UInt8>)
    /// Receiver: persist the resume journal (after the chunks it lists are on disk).
    case persistJournal(TransferJournal)
    /// Receiver: compute the SHA-256 of the whole file and report whether it is the announced
    /// `envelopeSHA256` (`fileVerified`).
    case verifyFile(ControlMessage.BackupMeta)
    /// Receiver: the file is complete and verified: ask for the password and restore.
    case restore(ControlMessage.BackupMeta)
    /// Close the connection (`reason` is for people).
    case close(reason: String)
    /// An input was refused: the rule it broke (for logs and vectors).
    case reject(Violation)
}

/// What the receiver must remember across a disconnect and a restart, beside `backup-{id}.enc.tmp`.
public struct TransferJournal: Sendable, Hashable {
    public var meta: ControlMessage.BackupMeta
    public var resumeToken: String
    /// The sender's Handshake `sessionId`: after a restart only that sender gets the token.
    public var senderSessionId: String
    /// Chunks durably written, as sorted half-open ranges.
    public var have: [Range<Int>]

    public init(meta: ControlMessage.BackupMeta, resumeToken: String, senderSessionId: String, have: [Range<Int>]) {
        self.meta = meta
        self.resumeToken = resumeToken
        self.senderSessionId = senderSessionId
        self.have = have
    }
}

/// A set of chunk indexes kept as sorted, disjoint, non-touching ranges.
public struct ChunkSet: Sendable, Hashable {
    public private(set) var ranges: [Range<Int>] = []

    public init(_ ranges: [Range<Int>] = []) {
        for r in ranges { for i in r { insert(i) } }
    }

    public var count: Int { ranges.reduce(0) { $0 + $1.count } }

    /// How many held indexes are below `index`.
    public func count(below index: Int) -> Int {
        ranges.reduce(0) { $0 + max(0, min($1.upperBound, index) - $1.lowerBound) }
    }

    public func contains(_ i: Int) -> Bool { ranges.contains { $0.contains(i) } }

    public mutating func insert(_ i: Int) {
        guard !contains(i) else { return }
        var merged = i..<(i + 1)
        var kept: [Range<Int>] = []
        for r in ranges {
            if r.upperBound == merged.lowerBound || r.lowerBound == merged.upperBound {
                merged = min(r.lowerBound, merged.lowerBound)..<max(r.upperBound, merged.upperBound)
            } else {
                kept.append(r)
            }
        }
        kept.append(merged)
        ranges = kept.sorted { $0.lowerBound < $1.lowerBound }
    }
}
