// swift-tools-version: 6.0
// Fetch beside the HTTP clients its users would pick instead, in one process: a package of its own, so that Fetch
// itself depends on nothing. Resolving it needs the network; see README.md.
import PackageDescription

let package = Package(
    name: "OtherClients",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        // By name: a path dependency is otherwise known by its directory's name, which is the clone's.
        .package(name: "Fetch", path: "../.."),
        // The versions the issue measured (Benchmarks/README.md, nineteenth session).
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.33.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/Alamofire/Alamofire.git", exact: "5.12.0"),
        .package(url: "https://github.com/kean/Get.git", exact: "2.2.1"),
    ],
    targets: [
        .executableTarget(
            name: "other-clients",
            dependencies: [
                .product(name: "Fetch", package: "Fetch"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Alamofire", package: "Alamofire"),
                .product(name: "Get", package: "Get"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
