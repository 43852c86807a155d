import WireCore

/// The implementations a matrix run holds against the kit (`conformance matrix FILE`,
/// Conformance/matrix.md): a name each, and for each role it plays the command that starts it.
public struct MatrixFile: Sendable {
    /// What an implementation is run as: a testee over stdio, or a live peer in one role.
    public enum Role: String, CaseIterable, Sendable, Hashable {
        case testee, relay, phone, desktop, sender, receiver
    }

    public struct Entry: Sendable {
        public var role: Role
        /// The testee command, or the command that starts the peer, with `{port}`, `{url}`,
        /// `{handoff}`, `{qr}`, `{scan}`, `{pin}`, `{dir}` replaced (shell-quoted) before it runs.
        public var command: String
        /// More arguments for the runner in this role (e.g. `--time-scale 0.1`, `--store {dir}/store`),
        /// placeholders replaced as they are in `command`, unquoted.
        public var runner: [String]
        /// More arguments for `conformance watch` when this phone or desktop is in a pair
        /// (e.g. `--keepalive-ms 1500` for a peer whose timers run faster).
        public var watch: [String]
    }

    public struct Implementation: Sendable {
        public var name: String
        public var entries: [Entry]
    }

    public static let version: Int64 = 1
    public var implementations: [Implementation]

    /// The implementations that play `role`, each with its entry, in the file's order.
    public func playing(_ role: Role) -> [(String, Entry)] {
        implementations.compactMap { i in i.entries.first { $0.role == role }.map { (i.name, $0) } }
    }

    /// Reads a matrix file; the violation names the member that breaks it.
    public static func parse(_ bytes: [UInt8]) throws(Violation) -> MatrixFile {
        let root = try ObjectReader(document: try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 16)))
        let version = try root.integer("matrix")
        guard version == Self.version else {
            throw Violation(rule: CoreRule.type, path: root.pointer("matrix"), expected: "\(Self.version)", found: "\(version)")
        }
        let list = try root.array("implementations")
        var implementations: [Implementation] = []
        var names: Set<[UInt8]> = []
        for (i, value) in list.enumerated() {
            let r = try ObjectReader(document: value, path: root.pointer("implementations") / String(i))
            let name = try r.string("name")
            // The name becomes a file name: letters, digits, '.', '_' and '-' only, compared as bytes.
            guard !name.isEmpty, name.utf8.count <= 64, name.utf8.allSatisfy({ Self.nameBytes.contains($0) }), name.utf8.first != UInt8(ascii: ".") else {
                throw Violation(rule: CoreRule.type, path: r.pointer("name"), expected: "1 to 64 of A-Z a-z 0-9 . _ - (not starting with .)", found: JSONSerializer.quoted(name))
            }
            guard names.insert(Array(name.utf8)).inserted else {
                throw Violation(rule: CoreRule.type, path: r.pointer("name"), expected: "a name no other implementation has", found: JSONSerializer.quoted(name))
            }
            let roles = try r.objectReader("roles")
            var entries: [Entry] = []
            for member in roles.object.members {
                guard let role = Role.allCases.first(where: { $0.rawValue.bytesEqual(member.key) }) else {
                    throw Violation(
                        rule: CoreRule.type, path: roles.pointer(member.key), expected: Role.allCases.map(\.rawValue).joined(separator: ", "),
                        found: JSONSerializer.quoted(member.key))
                }
                let e = try roles.objectReader(member.key)
                let command = try e.string("command")
                guard !command.utf8.allSatisfy({ $0 == 0x20 }) else {
                    throw Violation(rule: CoreRule.type, path: e.pointer("command"), expected: "a command", found: "an empty one")
                }
                func strings(_ key: String) throws(Violation) -> [String] {
                    var list: [String] = []
                    for (k, a) in (try e.optionalArray(key) ?? []).enumerated() {
                        guard case .string(let s) = a else {
                            throw Violation(rule: CoreRule.type, path: e.pointer(key) / String(k), expected: "a string", found: a.typeName)
                        }
                        list.append(s)
                    }
                    return list
                }
                entries.append(Entry(role: role, command: command, runner: try strings("runner"), watch: try strings("watch")))
            }
            guard !entries.isEmpty else {
                throw Violation(rule: CoreRule.type, path: r.pointer("roles"), expected: "at least one role", found: "none")
            }
            implementations.append(Implementation(name: name, entries: entries.sorted { Role.allCases.firstIndex(of: $0.role)! < Role.allCases.firstIndex(of: $1.role)! }))
        }
        guard !implementations.isEmpty else {
            throw Violation(rule: CoreRule.type, path: root.pointer("implementations"), expected: "at least one implementation", found: "none")
        }
        return MatrixFile(implementations: implementations)
    }

    static let nameBytes = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-".utf8))
}

/// How one cell is played: the files and port the kit chose, the peer's command with them in
/// place, and the runner's arguments. Pure: the command line tool starts the processes.
public struct MatrixCell: Sendable {
    public var implementation: String
    public var role: MatrixFile.Role
    /// The command that starts the peer (nil for a testee: the runner starts it).
    public var peerCommand: String?
    /// `conformance` arguments, without the report's format and output.
    public var runnerArguments: [String]
    /// The peer listens and the runner connects: wait until the port takes connections.
    public var peerListens: Bool
    /// The peer's command with its placeholders in place, for a pair through `watch` at `url`.
    public static func command(_ entry: MatrixFile.Entry, url: String, files: [String: String]) -> String {
        substituted(entry.command, values: placeholders(url: url, files: files), quote: ShellWord.quoted)
    }

    static func placeholders(url: String, files: [String: String]) -> [String: String] {
        var values = ["url": url, "port": url.split(separator: ":").last.map(String.init) ?? ""]
        for (k, v) in files { values[k] = v }
        return values
    }

    /// `template` with each known `{name}` replaced by `quote(value)`, in one pass: a value
    /// holding `{qr}` (a folder named so) is not substituted again inside the word already quoted.
    static func substituted(_ template: String, values: [String: String], quote: (String) -> String) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.unicodeScalars.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[open...].dropFirst()
            if let close = after.unicodeScalars.firstIndex(of: "}"), let value = values[String(after[..<close])] {
                result += quote(value)
                rest = after[close...].dropFirst()
            } else {
                result += "{"
                rest = after
            }
        }
        return result + rest
    }

    /// `files` maps `handoff`, `qr`, `scan`, `pin` and `dir` (a folder of the peer's own) to
    /// paths in the matrix's cells folder.
    public init(_ implementation: String, _ entry: MatrixFile.Entry, port: Int, files: [String: String]) {
        self.implementation = implementation
        self.role = entry.role
        let url = "ws://127.0.0.1:\(port)"
        let listen = "127.0.0.1:\(port)"
        func file(_ key: String) -> String { files[key] ?? key }
        let command = Self.command(entry, url: url, files: files)
        switch entry.role {
        case .testee:
            peerCommand = nil
            runnerArguments = ["run", "--peer", "exec:" + entry.command]
        case .relay:
            peerCommand = command
            runnerArguments = ["run", "--role", "relay", "--peer", url]
        case .phone:
            peerCommand = command
            runnerArguments = ["run", "--role", "phone", "--listen", listen, "--handoff-out", file("handoff"), "--qr-file", file("qr")]
        case .desktop:
            peerCommand = command
            runnerArguments = ["run", "--role", "desktop", "--listen", listen, "--qr-file", file("qr"), "--scan-out", file("scan")]
        case .sender:
            peerCommand = command
            runnerArguments = ["run", "--role", "sender", "--peer", url, "--pin-out", file("pin")]
        case .receiver:
            peerCommand = command
            runnerArguments = ["run", "--role", "receiver", "--listen", listen, "--pin-file", file("pin")]
        }
        // The runner's arguments are words, not shell text: placeholders in them are not quoted
        // (`--store {dir}/store` names the receiver's store).
        let values = Self.placeholders(url: url, files: files)
        runnerArguments += entry.runner.map { Self.substituted($0, values: values, quote: { $0 }) }
        peerListens = entry.role == .relay || entry.role == .sender
    }

    /// The cell's files' names: `<implementation>--<role>`.
    public var stem: String { "\(implementation)--\(role.rawValue)" }
}
