import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Resumable downloads against servers that cannot be trusted: a 206 of another version, a 206 of another range,
/// a `Content-Range` that does not parse, and symbolic links planted where the partial files go.
@Suite struct ResumableDownloadHostileTests {
    /// The query that makes the server's 206 carry `template` as its `Content-Range`.
    static func contentRange(_ template: String) -> String {
        "content_range=" + (template.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? template)
    }

    let server: ResumeServer
    let transfers: Session
    let directory: TemporaryDirectory

    init() throws {
        server = try ResumeServer()
        transfers = try transferPerformer(.urlSession)
        directory = try TemporaryDirectory()
    }

    func download(_ url: URL, to destination: URL) async throws -> (Response, [TransferProgress]) {
        let transfer = transfers.download(
            TestRequest(url), to: destination, resumption: ResumableDownloadTests.resumption())
        var values: [TransferProgress] = []
        for await value in transfer.progress {
            values.append(value)
        }
        return (try await transfer.value, values)
    }

    @Test func a206OfAnotherVersionIsNotSplicedAndTheDownloadStartsOverWithTheWholeNewVersion() async throws {
        let size = 3 << 20
        // The first connection drops after 1 MiB, the resource then changes, and the server honours the Range of the
        // next request although its If-Range names the old version.
        let (id, url) = server.resource(
            "size=\(size)&drop=\(1 << 20)&drops=1&change_at=\(1 << 20)&ignore_if_range=1")
        let destination = directory.url.appending(path: "changed.bin")

        let (response, values) = try await download(url, to: destination)

        #expect(response.status == 200)
        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size, version: 2)))
        let stats = try await server.stats(id)
        #expect(stats.requests.map(\.status) == [200, 206, 200])
        #expect(stats.requests.map(\.range) == [nil, "bytes=\(1 << 20)-", nil])
        #expect(values.contains { $0.event == .restarting(.resourceChanged) && $0.completedBytes == 0 })
    }

    @Test(arguments: [
        "range_shift=1",
        ResumableDownloadHostileTests.contentRange("bytes +{start}-{end}/{size}"),
        ResumableDownloadHostileTests.contentRange("bytes {start}-99999999999999999999/*"),
        ResumableDownloadHostileTests.contentRange("bytes {start}-{end}/99999999999999999999"),
        ResumableDownloadHostileTests.contentRange("bytes {start}-{end}/{start}"),
        ResumableDownloadHostileTests.contentRange("bytes {end}-{start}/{size}"),
        ResumableDownloadHostileTests.contentRange("bytes {start}-{end}/7"),
    ])
    func a206WhoseContentRangeIsNotTheOneAskedForStartsOverWithAFullGET(query: String) async throws {
        let size = 2 << 20
        let (id, url) = server.resource("size=\(size)&drop=\(1 << 20)&drops=1&\(query)")
        let destination = directory.url.appending(path: "range.bin")

        let (response, values) = try await download(url, to: destination)

        #expect(response.status == 200)
        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size)))
        let stats = try await server.stats(id)
        #expect(stats.requests.map(\.status) == [200, 206, 200])
        #expect(stats.requests.last?.range == nil)
        #expect(values.contains { $0.event == .restarting(.rangesNotSupported) && $0.completedBytes == 0 })
    }

    @Test(arguments: ["restarted.bin.part", "restarted.bin.part.json"])
    func aSymbolicLinkPlantedAtAPartialPathIsNotFollowedAndTheDownloadFailsClearly(planted: String) async throws {
        let (id, url) = server.resource("size=\(1 << 20)")
        let destination = directory.url.appending(path: "restarted.bin")
        let victim = directory.url.appending(path: "victim.txt")
        try Data("precious".utf8).write(to: victim)
        let link = directory.url.appending(path: planted)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)

        let transfer = transfers.download(
            TestRequest(url), to: destination, resumption: ResumableDownloadTests.resumption())
        let error = try await ResumableDownloadTests.failure(of: transfer)

        guard case .invalidRequest(let reason) = error.fetchKind else {
            Issue.record("expected .invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("GET \(url.absoluteString)"))
        #expect(reason.contains("\(link.path) is a symbolic link"))
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == victim.path)
        #expect(try await server.stats(id).requests.isEmpty)
    }

    @Test func thePartialFileAndItsRecordAreOwnerOnly() async throws {
        let (_, url) = server.resource("size=\(2 << 20)&stall_at=\(1 << 20)&stall_ms=300000")
        let destination = directory.url.appending(path: "private.bin")
        // The partial file is made before the download returns; its record once the response has arrived.
        let call = PermissiveUmask.around {
            transfers.download(
                TestRequest(url, timeout: 600), to: destination, resumption: ResumableDownloadTests.resumption())
        }
        var progress = call.progress.makeAsyncIterator()
        _ = await progress.next()
        call.cancel()
        await #expect(throws: FetchError.self) { try await call.value }

        for file in [
            DownloadResumption.partialFile(for: destination), directory.url.appending(path: "private.bin.part.json"),
        ] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(file.lastPathComponent)")
        }
    }

    @Test func a206ToARequestForTheWholeResourceFailsTheIntegrityCheckAndKeepsNothing() async throws {
        let (id, url) = server.resource("size=\(1 << 20)&always_206=1")
        let destination = directory.url.appending(path: "unasked.bin")
        let transfer = transfers.download(
            TestRequest(url), to: destination, resumption: ResumableDownloadTests.resumption())

        let error = try await ResumableDownloadTests.failure(of: transfer)

        guard case .integrityCheckFailed(let failedURL, let reason, _) = error.fetchKind else {
            Issue.record("expected .integrityCheckFailed, got \(error)")
            return
        }
        #expect(failedURL == url)
        #expect(reason.contains("206 Partial Content (Content-Range bytes 0-1048575/1048576)"))
        #expect(try await server.stats(id).requests.map(\.range) == [nil])
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: DownloadResumption.partialFile(for: destination).path))
    }

    @Test func a206WithMoreBytesThanItsContentRangeFailsTheIntegrityCheckAtTheFirstExtraByte() async throws {
        let size = 2 << 20
        let (id, url) = server.resource("size=\(size)&drop=\(1 << 20)&drops=1&overlong=4096")
        let destination = directory.url.appending(path: "overlong.bin")
        let transfer = transfers.download(
            TestRequest(url), to: destination, resumption: ResumableDownloadTests.resumption())

        let error = try await ResumableDownloadTests.failure(of: transfer)

        guard case .integrityCheckFailed(_, let reason, _) = error.fetchKind else {
            Issue.record("expected .integrityCheckFailed, got \(error)")
            return
        }
        #expect(reason.contains("more than the \(size) bytes it announced"))
        #expect(try await server.stats(id).requests.map(\.status) == [200, 206])
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: DownloadResumption.partialFile(for: destination).path))
    }

    /// A resumable download of `url` to `destination` on `transport`, with at most `attempts` attempts in a row
    /// without progress: its progress values, and its value or error. A download that restarts more than `bound`
    /// times is cancelled, so that a regression ends the test instead of hanging it.
    func download(
        _ url: URL, to destination: URL, on transport: SessionTransport, attempts: Int = 3,
        restartsAtMost bound: Int = 40
    ) async throws -> (result: Result<Response, any Error>, values: [TransferProgress]) {
        let transfer = try transferPerformer(transport).download(
            TestRequest(url), to: destination, resumption: ResumableDownloadTests.resumption(attempts: attempts))
        var values: [TransferProgress] = []
        var cancelled = false
        for await value in transfer.progress {
            values.append(value)
            if !cancelled, values.count(where: { $0.event != nil }) > bound {
                cancelled = true
                Issue.record("more than \(bound) restarts and resumptions: the download does not end")
                transfer.cancel()
            }
        }
        return (await Result { try await transfer.value }, values)
    }

    @Test(arguments: SessionTransport.allCases)
    func aWeakETagAndALastModifiedEqualToDateStartOverInsteadOfSplicingTwoVersions(
        transport: SessionTransport
    ) async throws {
        // The connection drops at 400 kB, the resource changes within the second its Last-Modified names, and the
        // server would honour an If-Range of that date with a 206 of the new version.
        let size = 1_000_000
        let (id, url) = server.resource("size=\(size)&validator=weak&drop=400000&drops=1&change_at=400000")
        let destination = directory.url.appending(path: "weak-\(transport.rawValue).bin")

        let (result, values) = try await download(url, to: destination, on: transport)

        let response = try result.get()
        #expect(response.status == 200)
        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size, version: 2)))
        let stats = try await server.stats(id)
        #expect(stats.requests.map(\.status) == [200, 200])
        #expect(stats.requests.map(\.range) == [nil, nil])
        #expect(stats.requests.map(\.ifRange) == [nil, nil])
        #expect(values.contains { $0.event == .restarting(.noValidator) && $0.completedBytes == 0 })
    }

    @Test(arguments: SessionTransport.allCases)
    func a206WhoseContentLengthIsLongerThanItsContentRangeFailsAndKeepsNothing(
        transport: SessionTransport
    ) async throws {
        // Every connection drops at 400 kB; every resumption is a 206 that announces 200 kB more than its range.
        let (id, url) = server.resource("size=1000000&drop=400000&overlong_cl=200000")
        let destination = directory.url.appending(path: "overlong-cl-\(transport.rawValue).bin")

        let (result, _) = try await download(url, to: destination, on: transport, attempts: 5)

        guard case .integrityCheckFailed(_, let reason, _) = result.failureKind else {
            Issue.record("expected .integrityCheckFailed, got \(result)")
            return
        }
        #expect(reason.contains("announces 800000 bytes (Content-Length) for the 600000 of its Content-Range"))
        #expect(try await server.stats(id).requests.map(\.status) == [200, 206])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!left.contains { $0.hasPrefix("overlong-cl-\(transport.rawValue)") }, "\(left)")
    }

    @Test(arguments: SessionTransport.allCases)
    func aServerThatDropsAtTheSameByteAndAnswersEachResumptionWithAnUntrustedRangeIsTriedABoundedNumberOfTimes(
        transport: SessionTransport
    ) async throws {
        // Each connection drops at 400 kB, and each resumption is a 206 whose Content-Range is not the one asked
        // for: each start-over gets as far as the last one, which is no progress.
        let attempts = 5
        let (id, url) = server.resource("size=1000000&drop=400000&range_shift=1")
        let destination = directory.url.appending(path: "same-byte-\(transport.rawValue).bin")

        let (result, _) = try await download(url, to: destination, on: transport, attempts: attempts)

        guard case .attemptsExhausted(let made, _, _) = result.failureKind else {
            Issue.record("expected .attemptsExhausted, got \(result)")
            return
        }
        let requests = try await server.stats(id).requests
        #expect(made == requests.count)
        #expect(requests.count <= 2 * attempts, "\(requests.map(\.status))")
    }
}
