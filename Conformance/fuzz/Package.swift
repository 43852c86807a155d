// swift-tools-version: 6.0
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which is the checkout's name here.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let kit = root.lastPathComponent

// The libFuzzer targets, in a package of their own so that `swift build` and `swift test` at the
// top level never build them: only `Conformance/fuzz/run` does, with `--sanitize=fuzzer`.
let package = Package(
    name: "DeviceDataFuzz",
    dependencies: [.package(path: "../..")],
    targets: [
        // What every target's oracles share: the time budget, text that steers no terminal.
        .target(name: "FuzzOracles", dependencies: [.product(name: "WireCore", package: kit)]),
        .executableTarget(
            name: "fuzz",
            dependencies: [
                "FuzzOracles", .product(name: "WireCore", package: kit), .product(name: "Migration", package: kit),
                .product(name: "Records", package: kit),
                // The reference's family adapters, and the kit's JSON comparison.
                .product(name: "Reference", package: kit), .product(name: "TesteeProtocol", package: kit),
                .product(name: "ConformanceKit", package: kit),
            ]),
        // The swift-model target: SwiftData sources read by swift-syntax, a binary of its own so
        // that the other targets build without it (minutes in release).
        .executableTarget(
            name: "fuzz-swift",
            dependencies: [
                "FuzzOracles", .product(name: "SwiftDataModel", package: kit), .product(name: "Records", package: kit),
                .product(name: "WireCore", package: kit),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
