import Foundation
import SwiftDataModel
import Testing
import WireCore

/// Spec records.md 7's table of SwiftData's value types is the reader's contract: every Swift type
/// of a row reads as that row's attribute, and the row's vectors exist with that attribute in
/// their model (they pin the CloudKit field type, through the vector runner).
@Suite("SwiftData's type table in the Spec")
struct SwiftDataTypeTableTests {
    struct Row {
        var swiftTypes: [String]
        var attribute: String
        var vector: String
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The table's rows: the first column's `code` names, the attribute, the first vector named.
    static func rows() throws -> [Row] {
        let spec = try String(contentsOf: root.appendingPathComponent("Spec/records.md"), encoding: .utf8)
        let start = try #require(spec.range(of: "| Swift types | attribute | CloudKit field |"))
        var rows: [Row] = []
        for line in spec[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2) {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            func codes(_ cell: String) -> [String] { cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) } }
            rows.append(Row(swiftTypes: codes(cells[0]), attribute: cells[1], vector: try #require(codes(cells[3]).first)))
        }
        return rows
    }

    @Test func everySwiftTypeReadsAsItsRowsAttribute() throws {
        let rows = try Self.rows()
        #expect(rows.count == 13, "\(rows.map(\.attribute))")
        for row in rows {
            for type in row.swiftTypes {
                let source = "@Model final class Solve {\n    var value: \(type)?\n}\nstruct Region: Codable {}\nenum Kind: String, Codable { case a }\n"
                let read = try #require(try SwiftDataModelReader.read([SwiftDataModelReader.SourceFile(name: "Solve.swift", text: source)]))
                let attribute = read.model["entities"]?.arrayValue?.first?["attributes"]?.arrayValue?.first?["type"]?.stringValue
                #expect(attribute == row.attribute, "\(type)")
                #expect(read.unresolved.isEmpty, "\(type): \(read.unresolved)")
            }
        }
    }

    @Test func everyRowHasItsVectors() throws {
        let file = try Data(contentsOf: Self.root.appendingPathComponent("Vectors/records/mirrored-record.json"))
        let cases = try JSONParser.parse([UInt8](file))["cases"]?.arrayValue ?? []
        let byID = Dictionary(cases.compactMap { c in c["id"]?.stringValue.map { ($0, c) } }, uniquingKeysWith: { a, _ in a })
        for row in try Self.rows() {
            for id in ["records/mirrored-record/\(row.vector)", "records/mirrored-record/\(row.vector)-mistyped"] {
                let vector = try #require(byID[id], "\(id)")
                #expect(vector["context"]?["model"]?["entities"]?.arrayValue?.first?["attributes"]?.arrayValue?.first?["type"]?.stringValue == row.attribute, "\(id)")
            }
            #expect(byID["records/mirrored-record/\(row.vector)"]?["expected"]?["outcome"]?.stringValue == "accept")
            #expect(byID["records/mirrored-record/\(row.vector)-mistyped"]?["expected"]?["outcome"]?.stringValue == "reject")
        }
    }
}
