import Fetch
import FetchTesting
import Foundation
import SpawnSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The documentation's claims that no other suite proves: facts about the package and its CI (README.md,
/// CONTRIBUTING.md), and behaviours of the DocC articles whose only test is here. They check what the package does,
/// never the documents' wording. `Tests/ReadmeTests/README-CLAIMS.md` maps every claim to its test. Here, in FetchTests,
/// since some claims are checked through `package` state (a session's transport, a HAR file read back), which
/// ReadmeTests, compiled without package access as the samples a user copies, cannot see.
@Suite struct ReadmeClaimsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appending(path: path), encoding: .utf8)
    }

    // MARK: - The pitch, Installation and Requirements

    @Test func thePackageHasNoDependenciesAndShipsTwoLibrariesForSwift6AndThePlatformsOfTheRequirements() throws {
        let manifest = try Self.text("Package.swift")
        #expect(manifest.hasPrefix("// swift-tools-version: 6.0\n"))
        #expect(manifest.contains("swiftLanguageModes: [.v6]"))
        #expect(!manifest.contains(".package("), "README: \"no dependencies\"")
        #expect(manifest.contains(#".linkedLibrary("dl", .when(platforms: [.linux]))"#))
        #expect(!manifest.contains(#".linkedLibrary("curl""#), "libcurl is loaded at run time, not linked")
        #expect(manifest.contains(#".library(name: "Fetch", targets: ["Fetch"])"#))
        #expect(manifest.contains(#".library(name: "FetchTesting", targets: ["FetchTesting"])"#))
        #expect(manifest.contains("platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)]"))
    }

    @Test func fetchReExportsNoModule() throws {
        let sources = Self.root.appending(path: "Sources")
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        let files = enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 50)
        for file in files {
            let source = try String(contentsOf: file, encoding: .utf8)
            #expect(!source.contains("@_exported"), "\(file.lastPathComponent) re-exports a module")
        }
    }

    /// "the tests start a small Python server", "Python 3, standard library only" (the demo server), "`python3` (the
    /// standard library only) for the loopback test server".
    @Test func thePythonServersImportOnlyTheStandardLibrary() throws {
        // The two WebSocket peers are the exception the WebSocket issue asks for: independent implementations
        // (the websockets and autobahn packages), which CI and the test setup install.
        let peers: Set = ["websockets_server.py", "autobahn_server.py"]
        let scripts = ["Tests/FetchTests/Support/Server", "Examples/FetchExample"].flatMap { folder in
            (try? FileManager.default.contentsOfDirectory(atPath: Self.root.appending(path: folder).path))?
                .filter { $0.hasSuffix(".py") && !peers.contains($0) }.map { "\(folder)/\($0)" } ?? []
        }
        #expect(scripts.contains("Tests/FetchTests/Support/Server/test_server.py"))
        #expect(scripts.contains("Examples/FetchExample/demo_server.py"))
        let check = """
            import ast, sys
            local = {p.rsplit("/", 1)[-1][:-3] for p in sys.argv[1:]}
            for path in sys.argv[1:]:
                for node in ast.walk(ast.parse(open(path).read())):
                    names = [a.name for a in node.names] if isinstance(node, ast.Import) else \\
                        [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
                    for name in names:
                        top = name.split(".")[0]
                        if top not in sys.stdlib_module_names and top not in local:
                            print(path, top)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", check] + scripts
        process.currentDirectoryURL = Self.root
        let (status, printed) = try Spawn.output(of: process)
        #expect(status == 0)
        #expect(String(decoding: printed, as: UTF8.self) == "", "imports outside the standard library")
    }

    // MARK: - Quick start and Sessions

    @Test func aSessionDefaultsToTheSharedURLSessionAndTheMainQueue() throws {
        let session = Session()
        let transport = try #require(session.transport as? URLSessionTransport)
        #if canImport(FoundationNetworking)
            // On Linux `.shared` has no delegate: it lends its configuration to a `URLSession` the transport owns.
            #expect(transport.urlSession !== URLSession.shared && transport.urlSession.delegate != nil)
        #else
            #expect(transport.urlSession === URLSession.shared)
        #endif
        #expect(session.callbackQueue === OperationQueue.main)
        #expect(RedirectPolicy.default.maximumRedirects == 10)
        #expect(!RedirectPolicy.default.allowsInsecureRedirects)
        #expect(RedirectPolicy.default.sensitiveHeaders == ["Authorization", "Proxy-Authorization", "Cookie"])
        let owned = Session(transport: URLSessionTransport(configuration: .ephemeral))
        #expect((owned.transport as? URLSessionTransport)?.urlSession !== URLSession.shared)
        #expect(owned.callbackQueue === OperationQueue.main)
    }

    // MARK: - Record and replay

    /// "A secret that no recorded call ever sends and no name reaches (a token under a key of no secret's name) is
    /// not known as one": naming `token` does not find it, since names match headers, query parameters, form and
    /// multipart fields and JSON keys (at any depth), not values.
    @Test func aTokenOnlyEverReadFromABodyStaysInTheFile() throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "readme-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }  // nil: best-effort clean-up of a temporary file
        let login = MockPerformer { _ in .json(#"{"session": {"value": "t0k3n-only-in-a-body"}}"#) }
        let recorded = try login.with(.record(to: file, redacting: ["token"]))
        let answer = Captured<Result<Data, any Error>>()
        recorded.perform(
            APIRequest(try #require(URL(string: "https://api.example.com/login"))), completion: answer.capture)
        #expect(try answer.value?.get() != nil)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("t0k3n-only-in-a-body"))
    }

    /// "outermost, it records what the app asked for; around the session [...] it also sees (and redacts) the
    /// credentials middlewares add", and "Each call that gets a response becomes one entry".
    @Test func whereTheRecordingStandsDecidesWhatItSeesAndOnlyAnswersAreRecorded() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let request = APIRequest(try #require(URL(string: "https://api.example.com/users/1")))
        let mock = MockPerformer { _ in .json(#"{"id": 1, "name": "Ada"}"#) }
        let adapter: InterceptingMiddleware = .header("X-Added-By-Middleware", "yes")
        let outside = directory.appending(path: "outside.har")
        let inside = directory.appending(path: "inside.har")
        let failed = directory.appending(path: "failed.har")
        let stacks: [(URL, any RequestPerforming)] = [
            (outside, try mock.with(adapter).with(.record(to: outside))),
            (inside, try mock.with(.record(to: inside)).with(adapter)),
            (failed, try MockPerformer { _ in throw URLError(.cannotConnectToHost) }.with(.record(to: failed))),
        ]
        for (_, stack) in stacks {
            stack.perform(request) { (_: Result<Data, any Error>) in }
        }
        func headerNames(_ file: URL) throws -> [String] {
            try HAR(contentsOf: file).log.entries.flatMap { $0.request.headers.map(\.name) }
        }
        #expect(try HAR(contentsOf: outside).log.entries.count == 1)
        #expect(try !headerNames(outside).contains("X-Added-By-Middleware"))
        #expect(try headerNames(inside).contains("X-Added-By-Middleware"))
        let failedEntries =
            FileManager.default.fileExists(atPath: failed.path)
            ? try HAR(contentsOf: failed).log.entries.count : 0
        #expect(failedEntries == 0)
    }

    /// "A request matches a recorded one with the same [...] body (JSON as JSON, forms field by field), and a value
    /// recorded as `REDACTED` matches any value."
    @Test func aFormBodyMatchesARecordedOneFieldByField() throws {
        let url = try #require(URL(string: "https://api.example.com/oauth/token"))
        let recorded = APIRequest(url).method(.post).formBody(["username": "ada", "password": "REDACTED"])
        let response = Response(
            status: 200, headers: ["Content-Type": "application/json"], data: Data(#"{"id": 1, "name": "Ada"}"#.utf8),
            originalRequest: recorded)
        var archive = HAR()
        archive.log.entries = [
            try HAR.Entry(request: recorded, response: response, startedDateTime: Date(), timings: .total(0.01))
        ]
        let file = FileManager.default.temporaryDirectory.appending(path: "readme-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }  // nil: best-effort clean-up of a temporary file
        try archive.encoded().write(to: file)
        let mock = try MockPerformer(replaying: file)

        let reordered = Captured<Result<Data, any Error>>()
        mock.perform(
            APIRequest(url).method(.post).formBody(["password": "p@ss w0rd+", "username": "ada"]),
            completion: reordered.capture)
        #expect(try reordered.value?.get() == Data(#"{"id": 1, "name": "Ada"}"#.utf8))
        let someoneElse = Captured<Result<Data, any Error>>()
        mock.perform(
            APIRequest(url).method(.post).formBody(["username": "grace", "password": "x"]),
            completion: someoneElse.capture)
        #expect(throws: NoRecordedAnswer.self) { try someoneElse.value?.get() }
    }

    // MARK: - Deduplication, caching and transfers

    /// "`private` unless `storesPrivateResponses` is `false`": a private response is stored by default, through the
    /// default `ResponseCache` and not by one told not to.
    @Test func theCacheStoresPrivateResponsesUnlessToldNot() throws {
        let request = APIRequest(try #require(URL(string: "https://api.example.com/me")))
        for (storesPrivate, makeCache) in [
            (true, { $0.with(.cache(ResponseCache())) }),
            (false, { $0.with(.cache(ResponseCache(storesPrivateResponses: false))) }),
        ] as [(Bool, (MockPerformer) -> any RequestPerforming)] {
            let sent = Captured<String>()
            let cache = makeCache(
                MockPerformer { request in
                    sent.capture(request.url.path)
                    return MockResponse(
                        status: 200, headers: ["Cache-Control": "private, max-age=60"], data: Data("me".utf8))
                })
            for _ in 0..<2 {
                let answer = Captured<Result<Data, any Error>>()
                cache.perform(request, completion: answer.capture)
                #expect(try answer.value?.get() == Data("me".utf8))
            }
            #expect(sent.values.count == (storesPrivate ? 1 : 2))
        }
    }

    // MARK: - Resilience, transfers: the log lines the README's comments show

    @Test func theLogLinesInTheSamplesCommentsAreWhatFetchPrints() throws {
        let user = APIRequest(try #require(URL(string: "https://api.example.com/users/1")))
        let finished = FetchEvent.finished(user, status: 200, bytes: 312, duration: 0.0041)
        #expect(finished.description == "GET https://api.example.com/users/1 → 200 OK, 312 bytes in 4.1 ms")
        #expect(
            TransferProgress(completedBytes: 1_048_576, expectedBytes: 209_715_200).description
                == "1048576 of 209715200 bytes")
        #expect(
            TransferProgress(completedBytes: 10_485_760, expectedBytes: 104_857_600, event: .resuming).description
                == "10485760 of 104857600 bytes, resuming")
    }

    /// "`Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` always (`Redaction.secrets`), plus the
    /// names you pass".
    @Test func curlCommandsHideTheFourSecretsWhateverNamesArePassed() throws {
        for secret in ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"] {
            #expect(Redaction.default.redactsHeader(secret))
        }
        let request = APIRequest(try #require(URL(string: "https://api.example.com/users/1")))
            .header("Authorization", "Bearer t0k3n-a").header("Proxy-Authorization", "Basic t0k3n-b")
            .header("Cookie", "id=t0k3n-c").header("Set-Cookie", "id=t0k3n-d").header("X-API-Key", "t0k3n-e")
        let command = try request.curlCommand(redacting: ["X-API-Key"])
        #expect(command.hasPrefix("curl "))
        #expect(!command.contains("t0k3n"), "a secret leaked: \(command)")
    }

    // MARK: - Contributing

    @Test func ciRunsWhatCONTRIBUTINGLists() throws {
        let ci = try Self.text(".ci/run")
        for step in [
            "swift build 2>&1", "if ! bounded 900 swift test 2>&1", "swift test, second run",
            "grep -nE \"(^|: )warning: \"",
            "swift format lint --strict -r Package.swift Sources Tests", "swift test --enable-code-coverage",
            "\"$llvm_cov\" report", "exit !(total < 90)", "Scripts/docs", "swift test --sanitize=thread",
            "halt_on_error=1", "FETCH_HEAVY_TESTS=1 swift test --filter", "Fuzz/run -t 30", "swift run fetch-example",
            "swift run -c release fetch-bench --quick",
        ] {
            #expect(ci.contains(step), "CONTRIBUTING.md says CI runs \(step)")
        }
        // The concurrency-heavy suites CONTRIBUTING.md lists, by the names .ci/run filters them with.
        let suites = ci.split(separator: "\n").filter { $0.hasPrefix("suites") }.joined()
        for suite in [
            "Pipeline", "Session", "Redirect", "Deduplicating", "Caching", "Transfer", "ResumableDownload",
            "Recording", "Retrying", "Authenticating", "Adapting", "Observing", "TestScheduler",
        ] {
            #expect(suites.contains(suite), "the Thread Sanitizer step does not run \(suite)")
        }
        let docs = try Self.text("Scripts/docs")
        #expect(docs.contains("--warnings-as-errors"))
        #expect(docs.contains("undocumented_symbols.py"))
    }

    /// "Tests that bound the process's memory skip themselves under TSan", and the soak tests skip the plain run.
    @Test func memoryBoundTestsSkipThemselvesUnderThreadSanitizerAndSoakTestsThePlainRun() throws {
        let tests = Self.root.appending(path: "Tests/FetchTests")
        let enumerator = try #require(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil))
        let files = try enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
            .map { (name: $0.lastPathComponent, source: try String(contentsOf: $0, encoding: .utf8)) }
        let measuring = files.filter { $0.source.contains("residentBytes()") || $0.source.contains("MemoryMeter.") }
        #expect(measuring.count >= 3)
        for file in measuring where !file.source.contains("HeavyTests.areEnabled") {
            #expect(file.source.contains("ThreadSanitizer.isActive"), "\(file.name) measures memory under TSan")
        }
        let ci = try Self.text(".ci/run")
        for heavy in ["CurlSoak", "LargeStream", "ResumableDownloadProcess"] {
            let file = try #require(files.first { $0.name == "\(heavy)Tests.swift" })
            #expect(file.source.contains("HeavyTests.areEnabled"), "\(heavy) runs in the plain swift test")
            #expect(ci.contains(heavy))
        }
    }

    /// The fuzz targets CONTRIBUTING.md describes, one per parser of outside input.
    @Test func theFuzzTargetsAreTheOnesCONTRIBUTINGDescribes() throws {
        let corpus = try FileManager.default.contentsOfDirectory(atPath: Self.root.appending(path: "Fuzz/Corpus").path)
        #expect(
            Set(corpus) == [
                "PercentEncoding", "HeaderValidation", "MultipartBody", "HTTPDate", "RetryAfter", "CacheControl",
                "ServerSentEvent", "ResponseHead", "WireNumber", "DiskResponseFile", "WebSocketFrames", "HARRedaction",
                "TraceContext",
            ])
        let run = try Self.text("Fuzz/run")
        #expect(run.contains("-artifact_prefix=\"Fuzz/Reproducers/$target/\""))
    }
}
