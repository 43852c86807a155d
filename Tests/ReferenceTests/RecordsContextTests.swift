import ConformanceKit
import Reference
import Testing
import WireCore

/// What a records request's context gets wrong is the request's fault (invalid-request), never a
/// violation whose path would point into the context instead of the document.
@Suite("Records context")
struct RecordsContextTests {
    @Test(arguments: ["model", "xcdatamodel"])
    func aPreviousVersionThatIsNotAModelIsTheRequestsFault(kind: String) throws {
        let family = try #require(Families.defining(kind: kind))
        let document =
            kind == "model"
            ? #"{"entities":[{"name":"Idea","attributes":[{"name":"title","type":"String","optional":true}]}]}"#
            : #"<?xml version="1.0" encoding="UTF-8"?><model><entity name="Idea"><attribute name="title" optional="YES" attributeType="String"/></entity></model>"#
        for previous: JSONValue in [["entities": 3], ["entities": [["attributes": []]]], "not XML"] {
            guard case .invalidRequest(let reason) = family.validate(kind: kind, document: Array(document.utf8), context: ["previous": previous]) else {
                Issue.record("context.previous \(previous.brief) was not an invalid request")
                continue
            }
            #expect(reason.hasPrefix("context.previous: "), "\(reason)")
        }
    }
}
