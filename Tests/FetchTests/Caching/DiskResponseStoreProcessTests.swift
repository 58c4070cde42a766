import Foundation
import Testing

@testable import Fetch

/// The disk store across processes: what one process writes, another answers from after it is gone, and two
/// processes writing one directory at once leave only whole responses.
///
/// The test runs this test binary again, filtered to itself, with `FETCH_DISK_STORE_CHILD` set to what the child
/// does (`fill <tag>`), as ``ResumableDownloadProcessTests`` does.
@Suite struct DiskResponseStoreProcessTests {
    static let childVariable = "FETCH_DISK_STORE_CHILD"
    static let keys = 200

    @Test func responsesWrittenByOtherProcessesAreServedAfterTheyExit() async throws {
        let environment = ProcessInfo.processInfo.environment
        if let role = environment[Self.childVariable], let directory = environment["FETCH_DISK_STORE_DIRECTORY"] {
            return try fillAsChild(URL(fileURLWithPath: directory), tag: String(role.dropFirst("fill ".count)))
        }
        let directory = try TemporaryDirectory()
        let children = try ["a", "b"].map { tag in
            try ChildTestRun(
                filter: "DiskResponseStoreProcessTests/responsesWrittenByOtherProcessesAreServedAfterTheyExit",
                environment: [Self.childVariable: "fill \(tag)", "FETCH_DISK_STORE_DIRECTORY": directory.url.path])
        }
        for child in children {
            let finished = try await child.finish(within: .seconds(120))
            #expect(finished.status == 0, "a filling run failed:\n\(finished.output)")
            #expect(finished.output.contains("Test run with 1 test"), "a child ran no test:\n\(finished.output)")
        }

        let store = try DiskResponseStore(directory: directory.url, limit: 64 << 20)
        #expect(store.count == Self.keys)
        for key in 0..<Self.keys {
            let found = try #require(
                store.response(
                    for: "https://api.example.com/items/\(key)", matching: StoredResponses.request("/items/\(key)")))
            let body = String(decoding: found.data ?? Data(), as: UTF8.self)
            #expect(body == "a:\(key)" || body == "b:\(key)", "item \(key) holds \(body)")
        }
    }

    /// The child's side: writes every key, with the child's tag in the bodies, while the other child does too.
    func fillAsChild(_ directory: URL, tag: String) throws {
        let store = try DiskResponseStore(directory: directory, limit: 64 << 20)
        for key in 0..<Self.keys {
            store.insert(StoredResponses.make("/items/\(key)", body: "\(tag):\(key)"))
        }
        #expect(store.count == Self.keys)
    }
}
