import Fetch
import Foundation
import Testing

@Suite struct EndpointTests {
    enum API: Endpoint {
        case user(String)
        case search(String)
        case createUser

        var baseURL: URL { URL(string: "https://api.example.com/v2/") ?? URL(fileURLWithPath: "/") }

        var pathSegments: [String] {
            switch self {
            case .user(let name): ["users", name]
            case .search: ["search"]
            case .createUser: ["users"]
            }
        }

        var queryItems: [URLQueryItem] {
            switch self {
            case .search(let text): [URLQueryItem(name: "q", value: text)]
            case .user, .createUser: []
            }
        }

        var method: HTTPMethod {
            switch self {
            case .createUser: .post
            case .user, .search: .get
            }
        }
    }

    struct Composed: Endpoint {
        let baseURL: URL
        let pathSegments: [String]
        var queryItems: [URLQueryItem] = []
    }

    func url(_ base: String, _ segments: [String], _ query: [URLQueryItem] = []) throws -> String {
        let base = try #require(URL(string: base))
        return try Composed(baseURL: base, pathSegments: segments, queryItems: query).url().absoluteString
    }

    @Test(arguments: [
        "https://api.example.com", "https://api.example.com/", "https://api.example.com/v2",
        "https://api.example.com/v2/",
    ])
    func joinsTheBaseAndThePathWithExactlyOneSlash(base: String) throws {
        let expected = base.hasSuffix("/") ? base + "users/7" : base + "/users/7"
        #expect(try url(base, ["users", "7"]) == expected)
    }

    @Test func encodesEachSegmentOnItsOwn() throws {
        #expect(
            try url("https://h.test/", ["files", "a/b c", "x+y&z=1#2?3", "Zoë ☕︎"])
                == "https://h.test/files/a%2Fb%20c/x%2By%26z%3D1%232%3F3/Zo%C3%AB%20%E2%98%95%EF%B8%8E"
        )
    }

    @Test func aFinalEmptySegmentAddsATrailingSlash() throws {
        #expect(try url("https://h.test/api", ["users", ""]) == "https://h.test/api/users/")
    }

    @Test func noSegmentsAndNoQueryLeaveTheBaseAsItIs() throws {
        #expect(try url("https://h.test/api/?k=v", []) == "https://h.test/api/?k=v")
    }

    @Test(arguments: [["users", "", "7"], ["..", "admin"], ["users", "."]])
    func segmentsThatWouldChangeThePathAreRejected(segments: [String]) throws {
        let error = try #require(throws: FetchError.self) { try url("https://h.test/api", segments) }
        guard case .invalidRequest(let reason) = error.fetchKind else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("https://h.test/api"))
        #expect(reason.contains("double a slash") || reason.contains("resolved to another path"))
    }

    @Test func aBaseURLWithoutASchemeIsRejected() throws {
        let error = try #require(throws: FetchError.self) { try url("api.example.com/v1", ["users"]) }
        #expect(error.description.contains("not absolute"))
    }

    @Test func encodesQueryNamesAndValuesEntirely() throws {
        let query = [
            URLQueryItem(name: "q", value: "a+b & c=d #e /f"),
            URLQueryItem(name: "naïve key", value: "日本"),
            URLQueryItem(name: "flag", value: nil),
            URLQueryItem(name: "empty", value: ""),
        ]
        #expect(
            try url("https://h.test/s", [], query)
                == "https://h.test/s?q=a%2Bb%20%26%20c%3Dd%20%23e%20%2Ff&na%C3%AFve%20key=%E6%97%A5%E6%9C%AC&flag&empty="
        )
    }

    @Test func keepsTheBaseURLsQueryItemsAndFragment() throws {
        let query = [URLQueryItem(name: "page", value: "2")]
        #expect(
            try url("https://h.test/v1?key=a%2Bb&x#top", ["list"], query)
                == "https://h.test/v1/list?key=a%2Bb&x&page=2#top"
        )
    }

    @Test func anEnumOfEndpointsSharesItsBaseURL() throws {
        #expect(try API.user("ada lovelace").url().absoluteString == "https://api.example.com/v2/users/ada%20lovelace")
        #expect(
            try API.search("swift+linux").url().absoluteString == "https://api.example.com/v2/search?q=swift%2Blinux")
        #expect(API.user("ada").method == .get)
        #expect(API.createUser.method == .post)
    }
}
