import Foundation

/// Where SwiftPM put the products it built, found as swift-argument-parser's example tests find them: the
/// directory of the test bundle.
enum BuiltProducts {
    /// `.build/<triple>/debug` (or `release`): the directory that holds the test bundle and the executables.
    static var directory: URL {
        #if canImport(Darwin)
            // Tests run inside `xctest`, which loads `FetchPackageTests.xctest` from the products directory.
            if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
                return bundle.bundleURL.deletingLastPathComponent()
            }
        #endif
        // On Linux the test bundle is itself the executable that runs, in the products directory.
        return Bundle.main.bundleURL
    }

    /// The `fetch-example` executable that `swift build` made; `swift test` builds it first, since this test
    /// target depends on the example's target.
    static func fetchExample() throws -> URL {
        let executable = directory.appendingPathComponent("fetch-example")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ChildProcessError(
                "\(executable.path) is not there: build the example with `swift build --product fetch-example`")
        }
        return executable
    }
}
