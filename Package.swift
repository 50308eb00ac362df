// swift-tools-version: 6.0
//
// SyncCore: Telegram-style state synchronization (client core + reference server) in Swift.
// Layers and their one-way imports are described in docs/ARCHITECTURE.md; each target below is one layer.
import PackageDescription

let package = Package(
    name: "SyncCore",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "TL", targets: ["TL"]),
        .library(name: "MTProto", targets: ["MTProto"]),
        .library(name: "MTProtoNIO", targets: ["MTProtoNIO"]),
        .library(name: "Postbox", targets: ["Postbox"]),
        .library(name: "SyncEngine", targets: ["SyncEngine"]),
        .library(name: "SyncServer", targets: ["SyncServer"]),
        .executable(name: "synccore", targets: ["SyncCLI"]),
        .executable(name: "tl-gen", targets: ["TLGen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // zlib (Debian: zlib1g-dev): CRC-32 and gzip.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // TL runtime + generated layer-229 types. The .tl files are the generator's input, kept beside the output.
        .target(name: "TL", exclude: ["Schema"]),
        .executableTarget(
            name: "TLGen",
            dependencies: ["CZlib", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // AES-NI IGE and wrappers over OpenSSL's libcrypto (Debian: libssl-dev; macOS: brew openssl@3 and pkg-config).
        .target(name: "CMTProtoCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "MTProto", dependencies: ["TL", "CMTProtoCrypto", "CZlib"]),
        // The server's photo sizes: libjpeg-turbo and libpng (Debian: libjpeg62-turbo-dev, libpng-dev; macOS: brew
        // jpeg-turbo libpng).
        .target(name: "CImageCodec", linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16")]),
        .target(
            name: "MTProtoNIO",
            dependencies: [
                "MTProto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "Postbox", dependencies: [
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        .target(name: "SyncEngine", dependencies: [
            "MTProtoNIO", "Postbox",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .target(
            name: "SyncServer",
            dependencies: [
                "MTProtoNIO", "CImageCodec",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // What the CLI's replay, simulate, bench, demo and crash commands drive: the replay runner, the whole-system
        // fault simulation, a small load client, a server-process launcher. No library imports it.
        .target(name: "SyncHarness", dependencies: [
            "TL", "MTProto", "MTProtoNIO", "Postbox", "SyncEngine", "SyncServer",
            .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
        ]),
        // Test-only support (never linked by the shipped executable): generated random values of every TL type and
        // byte mutators for the fuzzers, the test PostgreSQL cluster's helpers, the peer-reference walker, retries of a
        // test's set-up; re-exports SyncHarness.
        .target(name: "SyncTesting", dependencies: [
            "TL", "SyncHarness", "SyncServer", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
        ]),
        .executableTarget(
            name: "SyncCLI",
            dependencies: [
                "TL", "MTProto", "MTProtoNIO", "Postbox", "SyncEngine", "SyncServer", "SyncHarness",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),

        .testTarget(name: "TLTests", dependencies: ["TL", "SyncTesting"], resources: [.copy("Fixtures")]),
        .testTarget(name: "TLGenTests", dependencies: ["TLGen"]),
        .testTarget(name: "MTProtoTests", dependencies: ["MTProto", "SyncTesting"]),
        .testTarget(
            name: "MTProtoNIOTests",
            dependencies: ["MTProtoNIO", "SyncTesting", .product(name: "NIOEmbedded", package: "swift-nio")]
        ),
        .testTarget(name: "PostboxTests", dependencies: ["Postbox", "SyncTesting"]),
        .testTarget(name: "SyncEngineTests", dependencies: ["SyncEngine", "SyncTesting", "SyncServer", .product(name: "GRDB", package: "GRDB.swift")],
                    resources: [.copy("Scenarios")]),
        .testTarget(name: "SyncServerTests", dependencies: ["SyncServer", "SyncTesting", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "SyncCLITests", dependencies: ["SyncCLI", "SyncServer", "MTProto", "SyncTesting"]),
    ]
)
