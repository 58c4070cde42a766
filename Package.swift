// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Fetch",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Fetch", targets: ["Fetch"]),
        .library(name: "FetchTesting", targets: ["FetchTesting"]),
        .executable(name: "fetch-bench", targets: ["FetchBench"]),
    ],
    targets: [
        .target(name: "Fetch"),
        .target(name: "FetchTesting", dependencies: ["Fetch"]),
        .executableTarget(name: "FetchBench", dependencies: ["Fetch", "FetchTesting"], path: "Benchmarks/FetchBench"),
        .testTarget(name: "FetchTests", dependencies: ["Fetch", "FetchTesting"]),
        .testTarget(name: "ReadmeTests", dependencies: ["Fetch", "FetchTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
