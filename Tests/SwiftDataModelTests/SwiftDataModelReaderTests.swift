import Records
import SwiftDataModel
import Testing
import WireCore

/// SwiftData `@Model` classes read from source into the model form, then checked by the same
/// model checker as Xcode's files (Spec records.md 7, "SwiftData's classes").
@Suite("SwiftData models read from source")
struct SwiftDataModelReaderTests {
    static func read(_ files: [(String, String)]) throws -> SwiftDataModelReader.Result {
        try #require(try SwiftDataModelReader.read(files.map { SwiftDataModelReader.SourceFile(name: $0.0, text: $0.1) }))
    }

    /// Each finding as `RULE names file:line`.
    static func findings(_ files: [(String, String)], previous: [(String, String)]? = nil) throws -> [String] {
        let read = try read(files)
        let before = try previous.map { try Self.read($0).model }
        return try ModelChecker.check(read.model, previous: before).map { "\($0.rule.rawValue) \($0.names ?? "-") \(read.location(of: $0.path) ?? "?")" }
    }

    @Test func aUniqueAttributeIsReportedAtItsProperty() throws {
        let source = """
            import SwiftData

            @Model
            final class Idea {
                @Attribute(.unique) var id: UUID = UUID()
                var title: String = ""
            }
            """
        #expect(try Self.findings([("Idea.swift", source)]) == ["REC-MODEL-001 Idea.id Idea.swift:5"])
    }

    /// Seed 001's IdeaBox model as the seed writes it: unique ids, no defaults in the
    /// declarations (an `init` default is not the schema's), `description`, and a relationship
    /// SyncState does not point back along.
    @Test func ideaBoxAsTheSeedWritesIt() throws {
        let findings = try Self.findings([("Idea.swift", IdeaBoxSources.seedIdea), ("SyncState.swift", IdeaBoxSources.seedSyncState)])
        #expect(
            findings == [
                "REC-MODEL-001 Idea.id Idea.swift:3", "REC-MODEL-007 Idea.id Idea.swift:3", "REC-MODEL-007 Idea.title Idea.swift:4",
                "REC-MODEL-009 Idea.description Idea.swift:5", "REC-MODEL-007 Idea.description Idea.swift:5",
                "REC-MODEL-007 Idea.isCompleted Idea.swift:6", "REC-MODEL-007 Idea.createdAt Idea.swift:9", "REC-MODEL-007 Idea.updatedAt Idea.swift:10",
                "REC-MODEL-007 Idea.deviceId Idea.swift:13", "REC-MODEL-007 Idea.version Idea.swift:17", "REC-MODEL-003 Idea.syncState Idea.swift:14",
                "REC-MODEL-001 SyncState.ideaId SyncState.swift:3", "REC-MODEL-007 SyncState.ideaId SyncState.swift:3",
                "REC-MODEL-007 SyncState.localVersion SyncState.swift:6", "REC-MODEL-007 SyncState.lastModifiedAt SyncState.swift:13",
                "REC-MODEL-007 SyncState.isPendingSync SyncState.swift:16", "REC-MODEL-007 SyncState.isObsolete SyncState.swift:17",
                "REC-MODEL-007 SyncState.conflictResolutionStrategy SyncState.swift:18",
            ])
    }

    @Test func ideaBoxFixedPasses() throws {
        #expect(try Self.findings([("Idea.swift", IdeaBoxSources.fixedIdea), ("SyncState.swift", IdeaBoxSources.fixedSyncState)]) == [])
    }

    /// What each macro says, read as Core Data reads the schema SwiftData builds from it.
    @Test func macrosAndTypes() throws {
        let source = """
            @Model final class Folder {
                #Unique<Folder>([\\.name, \\.owner])
                var name: String = ""
                var owner: String?
                @Relationship(deleteRule: .deny, inverse: \\Note.folder) var notes: [Note]
                @Transient var draft: String = ""
                var count: Int { notes.count }
                static var shared: Folder?
                @Attribute(.ephemeral) var isSelected: Bool = false
                @Attribute(.transformable(by: ColorTransformer.self)) var tint: UIColor?
                @Attribute(.transformable(by: "NSKeyedUnarchiveFromData")) var legacy: NSArray?
                var tags: [String] = []
                var size: Optional<Int16>
                var link: URL? { didSet { count += 0 } }
            }
            @Model final class Note {
                var folder: Folder?
                var body: String? = nil
            }
            """
        let read = try Self.read([("Folder.swift", source)])
        let folder = read.model["entities"]?.arrayValue?[0]
        #expect(folder?["attributes"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["name", "owner", "tint", "legacy", "tags", "size", "link"])
        #expect(folder?["attributes"]?.arrayValue?.compactMap { $0["type"]?.stringValue } == ["String", "String", "Transformable", "Transformable", "Binary", "Integer16", "URI"])
        #expect(folder?["attributes"]?.arrayValue?[2]["valueTransformerName"] == "ColorTransformer")
        #expect(folder?["uniquenessConstraints"] == [["name", "owner"]])
        #expect(read.model["entities"]?.arrayValue?[1]["relationships"]?.arrayValue?[0]["inverse"] == "notes", "inverse: on one end names the other's")
        #expect(read.notes == [], "UIColor and NSArray are transformed; [String] is a Codable value")
        #expect(
            try Self.findings([("Folder.swift", source)]) == [
                "REC-MODEL-001 Folder Folder.swift:2",
                "REC-MODEL-006 Folder.legacy Folder.swift:11",
                "REC-MODEL-002 Folder.notes Folder.swift:5", "REC-MODEL-004 Folder.notes Folder.swift:5",
            ])
    }

    /// SwiftData pairs one optional relationship each way by itself; two to one class are not paired.
    @Test func inversesAreInferredOnlyWhenUnambiguous() throws {
        let paired = """
            @Model final class Trip { var stops: [Stop]? = [] }
            @Model final class Stop { var trip: Trip? }
            """
        #expect(try Self.findings([("Trip.swift", paired)]) == [])
        let ambiguous = """
            @Model final class Trip { var stops: [Stop]? = []; var highlights: [Stop]? = [] }
            @Model final class Stop { var trip: Trip? }
            """
        #expect(
            try Self.findings([("Trip.swift", ambiguous)]) == [
                "REC-MODEL-003 Trip.stops Trip.swift:1", "REC-MODEL-003 Trip.highlights Trip.swift:1", "REC-MODEL-003 Stop.trip Trip.swift:2",
            ])
    }

    /// A to-many end written non-optional pairs with an optional to-one end (HWS's School and
    /// Student): one finding, REC-MODEL-002 on the non-optional end, not REC-MODEL-003 on both
    /// (issue 41, case 1). A required to-one end is not paired.
    @Test func aNonOptionalToManyEndPairsWithAnOptionalToOneEnd() throws {
        let deck = """
            @Model final class Deck { var cards: [Card] = []; init() {} }
            @Model final class Card { var deck: Deck?; init() {} }
            """
        #expect(try Self.findings([("Deck.swift", deck)]) == ["REC-MODEL-002 Deck.cards Deck.swift:1"])
        let required = """
            @Model final class Deck { var cards: [Card]? = []; init() {} }
            @Model final class Card { var deck: Deck = Deck(); init() {} }
            """
        #expect(try Self.findings([("Deck.swift", required)]).contains("REC-MODEL-003 Deck.cards Deck.swift:1"))
    }

    /// The standard library's and Foundation's aliases map as the compiler resolves them: a
    /// `TimeInterval` is a Double, not a Codable value stored as bytes (issue 41, case 2).
    @Test(arguments: [
        ("TimeInterval", "Double"), ("Foundation.TimeInterval", "Double"), ("CFTimeInterval", "Double"), ("Float64", "Double"), ("Float32", "Float"),
        ("NSInteger", "Integer64"), ("Double", "Double"), ("Float", "Float"), ("CGFloat", "Double"), ("Date", "Date"), ("URL", "URI"),
        ("UUID", "UUID"), ("Decimal", "Decimal"), ("Data", "Binary"),
    ])
    func aliasesMapAsTheCompilerResolvesThem(written: String, stored: String) throws {
        let read = try Self.read([("Solve.swift", "@Model final class Solve { var value: \(written)? }")])
        #expect(read.model["entities"]?.arrayValue?[0]["attributes"]?.arrayValue?[0]["type"]?.stringValue == stored)
        #expect(read.notes == [], "\(read.notes)")
    }

    /// A type the reader cannot place is said, not guessed silently: it may be a model class in
    /// a file not passed (issue 41, case 3). Declared in a file read, it is a Codable value.
    @Test func anUnknownTypeIsUnresolved() throws {
        let read = try Self.read([("Idea.swift", "@Model final class Idea { var state: SyncState?; var tags: [String: Label] = [:] }")])
        #expect(read.model["entities"]?.arrayValue?[0]["attributes"]?.arrayValue?[0]["type"] == "Binary")
        #expect(read.unresolved == ["Idea.swift:1: Idea.state is a SyncState, declared in none of the files read", "Idea.swift:1: Idea.tags is a Label, declared in none of the files read"], "\(read.unresolved)")
        let declared = try Self.read([
            ("Idea.swift", "@Model final class Idea { var state: SyncState?; var tags: [String: Label] = [:]; var since: Seconds = 0 }"),
            ("Values.swift", "enum SyncState: String, Codable { case new }\nstruct Label: Codable { var name: String }\ntypealias Seconds = TimeInterval"),
        ])
        #expect(declared.unresolved == [] && declared.notes == [], "\(declared.unresolved)")
        #expect(declared.model["entities"]?.arrayValue?[0]["attributes"]?.arrayValue?[2]["type"] == "Double", "an alias of the files resolves as the compiler does")
    }

    /// The change one app made the day after its App Store submission: Date to String.
    @Test func aTypeChangeAgainstThePreviousSource() throws {
        let before = "@Model final class Solve { var date: Date? }"
        let after = "@Model final class Solve { var date: String? }"
        #expect(try Self.findings([("Solve.swift", after)], previous: [("Solve.swift", before)]) == ["REC-EVOL-003 Solve.date Solve.swift:1"])
    }

    @Test func noModelClassIsNoModel() throws {
        #expect(try SwiftDataModelReader.read([.init(name: "View.swift", text: "struct ContentView { var body: String }")]) == nil)
    }
}
