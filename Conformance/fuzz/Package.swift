// swift-tools-version: 6.0
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which is the checkout's name here.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let kit = root.lastPathComponent

// The libFuzzer binaries, in a package of their own so that `swift build` and `swift test` at the
// top level never build them with `--sanitize=fuzzer`: only `Conformance/fuzz/run` does. The
// targets themselves are the kit's `FuzzTargets`, which `swift test` replays (fuzz-replay).
let package = Package(
    name: "DeviceDataFuzz",
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(name: "fuzz", dependencies: [.product(name: "FuzzTargets", package: kit)]),
        // The swift-model target: SwiftData sources read by swift-syntax, a binary of its own so
        // that the other targets build without it (minutes in release).
        .executableTarget(
            name: "fuzz-swift",
            dependencies: [
                .product(name: "FuzzTargets", package: kit), .product(name: "SwiftDataModel", package: kit),
                .product(name: "Records", package: kit), .product(name: "WireCore", package: kit),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
