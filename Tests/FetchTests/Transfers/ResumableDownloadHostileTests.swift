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

        guard case .invalidRequest(let reason) = error else {
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
            transfers.download(TestRequest(url), to: destination, resumption: ResumableDownloadTests.resumption())
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

        guard case .integrityCheckFailed(let failedURL, let reason, _) = error else {
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

        guard case .integrityCheckFailed(_, let reason, _) = error else {
            Issue.record("expected .integrityCheckFailed, got \(error)")
            return
        }
        #expect(reason.contains("more than the \(size) bytes it announced"))
        #expect(try await server.stats(id).requests.map(\.status) == [200, 206])
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: DownloadResumption.partialFile(for: destination).path))
    }
}
