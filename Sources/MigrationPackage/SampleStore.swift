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
        var rng = SplitMix64(seed: seed)
        let store = DeviceStore(root)
        let fm = FileManager.default
        try fm.createDirectory(at: store.data, withIntermediateDirectories: true)
        try fm.createDirectory(at: store.media, withIntermediateDirectories: true)
        try fm.createDirectory(at: store.masterKey.deletingLastPathComponent(), withIntermediateDirectories: true)
        func uuid() -> String { uuidV4Text(random: (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }) }
        func text() -> String { (0..<Int.random(in: 1...4, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ") }
        func time() -> Int64 { Int64.random(in: 1_600_000_000...1_760_000_000, using: &rng) }
        func int(_ v: Int64) -> JSONValue { .number(JSONNumber(v)) }
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }

        var categories: [(id: String, level: Int64)] = []
        var categoryJSON: [JSONValue] = []
        for i in 0..<options.categories {
            let parent = i > 2 && Bool.random(using: &rng) ? categories.filter { $0.level < 3 }.randomElement(using: &rng) : nil
            let id = uuid()
            let level = (parent?.level ?? 0) + 1
            categories.append((id, level))
            categoryJSON.append([
                "id": .string(id), "name": .string(text()), "nameEn": optional(Bool.random(using: &rng) ? "Category \(i)" : nil),
                "colorHex": .string("#" + [UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng)].hexEncoded.uppercased()),
                "level": int(level), "parentId": optional(parent?.id), "iconName": "folder", "iconType": "system", "customIconData": .null,
                "sortOrder": int(Int64(i)), "createdAt": int(time()),
            ])
        }
        var storyIDs: [String] = []
        var storyJSON: [JSONValue] = []
        for _ in 0..<options.stories {
            let id = uuid()
            let created = time()
            storyIDs.append(id)
            storyJSON.append([
                "id": .string(id), "title": optional(Bool.random(using: &rng) ? text() : nil), "content": .string(text() + "\n\n" + text()),
                "plainTextContent": .string(text()), "createdAt": int(created), "updatedAt": int(created + Int64.random(in: 0...86400, using: &rng)),
                "timestamp": int(created), "isDeleted": .bool(false), "syncStatus": 0, "mood": optional(Bool.random(using: &rng) ? "😊" : nil),
                "locationName": .null, "locationAddress": .null, "locationCity": optional(Bool.random(using: &rng) ? "上海" : nil),
                "latitude": .number(JSONNumber(literal: "31.2304")), "longitude": .number(JSONNumber(literal: "121.4737")),
                "horizontalAccuracy": .number(JSONNumber(literal: "-1.0")), "verticalAccuracy": .number(JSONNumber(literal: "5.5")),
            ])
        }

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
            let size = options.zeroByteFiles && index == 0 ? 0 : min(remaining, Int64.random(in: range, using: &rng))
            let id = uuid()
            let created = time()
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
                try writeRandom(size, to: folder.appendingPathComponent(name), rng: &rng)
                if let thumb { try writeRandom(Int64.random(in: 1024...8192, using: &rng), to: folder.appendingPathComponent(thumb), rng: &rng) }
                remaining -= size
            }
            mediaJSON.append([
                "id": .string(id), "type": .string(record.type), "fileName": .string(name), "thumbnailFileName": optional(thumb),
                "encryptionKeyId": .string("key-\(index % 7)"), "fileSize": int(size), "width": int(video ? 1920 : 4032),
                "height": int(video ? 1080 : 3024), "duration": .number(JSONNumber(literal: video ? "12.5" : "0")), "createdAt": int(created),
                "storyId": optional(storyIDs.isEmpty || index % 3 == 0 ? nil : storyIDs.randomElement(using: &rng)),
            ])
            index += 1
        }
        let settings: [JSONValue] = [
            ["key": "theme", "type": "string", "value": "dark", "updatedAt": int(time())],
            ["key": "fontSize", "type": "int", "value": "17", "updatedAt": int(time())],
            ["key": "faceIDEnabled", "type": "bool", "value": "true", "updatedAt": int(time())],
            ["key": "lineSpacing", "type": "double", "value": "1.25", "updatedAt": int(time())],
            ["key": "widgets", "type": "json", "value": #"{"order":["today","mood"],"标题":"我的故事"}"#, "updatedAt": int(time())],
        ]
        var relations: [JSONValue] = []
        var pairs: Set<String> = []
        if !categories.isEmpty {
            for story in storyIDs {
                for _ in 0..<Int.random(in: 0...2, using: &rng) {
                    let category = categories.randomElement(using: &rng)!.id
                    if pairs.insert(story + category).inserted {
                        relations.append(["storyId": .string(story), "categoryId": .string(category)])
                    }
                }
            }
        }
        let documents: [(ExportKind, [JSONValue])] = [
            (.categories, categoryJSON), (.stories, storyJSON), (.media, mediaJSON), (.settings, options.stories == 0 ? [] : settings),
            (.relations, relations),
        ]
        for (kind, elements) in documents {
            try Data(JSONSerializer.pretty(.array(elements)).utf8).write(to: store.export(kind))
        }
        try Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }).write(to: store.masterKey)
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
