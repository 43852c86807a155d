import Foundation
import WireCore

/// The atomic switch from the old store to the restored one (seed 000 §7.3: "原子恢复和可选回滚").
///
/// A directory cannot be replaced in one step portably, so the switch is two renames with a
/// journal written before them. `recover` runs before every operation and after a crash: it
/// finishes a switch whose new store is in place, or undoes one that had not started, so the
/// store is always exactly the old one or exactly the new one.
public enum StoreTransaction {
    /// Called at each named step; tests throw from it to simulate a crash there.
    public typealias Checkpoint = (String) throws -> Void

    struct Journal {
        var phase: String  // "switching" or "switched"
        var keepPrevious: Bool

        var bytes: [UInt8] {
            Array(JSONSerializer.canonical(["phase": .string(phase), "keepPrevious": .bool(keepPrevious)]).utf8)
        }

        static func read(_ url: URL) -> Journal? {
            guard let data = FileManager.default.contents(atPath: url.path), let value = try? JSONParser.parse([UInt8](data)),
                case .string(let phase)? = value["phase"], case .bool(let keep)? = value["keepPrevious"]
            else { return nil }
            return Journal(phase: phase, keepPrevious: keep)
        }
    }

    static func writeJournal(_ journal: Journal, for store: DeviceStore) throws {
        try FileSystem.writeAtomically(to: store.journal) { try $0.write(contentsOf: journal.bytes) }
    }

    /// Replaces `store` with the fully built and verified `store.incoming`. A power cut is a
    /// crash too: the new store is on the disk before the journal may roll it forward, and the
    /// renames are before the old store is deleted.
    static func commit(_ store: DeviceStore, keepPrevious: Bool, checkpoint: Checkpoint) throws {
        try FileSystem.syncFileSystem(containing: store.incoming)
        try checkpoint("new-store-synced")
        try writeJournal(Journal(phase: "switching", keepPrevious: keepPrevious), for: store)
        try checkpoint("journal-written")
        try FileSystem.removeIfPresent(store.previous)
        try FileSystem.move(store.root, to: store.previous)
        try checkpoint("old-store-moved-aside")
        try FileSystem.move(store.incoming, to: store.root)
        try checkpoint("new-store-in-place")
        try FileSystem.syncFileSystem(containing: store.root)
        try checkpoint("switch-synced")
        try finish(store, keepPrevious: keepPrevious, checkpoint: checkpoint)
    }

    static func finish(_ store: DeviceStore, keepPrevious: Bool, checkpoint: Checkpoint) throws {
        try writeJournal(Journal(phase: "switched", keepPrevious: keepPrevious), for: store)
        try checkpoint("switch-recorded")
        if FileManager.default.fileExists(atPath: store.previous.path) {
            if keepPrevious {
                try FileSystem.removeIfPresent(store.backupBeforeMigration)
                try FileSystem.move(store.previous, to: store.backupBeforeMigration)
            } else {
                try FileManager.default.removeItem(at: store.previous)
            }
        }
        try checkpoint("previous-store-handled")
        try FileSystem.removeIfPresent(store.journal)
    }

    /// Brings the store back to a clean state after an interruption at any point.
    public static func recover(_ store: DeviceStore) throws {
        let fm = FileManager.default
        if let journal = Journal.read(store.journal) {
            let storeExists = fm.fileExists(atPath: store.root.path)
            let incomingExists = fm.fileExists(atPath: store.incoming.path)
            if journal.phase == "switching" && storeExists && incomingExists {
                // The old store was never moved: undo.
                try fm.removeItem(at: store.incoming)
                try fm.removeItem(at: store.journal)
            } else {
                if !storeExists && incomingExists {
                    // The old store is aside and the verified new one is complete: roll forward.
                    try FileSystem.move(store.incoming, to: store.root)
                } else if !storeExists && fm.fileExists(atPath: store.previous.path) {
                    // Nothing to roll forward to: put the old store back.
                    try FileSystem.move(store.previous, to: store.root)
                }
                try finish(store, keepPrevious: journal.keepPrevious, checkpoint: { _ in })
            }
        } else if fm.fileExists(atPath: store.journal.path) {
            // A journal that never finished being written: nothing had been moved yet.
            try fm.removeItem(at: store.journal)
        }
        // Leftovers of an unpack that stopped before committing.
        try FileSystem.removeIfPresent(store.incoming)
        try FileSystem.removeIfPresent(store.staging)
        // The decrypted zip that unpack wrote before it became one pass.
        try FileSystem.removeIfPresent(store.sibling("incoming.zip"))
        try FileSystem.removeIfPresent(store.previous)
        try FileSystem.removeIfPresent(store.journal.deletingLastPathComponent().appendingPathComponent(".\(store.journal.lastPathComponent).partial"))
    }
}
