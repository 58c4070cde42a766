// swift-tools-version: 6.0
import PackageDescription

// FETCH_APPLE_BRANCHES=1 compiles the Apple platforms' URLSession code on Linux, against swift-corelibs-foundation,
// which has the same API (`URLSessionWebSocketTask`, per-task delegates): the code behind
// `#if !canImport(FoundationNetworking) || FETCH_APPLE_BRANCHES` takes the place of the corelibs workarounds behind
// `#if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES`. For the compiler only (.ci/run builds Fetch so, and
// fails on a warning): such a build does not run correctly on Linux, and nothing ships or tests it.
let appleBranches: [SwiftSetting] =
    Context.environment["FETCH_APPLE_BRANCHES"] == "1" ? [.define("FETCH_APPLE_BRANCHES")] : []

let package = Package(
    name: "Fetch",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Fetch", targets: ["Fetch"]),
        .library(name: "FetchTesting", targets: ["FetchTesting"]),
        .executable(name: "fetch-example", targets: ["FetchExample"]),
        .executable(name: "fetch-bench", targets: ["FetchBench"]),
    ],
    targets: [
        // PrivacyInfo.xcprivacy is Apple's privacy manifest: the disk cache reads the timestamps (lstat/fstat) of
        // the files it wrote into the app's container (reason C617.1).
        .target(
            name: "Fetch",
            dependencies: [.target(name: "CFetchCurl", condition: .when(platforms: [.linux]))],
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: appleBranches
        ),
        // The C boundary of the libcurl transport (Linux): loads libcurl at run time, wraps its variadic functions.
        .target(name: "CFetchCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "FetchTesting", dependencies: ["Fetch"]),
        // Starts the child processes of the tests and of fetch-bench one at a time: on Linux a child started while
        // another's pipes are being made inherits them (Tests/SpawnSupport/Spawn.swift). Not a product.
        .target(name: "SpawnSupport", path: "Tests/SpawnSupport"),
        .executableTarget(
            name: "FetchBench",
            dependencies: [
                "Fetch", "FetchTesting", "SpawnSupport",
                .target(name: "CFetchCurl", condition: .when(platforms: [.linux])),
            ],
            path: "Benchmarks/FetchBench",
            // The Python `websockets` reference client of the WebSocket rows, run as a child process.
            exclude: ["websocket_client.py"]
        ),
        // fetch-bench's own WebSocket server, wire loop and Python reference client (@testable import of the
        // executable target, as FetchExampleTests does).
        .testTarget(name: "FetchBenchTests", dependencies: ["FetchBench", "SpawnSupport"]),
        // The properties of the fuzz targets (Fuzz/run), which FetchTests also replays on the committed seeds and
        // reproducers.
        .target(name: "FetchFuzzing", dependencies: ["Fetch"], path: "Fuzz/Properties"),
        // The loopback servers the tests start (Python, standard library only) live in Support/Server.
        .testTarget(
            name: "FetchTests", dependencies: ["Fetch", "FetchTesting", "FetchFuzzing", "SpawnSupport"],
            exclude: ["Support/Server"]),
        // README-CLAIMS.md maps each claim of the README to the test that proves it. The samples of the docs are
        // compiled here as a user's code is, against the public API only: a `package` symbol fails the build.
        .testTarget(
            name: "ReadmeTests", dependencies: ["Fetch", "FetchTesting"], exclude: ["README-CLAIMS.md"],
            packageAccess: false),
        // The example: a command-line client of a demo company API. Its data and the Python demo server that
        // serves the same data over HTTP live beside its sources; the executable finds them through #filePath.
        .executableTarget(
            name: "FetchExample",
            dependencies: ["Fetch"],
            path: "Examples/FetchExample",
            exclude: ["configuration.json", "demo_data.json", "demo_server.py"]
        ),
        // Tests the example's client with the FetchTesting doubles (@testable import of the executable target),
        // and runs the built executable; depending on the executable target makes `swift test` build it first.
        // Its fixtures (a HAR recording of the demo backend) are read through #filePath, not bundled.
        .testTarget(
            name: "FetchExampleTests",
            dependencies: ["FetchExample", "Fetch", "FetchTesting", "SpawnSupport"],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer driver has no main of its own (-sanitize=fuzzer links libFuzzer's), so it is part of the package
// only when Fuzz/run builds it; `swift build` and `swift test` never see it.
if Context.environment["FETCH_FUZZ"] == "1" {
    package.products.append(.executable(name: "fetch-fuzz", targets: ["FetchFuzzer"]))
    package.targets.append(.executableTarget(name: "FetchFuzzer", dependencies: ["FetchFuzzing"], path: "Fuzz/Driver"))
}
