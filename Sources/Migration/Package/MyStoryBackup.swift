import WireCore

/// MyStory's own backup container (the app seed 000 was written for; Conformance/known-implementations/mystory.md):
/// the ASCII bytes `MYSTBACK1`, the JSON document's length as a little-endian UInt64, one JSON
/// document, then the media files back to back. Unsealed since MyStory's commit d3d35d7. It is
/// not the Spec's package (an encrypted envelope around a zip of a `Backup-{id}/` folder), so a
/// check names it and says how it differs, then holds its JSON document to the manifest's rules,
/// the part of it that plays the manifest's role.
public enum MyStoryBackup {
    public static let magic = Array("MYSTBACK1".utf8)
    /// The magic and the length field.
    public static let prefixLength = 17

    /// The JSON document's length, from the file's first 17 bytes; nil when they are not this container.
    public static func documentLength(_ prefix: some Collection<UInt8>) -> UInt64? {
        let bytes = Array(prefix.prefix(prefixLength))
        guard bytes.count == prefixLength, bytes.starts(with: magic) else { return nil }
        return bytes[9..<17].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// What breaks the Spec in a container of `fileSize` bytes whose JSON document is `document`
    /// (`length` the document's declared length): first that it is not a package (MIG-ENV-001),
    /// then every violation of the document as a manifest, under `/document`, and a media region
    /// that is not the sum of the listed files (MIG-PKG-005).
    public static func check(document: [UInt8], length: UInt64, fileSize: Int64) -> [Violation] {
        var found = [
            Violation(
                rule: MigrationRule.envelopeMagic, path: .root / "magic", expected: "an encrypted package (the envelope's magic 89 4D 53 42 4B 0D 0A 1A, §2)",
                found: "MYSTBACK1: MyStory's backup container, an unsealed JSON document and the media bytes after it, not the Spec's envelope around a zip of Backup-{backupId}/ (see Conformance/known-implementations/mystory.md)")
        ]
        guard length <= UInt64(PackageDocument.maxBytes), Int64(prefixLength) + Int64(length) <= fileSize, UInt64(document.count) == length else {
            found.append(
                Violation(
                    rule: MigrationRule.archive, path: .root / "length", expected: "a JSON document of at most \(PackageDocument.maxBytes) bytes inside the file",
                    found: "\(length) bytes declared, \(fileSize - Int64(prefixLength)) after the header"))
            return found
        }
        let value: JSONValue
        do throws(Violation) {
            value = try JSONParser.parse(document, limits: PackageDocument.limits)
        } catch {
            return found + [error.nested(under: .root / "document")]
        }
        if case .failure(let list) = Manifest.check(value) {
            found += list.all.map { $0.nested(under: .root / "document") }
        }
        // The media files follow the document whole and back to back, `mediaFiles[].fileSize` each.
        let listed = (value["mediaFiles"]?.arrayValue ?? []).compactMap { $0["fileSize"]?.integerValue }.reduce(Int64(0), +)
        let region = fileSize - Int64(prefixLength) - Int64(length)
        if value["mediaFiles"] != nil, listed != region {
            found.append(
                Violation(
                    rule: MigrationRule.files, path: .root / "document" / "mediaFiles", expected: "files of \(listed) bytes in all, as listed",
                    found: "\(region) bytes of media after the document"))
        }
        return found
    }
}
