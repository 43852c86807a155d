import Foundation
import FuzzTargets

// fuzz-replay TARGET [--mutations N] [--seed S] [--time-scale X] [--current FILE] PATH...
// Runs every file under each PATH through the fuzz target, then N seeded mutations of them (round
// robin over the files, each spliced with the next), in
// this process: the replay `swift test` runs (FuzzReplayTests), where libFuzzer's build (release,
// --sanitize=fuzzer, minutes) is `Conformance/fuzz/run`'s. A finding ends the process (the
// oracle's fatalError, a trap); with --current, each input is written to FILE before it runs, so
// the one that ended it is there. Exit 0: nothing found; 2: bad usage.

func usage(_ why: String) -> Never {
    FileHandle.standardError.write(Data("fuzz-replay: \(why)\nusage: fuzz-replay TARGET [--mutations N] [--seed S] [--time-scale X] [--current FILE] PATH...\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first else { usage("name a target: " + FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")) }
guard let target = FuzzTarget(rawValue: name) else { usage("no target '\(name.prefix(64))': " + FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")) }
arguments.removeFirst()
var mutations = 0
var seed: UInt64 = 1
var timeScale = 1.0
var current: URL?
var paths: [String] = []
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--mutations", "--seed", "--time-scale", "--current":
        guard let value = arguments.first else { usage("\(argument) needs a value") }
        arguments.removeFirst()
        switch argument {
        case "--mutations": mutations = Int(value) ?? -1
        case "--seed": seed = UInt64(value) ?? 0
        case "--time-scale": timeScale = Double(value) ?? 0
        default: current = URL(fileURLWithPath: value)
        }
        guard mutations >= 0, seed > 0, timeScale > 0 else { usage("\(argument) \(value.prefix(32)) is not a positive number") }
    default: paths.append(argument)
    }
}
guard !paths.isEmpty else { usage("name a file or folder of inputs") }

var files: [URL] = []
for path in paths {
    let url = URL(fileURLWithPath: path)
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { usage("no such file or folder: \(path)") }
    if isFolder.boolValue {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        files += names.sorted().map { url.appendingPathComponent($0) }.filter { !$0.hasDirectoryPath }
    } else {
        files.append(url)
    }
}
let inputs = files.compactMap { try? [UInt8](Data(contentsOf: $0)) }

@MainActor func run(_ input: [UInt8]) {
    if let current { try? Data(input).write(to: current) }
    target.run(input, timeScale: timeScale)
}

guard !inputs.isEmpty else { usage("no inputs to replay or mutate in \(paths.joined(separator: " "))") }
var mutator = Mutator(seed: seed)
for input in inputs { run(input) }
for n in 0..<mutations {
    run(mutator.mutate(inputs[n % inputs.count], splicingWith: inputs[(n + 1) % inputs.count]))
}
print("\(target.rawValue): \(inputs.count) inputs and \(mutations) mutations, no finding")
