import FetchTesting
import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stored responses for the store tests.
enum StoredResponses {
    static let requestTime = Date(timeIntervalSince1970: 1_767_225_600)

    static func make(
        _ path: String,
        body: String = "{\"hello\":\"world\"}",
        headers: HeaderFields = ["Cache-Control": "max-age=60", "Content-Type": "application/json"],
        varying: [String: String?] = [:]
    ) -> StoredResponse {
        let url = URL(string: "https://api.example.com\(path)")
        return StoredResponse(
            key: url?.absoluteString ?? path,
            status: 200,
            headers: headers,
            data: Data(body.utf8),
            url: url,
            varyingValues: varying,
            requestTime: requestTime,
            responseTime: requestTime.addingTimeInterval(0.25)
        )
    }

    static func request(_ path: String, headers: [String: String] = [:]) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com\(path)")))
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }
}

@Suite struct DiskResponseStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func store(limit: Int = 1 << 20) throws -> DiskResponseStore {
        try DiskResponseStore(directory: directory.url, limit: limit)
    }

    func entryFile(_ path: String) -> URL {
        directory.url.appendingPathComponent(DiskResponseStore.fileName(for: "https://api.example.com\(path)"))
    }

    @Test func repeatedFieldsStayApartInTheirOrderAcrossADiskRoundTrip() throws {
        let headers = HeaderFields([
            ("Cache-Control", "max-age=60"), ("Link", "</one>; rel=next"), ("x-amz-date", "20370101T000000Z"),
            ("link", "</two>; rel=last"),
        ])
        let original = StoredResponses.make("/users/1", headers: headers)
        try store().insert(original)
        let read = try #require(
            try store().response(for: original.key, matching: StoredResponses.request("/users/1")))
        #expect(read.headers == headers)
        #expect(read.headers.map(\.name) == ["Cache-Control", "Link", "x-amz-date", "link"])
        #expect(read.headers.values(for: "Link") == ["</one>; rel=next", "</two>; rel=last"])
    }

    @Test func aNotModifiedReplacesEveryStoredFieldOfANameItSendsAndKeepsItsOwnRepeatedFieldsApart() throws {
        let stored = StoredResponses.make(
            "/users/1",
            headers: HeaderFields([
                ("Cache-Control", "max-age=60"), ("Link", "</old-1>"), ("ETag", #""v1""#), ("link", "</old-2>"),
            ]))
        let notModified = Response(
            status: 304, headers: HeaderFields([("LINK", "</new-1>"), ("LINK", "</new-2>")]),
            originalRequest: TestRequest("https://api.example.com/users/1"))
        let refreshed = stored.refreshed(
            by: notModified, requestTime: StoredResponses.requestTime, responseTime: StoredResponses.requestTime,
            isShared: false)
        #expect(refreshed.headers.values(for: "Link") == ["</new-1>", "</new-2>"])
        #expect(refreshed.headers["etag"] == #""v1""#)
        #expect(refreshed.headers["Cache-Control"] == "max-age=60")
    }

    @Test func aSecondStoreOnTheDirectoryAnswersWithTheSameResponse() throws {
        let original = StoredResponses.make("/users/1", varying: ["accept-language": "fr", "x-absent": nil])
        try store().insert(original)

        let reopened = try store()
        let found = try #require(
            reopened.response(
                for: original.key, matching: StoredResponses.request("/users/1", headers: ["Accept-Language": "fr"])))

        #expect(found.key == original.key)
        #expect(found.status == 200)
        #expect(found.headers == original.headers)
        #expect(found.data == original.data)
        #expect(found.url == original.url)
        #expect(found.varyingValues == original.varyingValues)
        #expect(found.requestTime == original.requestTime)
        #expect(found.responseTime == original.responseTime)
        #expect(found.freshnessLifetime == 60)
        #expect(reopened.count == 1)
        #expect(try reopened.response(for: original.key, matching: StoredResponses.request("/users/1")) == nil)
    }

    @Test func aResponseWithoutBodyKeepsItsNilBody() throws {
        let original = StoredResponse(
            key: "https://api.example.com/empty", status: 200, headers: ["ETag": "\"1\""], data: nil, url: nil,
            varyingValues: [:], requestTime: StoredResponses.requestTime, responseTime: StoredResponses.requestTime)
        try store().insert(original)
        let found = try #require(try store().response(for: original.key, matching: StoredResponses.request("/empty")))
        #expect(found.data == nil)
        #expect(found.url == nil)
    }

    @Test(arguments: ["truncated", "flipped", "otherKey", "foreignFormat", "empty"])
    func aDamagedFileIsSkippedAndRemovedOnlyWhenItIsProvablyTheStores(damage: String) throws {
        let store = try store()
        let original = StoredResponses.make("/users/2")
        store.insert(original)
        let file = entryFile("/users/2")
        var contents = try Data(contentsOf: file)
        switch damage {
        case "truncated":
            contents = contents.prefix(contents.count - 10)
        case "flipped":
            contents[contents.count / 2] ^= 0x01
        case "foreignFormat":
            contents = Data("PNG\r\n and then some bytes that are not a stored response at all, but long enough".utf8)
        case "otherKey":
            contents = try #require(DiskResponseStore.encode(StoredResponses.make("/users/3")))
        default:
            contents = Data()
        }
        try contents.write(to: file)

        #expect(try store.response(for: original.key, matching: StoredResponses.request("/users/2")) == nil)
        if ["foreignFormat", "empty"].contains(damage) {
            // Without the store's magic, the file may be someone else's: left as it is, never served.
            #expect(try Data(contentsOf: file) == contents)
            store.insert(original)
            #expect(try Data(contentsOf: file) == contents, "not replaced either")
        } else {
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
        #expect(store.count == 0)
        #expect(store.bytes == 0)
    }

    @Test func freshTemporaryFilesAreKeptAndAbandonedOnesRemoved() throws {
        let name = DiskResponseStore.fileName(for: "https://api.example.com/users/1")
        let writing = directory.url.appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
        let abandoned = directory.url.appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
        try Data("half".utf8).write(to: writing)
        try Data("half".utf8).write(to: abandoned)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: abandoned.path)

        let store = try store()

        #expect(FileManager.default.fileExists(atPath: writing.path))
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(store.count == 0)
    }

    @Test func evictsTheLeastRecentlyUsedAcrossAReopen() throws {
        let size = try #require(DiskResponseStore.encode(StoredResponses.make("/a"))).count
        let first = try store(limit: size * 3)
        first.insert(StoredResponses.make("/a"))
        first.insert(StoredResponses.make("/b"))
        first.insert(StoredResponses.make("/c"))
        _ = try first.response(for: "https://api.example.com/a", matching: StoredResponses.request("/a"))
        first.insert(StoredResponses.make("/d"))

        #expect(!FileManager.default.fileExists(atPath: entryFile("/b").path))
        #expect(first.count == 3)

        let reopened = try store(limit: size * 2)
        #expect(reopened.count == 2)
        #expect(reopened.bytes <= size * 2)
        #expect(FileManager.default.fileExists(atPath: entryFile("/d").path))
    }

    @Test func theSizeBoundHoldsAfterTenThousandInserts() throws {
        // In memory where Linux offers it (/dev/shm): on a disk mounted with `discard`, each of the thousands of
        // evictions costs milliseconds, and the bound does not depend on the file system.
        let shared = URL(fileURLWithPath: "/dev/shm")
        let base = FileManager.default.isWritableFile(atPath: shared.path) ? shared : directory.url
        let storeDirectory = base.appendingPathComponent("fetch-disk-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: storeDirectory) }  // nil: best-effort clean-up
        let limit = 256 << 10
        let store = try DiskResponseStore(directory: storeDirectory, limit: limit)
        for index in 0..<10_000 {
            store.insert(
                StoredResponses.make("/items/\(index % 3000)", body: String(repeating: "x", count: index % 700)))
        }

        #expect(store.bytes <= limit)
        let names = try FileManager.default.contentsOfDirectory(atPath: storeDirectory.path)
        let onDisk = try names.reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(
                atPath: storeDirectory.appendingPathComponent(name).path)
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
        #expect(onDisk <= limit)
        #expect(Set(names.filter { !$0.hasSuffix(".response") }) == [DiskResponseStore.saltFileName])
        #expect(names.count - 1 == store.count)
        let last = try #require(
            try store.response(
                for: "https://api.example.com/items/999", matching: StoredResponses.request("/items/999")))
        #expect(last.data?.count == 9999 % 700)
        #expect(
            try store.response(
                for: "https://api.example.com/items/1000", matching: StoredResponses.request("/items/1000")) == nil)
    }

    @Test func twoStoresWritingTheSameKeysConcurrentlyLeaveOnlyWholeResponses() async throws {
        let stores = [try store(), try store()]
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for round in 0..<150 {
                        let body = String(repeating: Character(UnicodeScalar(UInt8(97 + writer))), count: 500 + round)
                        stores[writer % 2].insert(StoredResponses.make("/shared/\(round % 10)", body: body))
                    }
                }
            }
        }
        let reader = try store()
        for key in 0..<10 {
            let found = try #require(
                try reader.response(
                    for: "https://api.example.com/shared/\(key)", matching: StoredResponses.request("/shared/\(key)")))
            let body = String(decoding: found.data ?? Data(), as: UTF8.self)
            #expect(Set(body).count == 1 && body.count >= 500)
        }
    }

    @Test func theLayeredStoreAnswersFromMemoryFirstAndKeepsParsedValuesThere() throws {
        let disk = try store()
        let writer = LayeredResponseStore(memory: ResponseStore(limit: 1 << 20), disk: disk)
        writer.insert(StoredResponses.make("/users/4"))

        let layered = LayeredResponseStore(memory: ResponseStore(limit: 1 << 20), disk: try store())
        let request = try StoredResponses.request("/users/4")
        let fromDisk = try #require(layered.response(for: "https://api.example.com/users/4", matching: request))
        #expect(layered.memory.count == 1)
        let caller = TestRequest(try #require(request.url))
        let parsed = try fromDisk.response(answering: caller).parsed(as: Greeting.self, errorParser: nil).get()
        try FileManager.default.removeItem(at: entryFile("/users/4"))

        let fromMemory = try #require(layered.response(for: "https://api.example.com/users/4", matching: request))
        let again = try fromMemory.response(answering: caller).parsed(as: Greeting.self, errorParser: nil).get()
        #expect(parsed.hello == "world")
        #expect(again.hello == "world")
        #expect(Greeting.parses.withLock { $0 } == 1)
    }
}

/// A body the layered-store test parses, counting its parses.
struct Greeting: Decodable, Parsable, Sendable {
    static let parses = Locked(0)
    let hello: String

    static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Greeting, any Error> {
        parses.withLock { $0 += 1 }
        return Result { try JSONDecoder().decode(Greeting.self, from: response.data ?? Data()) }
    }
}
