import WireCore

/// The five `coredata/*.json` exports (seed 000 §6), named after their files.
public enum ExportKind: String, CaseIterable, Sendable {
    case categories
    case stories
    case media
    case settings
    case relations = "relations_story_categories"

    public var fileName: String { rawValue + ".json" }

    /// The `entityStats` key counting this export, if it is counted (relations are not).
    public var entityName: String? {
        switch self {
        case .categories: return "CategoryEntity"
        case .stories: return "StoryEntity"
        case .media: return "MediaEntity"
        case .settings: return "SettingEntity"
        case .relations: return nil
        }
    }

    /// The members one element of this export declares.
    public var memberNames: [String] {
        switch self {
        case .categories: return CategoryRecord.keys
        case .stories: return StoryRecord.keys
        case .media: return MediaRecord.keys
        case .settings: return SettingRecord.keys
        case .relations: return RelationRecord.keys
        }
    }

    /// The import order of seed 000 §7.3: Settings → Categories (two passes) → Stories → Media → Relations.
    public static let importOrder: [ExportKind] = [.settings, .categories, .stories, .media, .relations]
}

/// A decoded export: its records and its canonical form.
public struct Export: Sendable {
    public var kind: ExportKind
    public var categories: [CategoryRecord] = []
    public var stories: [StoryRecord] = []
    public var media: [MediaRecord] = []
    public var settings: [SettingRecord] = []
    public var relations: [RelationRecord] = []
    public var canonical: JSONValue = .array([])

    public var count: Int {
        switch kind {
        case .categories: return categories.count
        case .stories: return stories.count
        case .media: return media.count
        case .settings: return settings.count
        case .relations: return relations.count
        }
    }

    /// Checks one export document element by element, then uniqueness (MIG-ID-002); the first
    /// failing check is reported.
    public static func decode(_ document: JSONValue, as kind: ExportKind) throws(Violation) -> Export {
        var export = Export(kind: kind)
        var canonical: [JSONValue] = []
        var seen: [String: Int] = [:]
        for (i, r) in try MigrationFields.elements(document).enumerated() {
            let identity: String
            let keyPath: String
            switch kind {
            case .categories:
                let c = try CategoryRecord.decode(r)
                export.categories.append(c)
                (identity, keyPath) = (c.id.lowercased(), "id")
                canonical.append(r.canonical(CategoryRecord.keys))
            case .stories:
                let s = try StoryRecord.decode(r)
                export.stories.append(s)
                (identity, keyPath) = (s.id.lowercased(), "id")
                canonical.append(r.canonical(StoryRecord.keys))
            case .media:
                let m = try MediaRecord.decode(r)
                export.media.append(m)
                (identity, keyPath) = (m.id.lowercased(), "id")
                canonical.append(r.canonical(MediaRecord.keys))
            case .settings:
                let s = try SettingRecord.decode(r)
                export.settings.append(s)
                (identity, keyPath) = (s.key, "key")
                canonical.append(r.canonical(SettingRecord.keys))
            case .relations:
                let rel = try RelationRecord.decode(r)
                export.relations.append(rel)
                (identity, keyPath) = (rel.storyId.lowercased() + "|" + rel.categoryId.lowercased(), "categoryId")
                canonical.append(r.canonical(RelationRecord.keys))
            }
            if let first = seen[identity] {
                throw Violation(
                    rule: MigrationRule.uniqueIDs, path: .root / i / keyPath, expected: "unique within \(kind.fileName) (UUIDs compared case-insensitively)",
                    found: "the same as element \(first)")
            }
            seen[identity] = i
        }
        export.canonical = .array(canonical)
        return export
    }
}
