import Foundation

/// Oracle for the zip target: the package check unpacks into a scratch folder under TMPDIR,
/// which is set to `root/a/b/tmp`; after each input `tmp` must be empty (the scratch removed)
/// and nothing else may exist under `root` (an entry that climbed 1 to 3 levels out).
final class Sandbox: @unchecked Sendable {
    static let shared = Sandbox()
    let root: URL
    let tmp: URL

    private init() {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        root = URL(fileURLWithPath: base).appendingPathComponent("fuzz-zip-\(getpid())")
        tmp = root.appendingPathComponent("a/b/tmp")
        try? FileManager.default.removeItem(at: root)
        try! FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        setenv("TMPDIR", tmp.path, 1)
        atexit { try? FileManager.default.removeItem(at: Sandbox.shared.root) }
    }

    func checkNothingEscaped() {
        let fm = FileManager.default
        let left = (try? fm.contentsOfDirectory(atPath: tmp.path)) ?? []
        guard left.isEmpty else { fatalError("left in TMPDIR after a check: \(left)") }
        for (folder, expected) in [(root, ["a"]), (root.appendingPathComponent("a"), ["b"]), (root.appendingPathComponent("a/b"), ["tmp"])] {
            let names = (try? fm.contentsOfDirectory(atPath: folder.path)) ?? []
            guard names == expected else { fatalError("written outside the package's folder, in \(folder.path): \(names)") }
        }
    }
}
