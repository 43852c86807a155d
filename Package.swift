// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "DeviceDataConformance",
    platforms: [.macOS(.v13), .iOS(.v15)],
    products: [
        .library(name: "WireCore", targets: ["WireCore"]),
        .library(name: "Pairing", targets: ["Pairing"]),
        .library(name: "Migration", targets: ["Migration"]),
        .library(name: "Records", targets: ["Records"]),
        .library(name: "MigrationPackage", targets: ["MigrationPackage"]),
        .library(name: "TesteeProtocol", targets: ["TesteeProtocol"]),
        .library(name: "Reference", targets: ["Reference"]),
        .library(name: "ConformanceKit", targets: ["ConformanceKit"]),
        .library(name: "SwiftDataModel", targets: ["SwiftDataModel"]),
        .library(name: "FuzzTargets", targets: ["FuzzTargets"]),
        .executable(name: "conformance", targets: ["conformance"]),
        .executable(name: "reference-peer", targets: ["reference-peer"]),
        .executable(name: "bench", targets: ["bench"]),
    ],
    // Off by default: `swift run conformance`, the first command of a fresh clone, builds no
    // swift-syntax (about a minute of that build on 2 cores). The tests, the bundle and anyone
    // checking `.swift` models enable it (`--traits SwiftModels`).
    traits: [
        .trait(name: "SwiftModels", description: "conformance check reads SwiftData @Model classes from .swift files (builds swift-syntax)"),
        .trait(name: "TLS", description: "wss:// in the WebSocket binding (builds swift-nio-ssl, a second BoringSSL beside swift-crypto's)"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // SwiftData models read from source (`check Models/*.swift`).
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        // Pure targets: Foundation only, no I/O, no clock, no environment (PurityTests reads this
        // line's list and fails on any of that in them): WireCore, Pairing, Migration, Records.
        .target(name: "WireCore"),
        .target(name: "Pairing", dependencies: ["WireCore"]),
        .target(
            name: "Migration",
            dependencies: [
                "WireCore", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .target(name: "SystemLibcrypto", condition: .when(platforms: [.linux])),
            ]),
        // The system's libcrypto (OpenSSL 3, `libssl-dev`) for the envelope's AES-GCM on Linux, on
        // CPUs where it is faster than swift-crypto's (`SegmentCipher`); Apple platforms do without.
        .systemLibrary(name: "SystemLibcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "Records", dependencies: ["WireCore"]),
        // The system zlib, for the zip's CRC-32 (on Apple platforms and Linux alike).
        .systemLibrary(name: "SystemZlib"),
        // glibc's extensions: malloc tuning and early writeback.
        .systemLibrary(name: "SystemGlibc"),
        // File I/O: the envelope on disk, the zip archive, the device store, pack and restore.
        .target(
            name: "MigrationPackage",
            dependencies: ["Migration", "WireCore", "SystemZlib", "SystemGlibc", .product(name: "Crypto", package: "swift-crypto")]),
        // The network edge: WebSocket listen and connect, text and binary messages (swift-nio).
        .target(
            name: "WebSocketTransport",
            dependencies: [
                "WireCore", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The migration peers on the network: machines, package files and WebSocket together.
        .target(
            name: "MigrationPeer",
            dependencies: [
                "Migration", "MigrationPackage", "WebSocketTransport", "WireCore", "SystemGlibc", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The pairing peers on the network: the relay, and the phone and desktop clients.
        .target(name: "PairingPeer", dependencies: ["Pairing", "WebSocketTransport", "WireCore"]),
        // SwiftData `@Model` classes read from Swift source into the model checker's JSON form
        // (swift-syntax: kept out of the pure targets, which stay Foundation-only).
        .target(
            name: "SwiftDataModel",
            dependencies: ["WireCore", .product(name: "SwiftSyntax", package: "swift-syntax"), .product(name: "SwiftParser", package: "swift-syntax")]),
        // The testee protocol (Conformance/testee-protocol.md): requests, answers, the line channel.
        .target(name: "TesteeProtocol", dependencies: ["WireCore"]),
        // The reference behind the testee protocol: each family's JSON adapter, and the server
        // `reference-peer testee` runs. Knows nothing of the runner.
        .target(
            name: "Reference",
            dependencies: [
                "TesteeProtocol", "WireCore", "Pairing", "Migration", "MigrationPackage", "Records", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The kit: vectors, runner, peers, reporters, check and watch (file and process I/O live here).
        .target(
            name: "ConformanceKit",
            dependencies: [
                "TesteeProtocol", "Reference", "WireCore", "Pairing", "Migration", "MigrationPackage", "Records",
                .product(name: "Crypto", package: "swift-crypto"), "ZIPFoundation",
            ]),
        // The kit against live peers: relay vectors and migration scenarios over WebSocket.
        .target(
            name: "ConformanceLive",
            dependencies: [
                "ConformanceKit", "Migration", "MigrationPackage", "MigrationPeer", "Pairing", "PairingPeer", "WebSocketTransport", "WireCore",
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .executableTarget(
            name: "conformance",
            dependencies: [
                "ConformanceKit", "ConformanceLive", "Migration", "Pairing", "Records", "WebSocketTransport", "WireCore",
                .target(name: "SwiftDataModel", condition: .when(traits: ["SwiftModels"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "reference-peer",
            dependencies: [
                "Reference", "TesteeProtocol", "Migration", "MigrationPackage", "MigrationPeer", "Pairing", "PairingPeer", "WebSocketTransport", "WireCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Speed and memory, in release mode: `swift run -c release bench`.
        .executableTarget(
            name: "bench",
            dependencies: [
                "Migration", "MigrationPackage", "MigrationPeer", "Records", "WebSocketTransport", "WireCore", "ConformanceKit", "ConformanceLive",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The fuzz targets and their oracles: the libFuzzer binary (`Conformance/fuzz`, its own
        // package, release with --sanitize=fuzzer) and `fuzz-replay`, the seeds and seeded
        // mutations the tests run through them in debug.
        .target(name: "FuzzTargets", dependencies: ["ConformanceKit", "Migration", "Records", "Reference", "TesteeProtocol", "WireCore"]),
        .executableTarget(name: "fuzz-replay", dependencies: ["FuzzTargets"]),
        .testTarget(name: "WireCoreTests", dependencies: ["WireCore"]),
        .testTarget(name: "PairingTests", dependencies: ["Pairing", "WireCore"]),
        .testTarget(name: "MigrationTests", dependencies: ["Migration", "WireCore"]),
        .testTarget(name: "RecordsTests", dependencies: ["Records", "WireCore"]),
        .testTarget(name: "SwiftDataModelTests", dependencies: ["SwiftDataModel", "Records", "WireCore"]),
        // How the in-process tests wait for what they heard (no dependencies of its own).
        .target(name: "TestEvents", path: "Tests/TestEvents"),
        .testTarget(name: "WebSocketTransportTests", dependencies: ["TestEvents", "WebSocketTransport", "WireCore", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "PairingPeerTests", dependencies: ["TestEvents", "PairingPeer", "Pairing", "WebSocketTransport", "WireCore"]),
        .testTarget(name: "MigrationPeerTests", dependencies: ["MigrationPeer", "Migration", "WireCore", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "MigrationPackageTests", dependencies: ["MigrationPackage", "Migration", "WireCore", "ZIPFoundation"]),
        // What the kit's tests share: the checkout's vectors and catalog, the built executables,
        // and the one way they wait for a program or a file.
        .target(name: "TestFixture", dependencies: ["ConformanceKit", "WireCore"], path: "Tests/TestFixture"),
        // The reference against the contract, in process: every vector, the transition tables,
        // rule coverage, deadlines, robustness.
        .testTarget(name: "ReferenceTests", dependencies: ["TestFixture", "ConformanceKit", "Reference", "TesteeProtocol", "Pairing", "WireCore"]),
        // The kit's judges and reports, in process: the watch, the run's report.
        .testTarget(
            name: "ConformanceKitTests",
            dependencies: ["TestFixture", "ConformanceKit", "Reference", "TesteeProtocol", "Migration", "Pairing", "WireCore", .product(name: "Crypto", package: "swift-crypto")]),
        // The live runner's pure parts: the relay schedule, violation grouping.
        .testTarget(name: "ConformanceLiveTests", dependencies: ["ConformanceLive", "WireCore"]),
        // The kit's programs end to end: `conformance` and `reference-peer` started as processes,
        // talking over sockets, and the Python, Node, Java and shell tools beside them.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["TestFixture", "ConformanceKit", "Reference", "TesteeProtocol", "ConformanceLive", "MigrationPackage", "Pairing", "WebSocketTransport", "WireCore"]),
    ],
    swiftLanguageModes: [.v6]
)
