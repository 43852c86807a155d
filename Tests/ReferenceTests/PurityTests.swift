import Foundation
import TestFixture
import Testing

/// The pure targets (Package.swift names them) do no I/O, read no clock, no environment and no
/// randomness of their own: time and random bytes come in as values, so every machine and codec
/// runs the same on a phone, in a vector and under the fuzzer. Read from the source with
/// comments and string literals taken out; an import of anything but Foundation, the crypto
/// libraries and the other pure targets fails too.
@Suite("The pure targets stay pure")
struct PurityTests {
    static let allowedImports: Set<String> = ["Foundation", "FoundationXML", "Crypto", "_CryptoExtras", "SystemLibcrypto"]

    /// What a pure target must not name: files, processes, the environment, the clock, threads,
    /// a random source of its own, the terminal.
    static let forbidden: [(what: String, pattern: String)] = [
        ("file I/O", #"\b(FileManager|FileHandle|fopen|fwrite|fread)\b|\b(Data|String)\(contentsOf|\.write\(to(File)?:"#),
        ("the process or its environment", #"\b(ProcessInfo|CommandLine|getenv|setenv|exit)\b"#),
        ("the network", #"\b(URLSession|URLRequest)\b"#),
        ("the clock", #"\bDate\(\)|\bDate\.now\b|\bDate\(timeIntervalSinceNow|\b(ContinuousClock|SuspendingClock|clock_gettime|gettimeofday|CFAbsoluteTimeGetCurrent)\b|\bTask\.sleep\b"#),
        ("threads and queues", #"\b(Thread|DispatchQueue|DispatchSemaphore|OperationQueue)\b"#),
        ("randomness of its own", #"\b(SystemRandomNumberGenerator|arc4random\w*)\b|\bUUID\(\)|\.random\((in:)?[^)]*\)"#),
        ("the terminal", #"\b(print|debugPrint|readLine)\("#),
    ]

    /// The list in Package.swift's "Pure targets" comment.
    static func pureTargets() throws -> [String] {
        let manifest = try String(contentsOf: Fixture.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let lines = manifest.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.contains("// Pure targets:") }) else { return [] }
        let comment = lines[start...].prefix { $0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: " ")
        guard let list = comment.split(separator: "):").last else { return [] }
        return list.split(separator: ",").map { $0.replacingOccurrences(of: "//", with: "").trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "."))) }
    }

    /// Swift source without its comments and string literals (a URL in a string, a word in a
    /// doc comment, is not a call). Foundation's regular expressions: Swift's `Regex` took 20 s
    /// over the pure targets in a debug build.
    static func code(_ source: String) -> String {
        var text = source
        for (pattern, replacement) in [(#"\"\"\"[\s\S]*?\"\"\""#, "\"\""), (##"#"[^\n]*?"#"##, "\"\""), (#""(?:[^"\\\n]|\\.)*""#, "\"\""), (#"/\*[\s\S]*?\*/"#, ""), (#"//[^\n]*"#, "")] {
            let regex = try! NSRegularExpression(pattern: pattern)
            text = regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: NSRegularExpression.escapedTemplate(for: replacement))
        }
        return text
    }

    static let importPattern = try! NSRegularExpression(pattern: #"^\s*(?:@\w+\s+)*import\s+(?:\w+\s+)?([\w.]+)"#)
    static let compiled = forbidden.map { (what: $0.what, regex: try! NSRegularExpression(pattern: $0.pattern)) }

    /// What in `source` breaks purity: each finding as `line: what (text)`.
    static func impurities(_ source: String, importing allowed: Set<String>) -> [String] {
        var found: [String] = []
        for (n, line) in code(source).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            let range = NSRange(line.startIndex..., in: line)
            if let m = importPattern.firstMatch(in: line, range: range), let r = Range(m.range(at: 1), in: line) {
                let module = line[r]
                let root = String(module.split(separator: ".").first ?? module)
                if !allowed.contains(root) { found.append("\(n + 1): imports \(module)") }
                continue
            }
            for (what, regex) in compiled {
                guard let m = regex.firstMatch(in: line, range: range), let r = Range(m.range, in: line) else { continue }
                if !line[r].contains("using:") { found.append("\(n + 1): \(what) (\(line[r]))") }
            }
        }
        return found
    }

    @Test func packageSwiftNamesThePureTargets() throws {
        #expect(try Self.pureTargets() == ["WireCore", "Pairing", "Migration", "Records"])
    }

    @Test func noPureTargetDoesIOReadsTheClockOrDrawsRandomness() throws {
        let targets = try Self.pureTargets()
        let allowed = Self.allowedImports.union(targets)
        var findings: [String] = []
        for target in targets {
            let folder = Fixture.root.appendingPathComponent("Sources/\(target)")
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            #expect(!files.isEmpty, "no Swift files in Sources/\(target)")
            for file in files.sorted(by: { $0.path < $1.path }) {
                let source = try String(contentsOf: file, encoding: .utf8)
                findings += Self.impurities(source, importing: allowed).map { "Sources/\(target)/\(file.lastPathComponent):\($0)" }
            }
        }
        #expect(findings.isEmpty, "\(findings.prefix(20).joined(separator: "\n"))\(findings.count > 20 ? "\nand \(findings.count - 20) more" : "")")
    }

    /// The scanner itself: what it must catch, and what it must let pass.
    @Test(arguments: [
        ("let now = Date()", true), ("let d = Date(timeIntervalSince1970: 0)", false), ("let x = Int.random(in: 0...9)", true),
        ("let x = UInt8.random(in: .min ... .max, using: &g)", false), ("try FileManager.default.removeItem(at: u)", true),
        ("import Glibc", true), ("import WireCore", false), ("let s = \"FileManager\" // Date()", false), ("print(x)", true),
        ("let e = ProcessInfo.processInfo.environment", true), ("bytes.append(contentsOf: other)", false), ("let d = try Data(contentsOf: url)", true),
    ])
    func theScannerCatchesWhatItMust(line: String, impure: Bool) {
        #expect(!Self.impurities(line, importing: Self.allowedImports.union(["WireCore"])).isEmpty == impure, "\(line)")
    }
}
