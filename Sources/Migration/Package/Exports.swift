import Foundation
import WireCore

/// `coredata/categories.json` element (seed 000 §6.1).
public struct CategoryRecord: Sendable, Hashable {
    public var id: String
    public var level: Int64
    public var parentId: String?
    public static let keys = ["id", "name", "nameEn", "colorHex", "level", "parentId", "iconName", "iconType", "customIconData", "sortOrder", "createdAt"]

    static func decode(_ r: ObjectReader) throws(Violation) -> CategoryRecord {
        let id = try MigrationFields.uuid(r, "id")
        _ = try MigrationFields.nonBlank(r, "name", rule: MigrationRule.category)
        _ = try r.optionalString("nameEn")
        let color = try r.string("colorHex")
        let hex = Array(color.utf8.dropFirst())
        guard color.hasPrefix("#"), hex.count == 6, hex.allSatisfy(Hex.isDigit) else {
            throw Violation(rule: MigrationRule.category, path: r.pointer("colorHex"), expected: "#RRGGBB", found: JSONSerializer.quoted(color))
        }
        let level = try r.integer("level")
        guard level >= 1 else {
            throw Violation(rule: MigrationRule.category, path: r.pointer("level"), expected: "a level ≥ 1", found: "\(level)")
        }
        let parentId = try MigrationFields.optionalUUID(r, "parentId")
        _ = try r.string("iconName")
        let iconType = try r.string("iconType")
        guard iconType == "system" || iconType == "custom" else {
            throw Violation(rule: MigrationRule.category, path: r.pointer("iconType"), expected: "\"system\" or \"custom\"", found: JSONSerializer.quoted(iconType))
        }
        if let data = try r.optionalString("customIconData"), Data(base64Encoded: data) == nil {
            throw Violation(rule: MigrationRule.category, path: r.pointer("customIconData"), expected: "standard base64", found: "not base64")
        }
        _ = try r.integer("sortOrder")
        _ = try MigrationFields.seconds(r, "createdAt")
        return CategoryRecord(id: id, level: level, parentId: parentId)
    }
}

/// `coredata/stories.json` element (seed 000 §6.2).
public struct StoryRecord: Sendable, Hashable {
    public var id: String
    public static let keys = [
        "id", "title", "content", "plainTextContent", "createdAt", "updatedAt", "timestamp", "isDeleted", "syncStatus", "mood",
        "locationName", "locationAddress", "locationCity", "latitude", "longitude", "horizontalAccuracy", "verticalAccuracy",
    ]

    static func decode(_ r: ObjectReader) throws(Violation) -> StoryRecord {
        let id = try MigrationFields.uuid(r, "id")
        for key in ["title", "content", "plainTextContent"] { _ = try r.optionalString(key) }
        let created = try MigrationFields.seconds(r, "createdAt")
        let updated = try MigrationFields.seconds(r, "updatedAt")
        guard updated >= created else {
            throw Violation(rule: MigrationRule.story, path: r.pointer("updatedAt"), expected: "at or after createdAt \(created)", found: "\(updated)")
        }
        _ = try MigrationFields.seconds(r, "timestamp")
        _ = try r.bool("isDeleted")
        _ = try r.integer("syncStatus")
        for key in ["mood", "locationName", "locationAddress", "locationCity"] { _ = try r.optionalString(key) }
        for (key, limit) in [("latitude", 90.0), ("longitude", 180.0)] {
            let value = try MigrationFields.number(r, key)
            guard abs(value) <= limit else {
                throw Violation(rule: MigrationRule.story, path: r.pointer(key), expected: "within ±\(Int(limit))", found: "\(value)")
            }
        }
        for key in ["horizontalAccuracy", "verticalAccuracy"] {
            let value = try MigrationFields.number(r, key)
            guard value >= 0 || value == -1 else {
                throw Violation(rule: MigrationRule.story, path: r.pointer(key), expected: "≥ 0, or -1 for not measured", found: "\(value)")
            }
        }
        return StoryRecord(id: id)
    }
}

/// `coredata/media.json` element (seed 000 §6.3).
public struct MediaRecord: Sendable, Hashable {
    public var id: String
    public var type: String
    public var fileName: String
    public var thumbnailFileName: String?
    public var fileSize: Int64
    public var createdAt: Int64
    public var storyId: String?
    public init(
        id: String, type: String, fileName: String, thumbnailFileName: String?, fileSize: Int64, createdAt: Int64, storyId: String?
    ) {
        self.id = id
        self.type = type
        self.fileName = fileName
        self.thumbnailFileName = thumbnailFileName
        self.fileSize = fileSize
        self.createdAt = createdAt
        self.storyId = storyId
    }

    public static let keys = [
        "id", "type", "fileName", "thumbnailFileName", "encryptionKeyId", "fileSize", "width", "height", "duration", "createdAt", "storyId",
    ]

    /// Where the media file lives in the package and the store: `{Images|Videos}/YYYY/MM/` of
    /// `createdAt` in UTC (the MediaStorageService layout, seed 000 §4.2).
    public var folder: String {
        let date = Date(timeIntervalSince1970: TimeInterval(createdAt))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month], from: date)
        let year = String(parts.year ?? 1970)
        let month = (parts.month ?? 1) < 10 ? "0\(parts.month ?? 1)" : "\(parts.month ?? 1)"
        return "\(type == "video" ? "Videos" : "Images")/\(year)/\(month)"
    }

    static func decode(_ r: ObjectReader) throws(Violation) -> MediaRecord {
        let id = try MigrationFields.uuid(r, "id")
        let type = try r.string("type")
        guard type == "image" || type == "video" else {
            throw Violation(rule: MigrationRule.media, path: r.pointer("type"), expected: "\"image\" or \"video\"", found: JSONSerializer.quoted(type))
        }
        let fileName = try r.string("fileName")
        guard MigrationFields.isSafeFileName(fileName) else {
            throw Violation(rule: MigrationRule.media, path: r.pointer("fileName"), expected: "a plain file name", found: JSONSerializer.quoted(fileName))
        }
        let thumbnail = try r.optionalString("thumbnailFileName")
        if let thumbnail, !MigrationFields.isSafeFileName(thumbnail) {
            throw Violation(
                rule: MigrationRule.media, path: r.pointer("thumbnailFileName"), expected: "a plain file name", found: JSONSerializer.quoted(thumbnail))
        }
        _ = try MigrationFields.nonBlank(r, "encryptionKeyId", rule: MigrationRule.media)
        let size = try MigrationFields.nonNegative(r, "fileSize", rule: MigrationRule.media)
        _ = try MigrationFields.nonNegative(r, "width", rule: MigrationRule.media)
        _ = try MigrationFields.nonNegative(r, "height", rule: MigrationRule.media)
        let duration = try MigrationFields.number(r, "duration")
        guard duration >= 0 else {
            throw Violation(rule: MigrationRule.media, path: r.pointer("duration"), expected: "≥ 0 seconds", found: "\(duration)")
        }
        let created = try MigrationFields.seconds(r, "createdAt")
        let storyId = try MigrationFields.optionalUUID(r, "storyId")
        return MediaRecord(id: id, type: type, fileName: fileName, thumbnailFileName: thumbnail, fileSize: size, createdAt: created, storyId: storyId)
    }
}

/// `coredata/settings.json` element (seed 000 §6.4).
public struct SettingRecord: Sendable, Hashable {
    public var key: String
    public static let keys = ["key", "type", "value", "updatedAt"]
    static let types = ["bool", "int", "double", "string", "json"]

    static func decode(_ r: ObjectReader) throws(Violation) -> SettingRecord {
        let key = try MigrationFields.nonBlank(r, "key", rule: MigrationRule.setting)
        let type = try r.string("type")
        guard types.contains(type) else {
            throw Violation(
                rule: MigrationRule.setting, path: r.pointer("type"), expected: "one of " + types.joined(separator: ", "), found: JSONSerializer.quoted(type))
        }
        let value = try r.string("value")
        let valid: Bool
        switch type {
        case "bool": valid = value == "true" || value == "false"
        case "int": valid = Int64(value) != nil && !value.hasPrefix("+")
        case "double": valid = Double(value).map { $0.isFinite } ?? false
        case "json": valid = (try? JSONParser.parse(value)) != nil
        default: valid = true
        }
        guard valid else {
            throw Violation(rule: MigrationRule.setting, path: r.pointer("value"), expected: "a \(type) value", found: JSONSerializer.quoted(value))
        }
        _ = try MigrationFields.seconds(r, "updatedAt")
        return SettingRecord(key: key)
    }
}

/// `coredata/relations_story_categories.json` element (seed 000 §6.5).
public struct RelationRecord: Sendable, Hashable {
    public var storyId: String
    public var categoryId: String
    public static let keys = ["storyId", "categoryId"]

    static func decode(_ r: ObjectReader) throws(Violation) -> RelationRecord {
        RelationRecord(storyId: try MigrationFields.uuid(r, "storyId"), categoryId: try MigrationFields.uuid(r, "categoryId"))
    }
}
