// swift-tools-version: 6.0
// The README's quick start as a package of its own that depends on SyncCore, as an app would: CI builds it
// (`swift build --package-path Examples/QuickStart`), so the snippet compiles as written with `import SyncEngine` alone.
import PackageDescription

let package = Package(
    name: "QuickStart",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "SyncCore", path: "../..")],
    targets: [
        .executableTarget(name: "QuickStart", dependencies: [.product(name: "SyncEngine", package: "SyncCore")]),
    ]
)
