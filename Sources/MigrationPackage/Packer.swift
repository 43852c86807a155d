import Foundation
import Migration
import WireCore

/// The sender's side (seed 000 §7.2): a snapshot of the store becomes `Backup-{id}/` in a zip,
/// sealed in an envelope. Streaming throughout: memory does not grow with the media.
public enum Packer {
    public struct Options: Sendable {
        public var appVersion = "1.0.0"
        public var schemaVersion: Int64 = 1
        public var iterations: UInt32 = EnvelopePolicy.defaultIterations
        public var segmentSize: UInt32 = 1 << 16
        public init() {}
    }

    public struct Result: Sendable {
        public var backupId: String
        public var zipSize: Int64
        public var envelopeSize: Int64
        public var brokenMedia: Int
    }

    /// `random` gives the backup id (16 bytes) and then the envelope's salt and nonce prefix;
    /// `now` is the backup's creation time in Unix seconds. Both fixed make the output reproducible.
    /// `afterReading` is called with each file just after its bytes went into the zip and before
    /// the snapshot check; tests use it to play a concurrent writer.
    public static func pack<R: RandomByteSource>(
        _ store: DeviceStore, to output: URL, password: String, options: Options = Options(), now: Int64, random: inout R,
        afterReading: (URL) -> Void = { _ in }
    ) throws -> Result {
        let plan = try Plan(store, options: options, now: now, random: &random)
        let sealer = try plan.sealer(password: password, options: options, random: &random)
        try FileSystem.writeAtomically(to: output) { out in
            _ = try plan.writer.write(through: sealer, to: { try out.write(contentsOf: $0) }, afterReading: afterReading)
        }
        return Result(backupId: plan.backupId, zipSize: plan.writer.length, envelopeSize: try FileSystem.size(of: output), brokenMedia: plan.broken.count)
    }

    /// A package before its first byte: the store's snapshot checked and laid out as a zip. Both
    /// ways of sending start here, so a streamed package is byte for byte the packed one.
    struct Plan {
        var backupId: String
        var writer: PackageWriter
        var broken: [MediaRecord]

        init<R: RandomByteSource>(_ store: DeviceStore, options: Options, now: Int64, random: inout R) throws {
            guard let idBytes = random.next(16) else { throw PackageError.io("the random source ran out") }
            let backupId = uuidV4Text(random: idBytes)
            let fm = FileManager.default

            // The entities: read once, checked as the receiver will check them.
            var items: [PackageWriter.Item] = []
            var exports: [ExportKind: Export] = [:]
            for kind in ExportKind.allCases {
                let url = store.export(kind)
                guard fm.fileExists(atPath: url.path) else {
                    throw PackageError.invalid(Violation(rule: MigrationRule.files, path: .root / "Data" / kind.fileName, expected: "the store's \(kind.fileName)", found: "absent"))
                }
                let data = try FileReader.contents(of: url)
                do {
                    exports[kind] = try Export.decode(try JSONParser.parse(data, limits: PackageDocument.limits), as: kind)
                } catch {
                    throw PackageError.invalid(error.nested(under: .root / "Data" / kind.fileName))
                }
                items.append(PackageWriter.Item(path: PackagePath.export(kind), source: url))
            }
            guard fm.fileExists(atPath: store.masterKey.path) else {
                throw PackageError.invalid(Violation(rule: MigrationRule.masterKey, path: .root / "Keychain" / "MyStory.MasterKey", expected: "the master key", found: "absent"))
            }
            items.append(PackageWriter.Item(path: PackagePath.masterKey, source: store.masterKey))
            let mediaPaths = try FileSystem.files(under: store.media)
            for path in mediaPaths {
                items.append(PackageWriter.Item(path: PackagePath.mediaPrefix + path, source: store.media.appendingPathComponent(path)))
            }
            let present = Set(mediaPaths)
            let broken = (exports[.media]?.media ?? []).filter { !present.contains($0.folder + "/" + $0.fileName) }

            let folder = PackagePath.folder(backupId: backupId)
            // The manifest needs every file's digest: the files are hashed as they go into the zip,
            // and the manifest is its last entry.
            writer = try PackageWriter(items, manifest: PackagePath.manifest, { inventory in
                Packer.manifest(backupId: backupId, options: options, now: now, exports: exports, inventory: inventory, broken: broken)
            }, folder: folder, modified: now)
            self.backupId = backupId
            self.broken = broken
        }

        /// The envelope's sealer: its salt and nonce prefix are the next bytes of `random`.
        func sealer<R: RandomByteSource>(password: String, options: Options, random: inout R) throws -> EnvelopeSealer {
            try EnvelopeSealer(
                password: password, plaintextLength: UInt64(writer.length), segmentSize: options.segmentSize, iterations: options.iterations,
                cipher: .fastest, random: &random)
        }
    }

    static func manifest(
        backupId: String, options: Options, now: Int64, exports: [ExportKind: Export], inventory: FileInventory, broken: [MediaRecord]
    ) -> [UInt8] {
        func int(_ v: Int64) -> JSONValue { .number(JSONNumber(v)) }
        var stats = JSONObject()
        for kind in ExportKind.allCases {
            if let name = kind.entityName { stats[name] = ["count": int(Int64(exports[kind]?.count ?? 0))] }
        }
        let media = inventory.filter { $0.key.hasBytePrefix(PackagePath.mediaPrefix) }
        let files: [JSONValue] = inventory.keys.sorted().map { path in
            ["path": .string(path), "size": int(inventory[path]?.size ?? 0), "sha256": .string(inventory[path]?.sha256 ?? "")]
        }
        let document: JSONValue = [
            "backupId": .string(backupId), "appVersion": .string(options.appVersion), "schemaVersion": int(options.schemaVersion),
            "createdAt": int(now), "entityStats": .object(stats),
            "mediaStats": ["totalFiles": int(Int64(media.count)), "totalBytes": int(media.values.reduce(0) { $0 + $1.size })],
            "integrity": ["hashAlgorithm": "SHA256", "files": .array(files)],
            "options": ["hasBrokenMedia": .bool(!broken.isEmpty), "brokenMediaCount": int(Int64(broken.count))],
            "brokenMedia": .array(broken.map { ["mediaId": .string($0.id), "fileName": .string($0.fileName), "reason": "FILE_NOT_FOUND"] }),
        ]
        return Array(JSONSerializer.pretty(document).utf8)
    }
}
