// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "DeviceDataConformance",
    platforms: [.macOS(.v13), .iOS(.v15)],
    products: [
        .library(name: "WireCore", targets: ["WireCore"]),
        .library(name: "Pairing", targets: ["Pairing"]),
        .library(name: "Migration", targets: ["Migration"]),
        .library(name: "ConformanceKit", targets: ["ConformanceKit"]),
        .executable(name: "conformance", targets: ["conformance"]),
        .executable(name: "reference-peer", targets: ["reference-peer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // Pure targets: Foundation only, no I/O, no clock, no environment.
        .target(name: "WireCore"),
        .target(name: "Pairing", dependencies: ["WireCore"]),
        .target(
            name: "Migration",
            dependencies: [
                "WireCore", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // The kit: vectors, runner, peers, reporters (file and process I/O live here).
        .target(
            name: "ConformanceKit",
            dependencies: ["WireCore", "Pairing", "Migration", .product(name: "Crypto", package: "swift-crypto")]),
        .executableTarget(
            name: "conformance",
            dependencies: ["ConformanceKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "reference-peer",
            dependencies: ["ConformanceKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "WireCoreTests", dependencies: ["WireCore"]),
        .testTarget(name: "PairingTests", dependencies: ["Pairing", "WireCore"]),
        .testTarget(name: "MigrationTests", dependencies: ["Migration", "WireCore"]),
        .testTarget(name: "ConformanceKitTests", dependencies: ["ConformanceKit", "Pairing", "WireCore"]),
    ],
    swiftLanguageModes: [.v6]
)
