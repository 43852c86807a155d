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
        .executableTarget(
            name: "fuzz",
            dependencies: [
                .product(name: "WireCore", package: kit), .product(name: "Migration", package: kit),
                .product(name: "Records", package: kit),
                // The reference's family adapters, and the kit's JSON comparison.
                .product(name: "Reference", package: kit), .product(name: "TesteeProtocol", package: kit),
                .product(name: "ConformanceKit", package: kit),
                // The SwiftData source reader (swift-syntax): the swift-model target.
                .product(name: "SwiftDataModel", package: kit),
            ])
    ],
    swiftLanguageModes: [.v6]
)
