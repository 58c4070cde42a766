import Fetch
import Foundation
import Testing

@testable import FetchExample

/// `fetch-example --har`: the built executable records its whole run into a HAR file.
@Suite struct FetchExampleHARTests {
    /// The exchanges of a run, as `METHOD path → status`, sorted: the dashboard loads its five lists at once. The
    /// live notifications are not among them: recording passes a stream through untouched.
    static let exchanges = [
        "GET /api/announcements → 200",
        "GET /api/employees → 200",
        "GET /api/employees → 401",
        "GET /api/events → 200",
        "GET /api/products → 200",
        "GET /api/purchases → 200",
        "GET /api/purchases → 200",
        "GET /api/users/5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01 → 200",
        "POST /api/purchases → 201",
        "POST /api/users/login → 200",
        "POST /api/users/login → 401",
    ]

    /// The entries of the API's calls: all but the live desk's handshake (`GET /live → 101`).
    static func apiEntries(of archive: HAR) -> [HAR.Entry] {
        archive.log.entries.filter { URL(string: $0.request.url)?.path != "/live" }
    }

    /// A path in a new temporary directory, which `body` records into; the directory is removed afterwards.
    static func withHARFile<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fetch-example-har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // a temporary directory left over is harmless
        return try await body(directory.appendingPathComponent("run.har"))
    }

    @Test func recordsOneEntryPerExchangeOfTheRunIntoAValidHARFile() async throws {
        try await Self.withHARFile { file in
            let run = try await ChildProcess.run(BuiltProducts.fetchExample(), ["--har", file.path])
            #expect(run.status == 0, "stderr: \(run.errors)")
            #expect(run.output.contains("fetch-example: recording every exchange into \(file.path)\n"))
            #expect(run.output.hasSuffix("steps went as expected.\n"))

            let archive = try HAR(contentsOf: file)
            let desk = archive.log.entries.filter { URL(string: $0.request.url)?.path == "/live" }
            // The handshakes (the first, and the reconnection after the desk's restart) are recorded with their 101
            // heads; the messages that follow are not.
            #expect(desk.map(\.response.status) == [101, 101])
            let exchanges = Self.apiEntries(of: archive).map { entry in
                "\(entry.request.method) \(URL(string: entry.request.url)?.path ?? entry.request.url)"
                    + " → \(entry.response.status)"
            }
            #expect(exchanges.sorted() == Self.exchanges)

            let validation = try await HARValidation.check(file)
            #expect(validation.status == 0, "\(validation.output)\(validation.errors)")
            #expect(validation.output == "valid HAR 1.2: \(11 + desk.count) entries\n")
        }
    }

    @Test func recordsARunAgainstTheDemoServerToo() async throws {
        try await Self.withHARFile { file in
            let (run, baseURL) = try await DemoServer.with { server in
                (
                    try await ChildProcess.run(
                        BuiltProducts.fetchExample(), ["--server", server.baseURL.absoluteString, "--har", file.path]),
                    server.baseURL.absoluteString
                )
            }
            #expect(run.status == 0, "stderr: \(run.errors)")
            let entries = try HAR(contentsOf: file).log.entries
            #expect(entries.count == 11, "against the demo server, the live desk is not served")
            #expect(entries.allSatisfy { $0.request.url.hasPrefix(baseURL + "api/") })
        }
    }

    @Test func keepsTheCredentialsAndTheBearerTokenOutOfTheFile() async throws {
        try await Self.withHARFile { file in
            let run = try await ChildProcess.run(BuiltProducts.fetchExample(), ["--har", file.path])
            #expect(run.status == 0, "stderr: \(run.errors)")
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            let archive = try HAR(contentsOf: file)

            // Every call but the last, made after logging out, sends Authorization: Basic for the two logins,
            // Bearer for the others. Each is written as REDACTED.
            let authorizations = Self.apiEntries(of: archive).flatMap { entry in
                entry.request.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value)
            }
            #expect(authorizations == Array(repeating: "REDACTED", count: 10))
            let configuration = try Configuration.load(from: ExampleFiles.configuration)
            for secret in [configuration.password, Data("ada:\(configuration.password)".utf8).base64EncodedString()] {
                #expect(!text.contains(secret), "the file holds \(secret)")
            }

            // The token the backend issued reaches the file nowhere: not in the requests that sent it, and not in the
            // login's answer either, which the recording scrubs once a later call has sent the token.
            let login = try #require(
                archive.log.entries.first { $0.request.url.hasSuffix("/api/users/login") && $0.response.status == 200 })
            let body = login.response.content.text ?? ""
            #expect(body.contains(#""token":"REDACTED""#) || body.contains(#""token": "REDACTED""#), "\(body)")
        }
    }

    @Test func aFileThatIsNotHARIsRefusedBeforeAnythingIsSent() async throws {
        try await Self.withHARFile { file in
            try Data("not a HAR file".utf8).write(to: file)
            let run = try await ChildProcess.run(BuiltProducts.fetchExample(), ["--har", file.path])
            #expect(run.status == 64)
            #expect(run.errors.hasPrefix("fetch-example: cannot record into \(file.path): "))
            #expect(!run.output.contains("✓"))
            #expect(try Data(contentsOf: file) == Data("not a HAR file".utf8))
        }
    }
}
