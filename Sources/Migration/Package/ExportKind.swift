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

    /// Throws the first violation; `check` reports them all.
    public static func decode(_ document: JSONValue, as kind: ExportKind) throws(Violation) -> Export {
        switch check(document, as: kind) {
        case .success(let export): return export
        case .failure(let list): throw list.first
        }
    }

    /// Checks one export document element by element, every element on its own (the first
    /// failing check of each is reported), then uniqueness (MIG-ID-002) among the elements that
    /// passed.
    public static func check(_ document: JSONValue, as kind: ExportKind) -> Result<Export, ViolationList> {
        let elements: [JSONValue]
        do throws(Violation) {
            elements = try asArray(document, at: .root)
        } catch {
            return .failure(ViolationList([error]))
        }
        var checks = IndependentChecks()
        var export = Export(kind: kind)
        var canonical: [JSONValue] = []
        var seen: [ByteString: Int] = [:]
        for (i, element) in elements.enumerated() {
            let decoded = checks.check { () throws(Violation) -> (String, String) in
                // An element that is not an object is that element's violation, not the document's.
                let r = try ObjectReader(document: element, path: .root / i)
                switch kind {
                case .categories:
                    let c = try CategoryRecord.decode(r)
                    export.categories.append(c)
                    canonical.append(r.givenMembers(CategoryRecord.keys))
                    return (c.id.lowercased(), "id")
                case .stories:
                    let s = try StoryRecord.decode(r)
                    export.stories.append(s)
                    canonical.append(r.givenMembers(StoryRecord.keys))
                    return (s.id.lowercased(), "id")
                case .media:
                    let m = try MediaRecord.decode(r)
                    export.media.append(m)
                    canonical.append(r.givenMembers(MediaRecord.keys))
                    return (m.id.lowercased(), "id")
                case .settings:
                    let s = try SettingRecord.decode(r)
                    export.settings.append(s)
                    canonical.append(r.givenMembers(SettingRecord.keys))
                    return (s.key, "key")
                case .relations:
                    let rel = try RelationRecord.decode(r)
                    export.relations.append(rel)
                    canonical.append(r.givenMembers(RelationRecord.keys))
                    return (rel.storyId.lowercased() + "|" + rel.categoryId.lowercased(), "categoryId")
                }
            }
            guard let (identity, keyPath) = decoded else { continue }
            if let first = seen[ByteString(identity)] {
                checks.add([
                    Violation(
                        rule: MigrationRule.uniqueIDs, path: .root / i / keyPath, expected: "unique within \(kind.fileName) (UUIDs compared case-insensitively)",
                        found: "the same as element \(first)")
                ])
                continue
            }
            seen[ByteString(identity)] = i
        }
        let result = export
        let canonicalArray = canonical
        return checks.result { () throws(Violation) in
            var done = result
            done.canonical = .array(canonicalArray)
            return done
        }
    }
}
