import WireCore

/// What a watch keeps of something a peer can make without end (a note per presence broadcast,
/// a violation per bad frame): the first `limit` items, and a count of the rest. 200,000 bad
/// frames once made a 62 MB report at 377 MB of memory.
struct CappedList<Element> {
    let limit: Int
    private(set) var kept: [Element] = []
    private(set) var omitted = 0

    init(limit: Int) { self.limit = limit }

    var isFull: Bool { kept.count >= limit }

    mutating func append(_ item: Element) {
        if kept.count < limit { kept.append(item) } else { omitted += 1 }
    }

    /// Changes a kept item in place (a repeat counted on the first).
    mutating func update(at i: Int, _ change: (inout Element) -> Void) { change(&kept[i]) }
}

/// A watch's notes: at most 1000.
typealias NoteList = CappedList<String>

extension CappedList where Element == String {
    init() { self.init(limit: 1000) }

    /// The notes for the report: the kept ones, then "and N more notes" when some were not.
    var all: [String] { omitted == 0 ? kept : kept + ["and \(omitted) more notes"] }
}

extension CappedList: Sendable where Element: Sendable {}
