/// A watch's notes, at most `limit` kept: a relay that broadcasts presence earns a note per
/// frame for as long as the watch runs. The rest are counted, and the list ends saying how many.
struct NoteList {
    static let limit = 1000
    private var kept: [String] = []
    private var omitted = 0

    mutating func append(_ note: String) {
        if kept.count < Self.limit { kept.append(note) } else { omitted += 1 }
    }

    /// The notes for the report: the kept ones, then "and N more notes" when some were not.
    var all: [String] { omitted == 0 ? kept : kept + ["and \(omitted) more notes"] }
}
