import Foundation
import Testing

/// The soak and memory tests that keep both cores busy for many seconds (a 500 MB stream, a 100 MB download dropped
/// every 10 MB, 50,000 requests through a libcurl Session and 20,000 across GOAWAYs). In a plain `swift test` they would starve the timing of the tests
/// running beside them, so they run when `FETCH_HEAVY_TESTS=1`: `.ci/run` runs them in a step of their own.
enum HeavyTests {
    static let areEnabled = ProcessInfo.processInfo.environment["FETCH_HEAVY_TESTS"] == "1"

    static let reason: Comment = "a heavy soak or memory test: run with FETCH_HEAVY_TESTS=1 (.ci/run does)"
}
