import FetchTesting
import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``CachedPerformer`` with a directory: responses outlive the performer, memory answers first, and the disk holds
/// its bound and survives damaged files.
@Suite struct CachingMiddlewareDiskTests {
    let directory: TemporaryDirectory
    let clock = TestClock()
    let url = "http://example.test/items/\(UUID().uuidString)"

    init() throws {
        directory = try TemporaryDirectory()
    }

    func makePerformer(
        _ base: any RequestPerforming,
        maximumDiskBytes: Int = 1 << 20,
        maximumBytes: Int = 1 << 20,
        offlinePolicy: ResponseCache.OfflinePolicy = .never
    ) throws -> CachedPerformer {
        try CachedPerformer(
            base,
            ResponseCache(
                directory: directory.url, maximumDiskBytes: maximumDiskBytes, maximumBytes: maximumBytes,
                offlinePolicy: offlinePolicy
            ) { [clock] in clock.now })
    }

    static func network(hit: Int = 1, cacheControl: String = "max-age=60") -> SpyPerformer {
        SpyPerformer(
            forwardingTo: MockPerformer { _ in
                MockResponse(
                    headers: ["Cache-Control": cacheControl, "ETag": #""v\#(hit)""#],
                    data: Data(#"{"hit": \#(hit)}"#.utf8))
            })
    }

    static let offline = MockPerformer { _ in throw URLError(.notConnectedToInternet) }

    func perform<T: Parsable>(_ performer: CachedPerformer, as type: T.Type = T.self) throws -> T {
        let result = Captured<Result<T, any Error>>()
        performer.perform(TestRequest(url), completion: result.capture)
        return try #require(result.value).get()
    }

    var entryFile: URL {
        directory.url.appendingPathComponent(DiskResponseStore.fileName(for: url))
    }

    @Test func aFreshResponseIsServedFromDiskByANewPerformerWithoutNetwork() throws {
        let network = Self.network()
        let first = try makePerformer(network)
        #expect(try perform(first) == Hit(hit: 1))

        let afterRestart = try makePerformer(Self.offline)
        let served: Response = try perform(afterRestart)

        #expect(try Hit.parse(response: served, errorParser: nil).get() == Hit(hit: 1))
        #expect(!served.isStale)
        #expect(network.calls.count == 1)
        #expect(afterRestart.storedResponseCount == 1)
        #expect(afterRestart.directory == directory.url)
    }

    @Test func memoryHitsSkipParsingAndADiskHitParsesOnce() throws {
        let first = try makePerformer(Self.network())
        for _ in 0..<3 {
            #expect(try perform(first, as: DiskCountedHit.self).hit == 1)
        }
        #expect(DiskCountedHit.parses.withLock { $0 } == 1, "parsed on arrival, then kept in memory")

        let afterRestart = try makePerformer(Self.offline)
        for _ in 0..<3 {
            #expect(try perform(afterRestart, as: DiskCountedHit.self).hit == 1)
        }
        #expect(DiskCountedHit.parses.withLock { $0 } == 2, "parsed once when read from disk")
    }

    @Test func withoutMemoryEveryHitIsReadFromDisk() throws {
        let network = Self.network()
        let performer = try makePerformer(network, maximumBytes: 0)
        #expect(try perform(performer) == Hit(hit: 1))
        #expect(try perform(performer) == Hit(hit: 1))
        #expect(network.calls.count == 1)

        try FileManager.default.removeItem(at: entryFile)
        #expect(try perform(performer) == Hit(hit: 1))

        #expect(network.calls.count == 2, "with the file gone, memory had nothing to answer with")
    }

    @Test(arguments: ["truncated", "garbage"])
    func aDamagedOrForeignFileIsNotServedAndTheResponseIsFetchedAgain(damage: String) throws {
        _ = try perform(try makePerformer(Self.network())) as Hit
        let contents = try Data(contentsOf: entryFile)
        let damaged = damage == "truncated" ? contents.prefix(contents.count / 2) : Data(repeating: 0x2A, count: 500)
        try damaged.write(to: entryFile)

        let network = Self.network(hit: 2)
        let afterRestart = try makePerformer(network)

        #expect(try perform(afterRestart) == Hit(hit: 2))
        #expect(network.calls.count == 1)
        let rewritten = try Data(contentsOf: entryFile)
        if damage == "truncated" {
            #expect(DiskResponseStore.decode(rewritten)?.data == Data(#"{"hit": 2}"#.utf8))
        } else {
            #expect(rewritten == damaged, "a file without the store's magic is not provably its own: left alone")
        }
    }

    @Test func theDiskBoundHolds() throws {
        let body = Data(repeating: UInt8(ascii: "x"), count: 1000)
        let network = SpyPerformer(
            forwardingTo: MockPerformer { _ in MockResponse(headers: ["Cache-Control": "max-age=60"], data: body) })
        let performer = try makePerformer(network, maximumDiskBytes: 5000)
        for index in 0..<20 {
            let result = Captured<Result<Data, any Error>>()
            performer.perform(TestRequest("http://example.test/bound/\(index)"), completion: result.capture)
            #expect(try result.value?.get() == body)
        }

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter {
            $0.hasSuffix(".response")
        }
        let onDisk = try names.reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(
                atPath: directory.url.appendingPathComponent(name).path)
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
        #expect(performer.storedBytes <= 5000)
        #expect(onDisk <= 5000)
        #expect(performer.storedResponseCount == names.count)
        #expect(names.count >= 3)
    }

    @Test func removeAllEmptiesMemoryAndDisk() throws {
        let network = Self.network()
        let performer = try makePerformer(network)
        _ = try perform(performer) as Hit

        performer.removeAll()
        _ = try perform(performer) as Hit

        #expect(network.calls.count == 2)
        #expect(performer.storedResponseCount == 1)
        performer.removeAll()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == [DiskResponseStore.saltFileName])
    }

    @Test func theOfflinePolicyAnswersFromDiskAfterARestart() throws {
        _ = try perform(try makePerformer(Self.network())) as Hit
        clock.advance(by: 86400)

        let strict = try makePerformer(Self.offline)
        let offline = try makePerformer(Self.offline, offlinePolicy: .serveStoredOnFailure)

        #expect(throws: FetchError.self) { try perform(strict) as Hit }
        let served: Response = try perform(offline)
        #expect(served.isStale)
        #expect(served.headers["Age"] == "86400")
    }

    @Test func aBackgroundRevalidationUpdatesTheFile() throws {
        let cacheControl = "max-age=60, stale-while-revalidate=60"
        _ = try perform(try makePerformer(Self.network(cacheControl: cacheControl))) as Hit
        clock.advance(by: 90)

        let network = Self.network(hit: 2, cacheControl: cacheControl)
        let stale: Response = try perform(try makePerformer(network))
        let afterRestart = try makePerformer(Self.offline)

        #expect(stale.isStale)
        #expect(try Hit.parse(response: stale, errorParser: nil).get() == Hit(hit: 1))
        #expect(network.calls.count == 1)
        #expect(
            try network.calls.first?.request.makeURLRequest().value(forHTTPHeaderField: "If-None-Match") == #""v1""#)
        #expect(try perform(afterRestart) == Hit(hit: 2))
    }

    @Test func theFluentFormTakesADirectory() throws {
        let network = Self.network()
        let performer = try CachedPerformer(network, ResponseCache(directory: directory.url, maximumDiskBytes: 1 << 20))
        _ = try perform(performer) as Hit

        #expect(performer.maximumDiskBytes == 1 << 20)
        #expect(FileManager.default.fileExists(atPath: entryFile.path))
    }
}

/// A model that counts its parses, for the disk cache's tests only (tests run in parallel).
struct DiskCountedHit: Decodable, Parsable {
    static let parses = Locked(0)

    let hit: Int

    static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<DiskCountedHit, any Error> {
        parses.withLock { $0 += 1 }
        return Result { try JSONDecoder().decode(DiskCountedHit.self, from: response.data ?? Data()) }
    }
}
