import Foundation
import Migration
import WireCore

/// Generates a realistic device store (`reference-peer sample-store`): nested categories,
/// stories with Unicode text, images and videos with thumbnails in `YYYY/MM` folders, settings,
/// relations, a master key, and optionally broken media. The same seed gives the same store.
public enum SampleStore {
    public struct Options: Sendable {
        public var stories = 300
        public var categories = 24
        /// Total bytes of media files to write (streamed, never held in memory).
        public var mediaBytes: Int64 = 8 << 20
        public var brokenMedia = 0
        /// Also write zero-byte media files.
        public var zeroByteFiles = false
        /// Split `mediaBytes` over exactly this many media records (sizes vary ±50%); nil picks
        /// realistic sizes (images 16 KiB–512 KiB, videos 256 KiB–4 MiB) and so the count.
        public var mediaCount: Int?
        public init() {}
    }

    static let words = [
        "旅行", "家人", "美食", "工作", "读书", "Morning", "Été", "café", "🌸 春天", "😀", "Ωmega", "naïve", "日記", "Сон", "שלום",
        "e\u{301}toile", "👨‍👩‍👧 family", "北京", "Zürich", "नमस्ते",
    ]

    public static func generate(at root: URL, seed: UInt64, options: Options = Options()) throws {
        var d = Draws(rng: SplitMix64(seed: seed))
        let store = DeviceStore(root)
        let fm = FileManager.default
        try fm.createDirectory(at: store.data, withIntermediateDirectories: true)
        try fm.createDirectory(at: store.media, withIntermediateDirectories: true)
        try fm.createDirectory(at: store.masterKey.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Each stage draws from `d` in turn: their order is what makes a seed give one store.
        let (categories, categoryJSON) = Self.categories(options, &d)
        let (storyIDs, storyJSON) = Self.stories(options, &d)
        let mediaJSON = try Self.media(options, storyIDs: storyIDs, into: store, &d)
        let settings = Self.settings(&d)
        let relations = Self.relations(storyIDs: storyIDs, categories: categories, &d)
        let documents: [(ExportKind, [JSONValue])] = [
            (.categories, categoryJSON), (.stories, storyJSON), (.media, mediaJSON), (.settings, options.stories == 0 ? [] : settings),
            (.relations, relations),
        ]
        for (kind, elements) in documents {
            try Data(JSONSerializer.pretty(.array(elements)).utf8).write(to: store.export(kind))
        }
        try Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &d.rng) }).write(to: store.masterKey)
    }

    /// The random draws a store is made of, from one seeded generator.
    struct Draws {
        var rng: SplitMix64
        mutating func uuid() -> String { uuidV4Text(random: (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }) }
        mutating func text() -> String { (0..<Int.random(in: 1...4, using: &rng)).map { _ in SampleStore.words.randomElement(using: &rng)! }.joined(separator: " ") }
        mutating func time() -> Int64 { Int64.random(in: 1_600_000_000...1_760_000_000, using: &rng) }
    }

    private static func int(_ v: Int64) -> JSONValue { .number(JSONNumber(v)) }
    private static func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }

    /// Nested categories, at most three levels deep.
    private static func categories(_ options: Options, _ d: inout Draws) -> ([(id: String, level: Int64)], [JSONValue]) {
        var categories: [(id: String, level: Int64)] = []
        var categoryJSON: [JSONValue] = []
        for i in 0..<options.categories {
            let parent = i > 2 && Bool.random(using: &d.rng) ? categories.filter { $0.level < 3 }.randomElement(using: &d.rng) : nil
            let id = d.uuid()
            let level = (parent?.level ?? 0) + 1
            categories.append((id, level))
            categoryJSON.append([
                "id": .string(id), "name": .string(d.text()), "nameEn": optional(Bool.random(using: &d.rng) ? "Category \(i)" : nil),
                "colorHex": .string("#" + [UInt8.random(in: 0...255, using: &d.rng), UInt8.random(in: 0...255, using: &d.rng), UInt8.random(in: 0...255, using: &d.rng)].hexEncoded.uppercased()),
                "level": int(level), "parentId": optional(parent?.id), "iconName": "folder", "iconType": "system", "customIconData": .null,
                "sortOrder": int(Int64(i)), "createdAt": int(d.time()),
            ])
        }
        return (categories, categoryJSON)
    }

    private static func stories(_ options: Options, _ d: inout Draws) -> ([String], [JSONValue]) {
        var storyIDs: [String] = []
        var storyJSON: [JSONValue] = []
        for _ in 0..<options.stories {
            let id = d.uuid()
            let created = d.time()
            storyIDs.append(id)
            storyJSON.append([
                "id": .string(id), "title": optional(Bool.random(using: &d.rng) ? d.text() : nil), "content": .string(d.text() + "\n\n" + d.text()),
                "plainTextContent": .string(d.text()), "createdAt": int(created), "updatedAt": int(created + Int64.random(in: 0...86400, using: &d.rng)),
                "timestamp": int(created), "isDeleted": .bool(false), "syncStatus": 0, "mood": optional(Bool.random(using: &d.rng) ? "😊" : nil),
                "locationName": .null, "locationAddress": .null, "locationCity": optional(Bool.random(using: &d.rng) ? "上海" : nil),
                "latitude": .number(JSONNumber(literal: "31.2304")), "longitude": .number(JSONNumber(literal: "121.4737")),
                "horizontalAccuracy": .number(JSONNumber(literal: "-1.0")), "verticalAccuracy": .number(JSONNumber(literal: "5.5")),
            ])
        }

        return (storyIDs, storyJSON)
    }

    /// Media records and their files (and thumbnails); `brokenMedia` records have no file.
    private static func media(_ options: Options, storyIDs: [String], into store: DeviceStore, _ d: inout Draws) throws -> [JSONValue] {
        let fm = FileManager.default
        // Media: images about 1/8 of the budget each chunk, videos larger; every file random bytes.
        var mediaJSON: [JSONValue] = []
        var remaining = options.mediaBytes
        var index = 0
        var brokenLeft = options.brokenMedia
        while remaining > 0 || (options.zeroByteFiles && index == 0) || brokenLeft > 0 {
            let video = index % 4 == 3
            let range: ClosedRange<Int64>
            if let count = options.mediaCount {
                let mean = max(1, options.mediaBytes / Int64(max(1, count)))
                range = index + 1 >= count ? remaining...remaining : (mean / 2)...(mean + mean / 2)
            } else {
                range = video ? (256 << 10)...(4 << 20) : (16 << 10)...(512 << 10)
            }
            let size = options.zeroByteFiles && index == 0 ? 0 : min(remaining, Int64.random(in: range, using: &d.rng))
            let id = d.uuid()
            let created = d.time()
            let ext = video ? "mov" : (index % 2 == 0 ? "heic" : "jpg")
            let name = index % 5 == 1 ? "照片_\(index)_😀.\(ext)" : "\(id).\(ext)"
            let thumb: String? = video ? "\(id)_thumb.jpg" : nil
            let record = MediaRecord(id: id, type: video ? "video" : "image", fileName: name, thumbnailFileName: thumb, fileSize: size, createdAt: created, storyId: nil)
            let folder = store.media.appendingPathComponent(record.folder)
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            let isBroken = brokenLeft > 0 && remaining <= 0
            if isBroken {
                brokenLeft -= 1
            } else {
                try writeRandom(size, to: folder.appendingPathComponent(name), rng: &d.rng)
                if let thumb { try writeRandom(Int64.random(in: 1024...8192, using: &d.rng), to: folder.appendingPathComponent(thumb), rng: &d.rng) }
                remaining -= size
            }
            mediaJSON.append([
                "id": .string(id), "type": .string(record.type), "fileName": .string(name), "thumbnailFileName": optional(thumb),
                "encryptionKeyId": .string("key-\(index % 7)"), "fileSize": int(size), "width": int(video ? 1920 : 4032),
                "height": int(video ? 1080 : 3024), "duration": .number(JSONNumber(literal: video ? "12.5" : "0")), "createdAt": int(created),
                "storyId": optional(storyIDs.isEmpty || index % 3 == 0 ? nil : storyIDs.randomElement(using: &d.rng)),
            ])
            index += 1
        }
        return mediaJSON
    }

    private static func settings(_ d: inout Draws) -> [JSONValue] {
        [
            ["key": "theme", "type": "string", "value": "dark", "updatedAt": int(d.time())],
            ["key": "fontSize", "type": "int", "value": "17", "updatedAt": int(d.time())],
            ["key": "faceIDEnabled", "type": "bool", "value": "true", "updatedAt": int(d.time())],
            ["key": "lineSpacing", "type": "double", "value": "1.25", "updatedAt": int(d.time())],
            ["key": "widgets", "type": "json", "value": #"{"order":["today","mood"],"标题":"我的故事"}"#, "updatedAt": int(d.time())],
        ]
    }

    private static func relations(storyIDs: [String], categories: [(id: String, level: Int64)], _ d: inout Draws) -> [JSONValue] {
        var relations: [JSONValue] = []
        var pairs: Set<String> = []
        if !categories.isEmpty {
            for story in storyIDs {
                for _ in 0..<Int.random(in: 0...2, using: &d.rng) {
                    let category = categories.randomElement(using: &d.rng)!.id
                    if pairs.insert(story + category).inserted {
                        relations.append(["storyId": .string(story), "categoryId": .string(category)])
                    }
                }
            }
        }
        return relations
    }

    static func writeRandom(_ size: Int64, to url: URL, rng: inout SplitMix64) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw PackageError.io("cannot create \(url.path)") }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var left = size
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while left > 0 {
            let n = Int(min(left, Int64(buffer.count)))
            buffer.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt64.self)
                for i in 0..<(n + 7) / 8 where i < words.count { words[i] = rng.next() }
            }
            try handle.write(contentsOf: buffer[0..<n])
            left -= Int64(n)
        }
    }
}
