// The code samples of the "Building requests" article (Fetch.docc/BuildingRequests.md), compiled here so that they
// cannot rot.

import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Order: Decodable, Parsable {
    let id: Int
}

struct Token: Decodable, Parsable {
    let accessToken: String
}

struct Photo: Decodable, Parsable {
    let id: Int
}

// DOC-BEGIN
struct Product: Decodable, Parsable {
    let id: String
    let name: String
}

enum Shop: Endpoint {
    case product(id: String)
    case search(text: String, page: Int)
    case orders

    var baseURL: URL { URL(string: "https://shop.example.com/api/v1")! }

    var pathSegments: [String] {
        switch self {
        case .product(let id): ["products", id]
        case .search: ["products", "search"]
        case .orders: ["orders"]
        }
    }

    var queryItems: [URLQueryItem] {
        switch self {
        case .search(let text, let page):
            [URLQueryItem(name: "q", value: text), URLQueryItem(name: "page", value: String(page))]
        case .product, .orders:
            []
        }
    }
}
// DOC-END

func buildingRequestsSamples(session: Session, token: String, photoURL: URL) async throws {
    // DOC-BEGIN
    let product: Product = try await session.perform(APIRequest(Shop.product(id: "tea/green 500g")))
    // GET https://shop.example.com/api/v1/products/tea%2Fgreen%20500g

    let results: [Product] = try await session.perform(
        APIRequest(Shop.search(text: "milk & honey", page: 2))
            .query("sort", "price+")
            .header(.accept("application/json"))
    )
    // GET https://shop.example.com/api/v1/products/search?q=milk%20%26%20honey&page=2&sort=price%2B
    // DOC-END
    _ = (product, results)

    // DOC-BEGIN
    struct NewOrder: Encodable {
        let productID: String
        let quantity: Int
    }

    let order: Order = try await session.perform(
        APIRequest(Shop.orders)
            .method(.post)
            .header(.authorization(bearerToken: token))
            .jsonBody(NewOrder(productID: "tea-1", quantity: 2))
    )
    // DOC-END
    _ = order

    // DOC-BEGIN
    let login: Token = try await session.perform(
        APIRequest(baseURL)
            .path("oauth", "token")
            .method(.post)
            .formBody(["grant_type": "password", "username": "ada", "password": "p@ss w0rd+"])
    )
    // body: grant_type=password&username=ada&password=p%40ss+w0rd%2B
    // DOC-END
    _ = login

    // DOC-BEGIN
    let form = MultipartBody()
        .field("caption", "Sunset, Brighton")
        .file("photo", contentsOf: photoURL, contentType: "image/jpeg")

    let photo: Photo = try await session.perform(
        APIRequest(baseURL).path("photos").method(.post).multipartBody(form)
    )
    // DOC-END
    _ = photo
}

@Test func theBuildingRequestsCommentsShowWhatIsSent() throws {
    let product = try APIRequest(Shop.product(id: "tea/green 500g")).makeURLRequest()
    #expect(product.url?.absoluteString == "https://shop.example.com/api/v1/products/tea%2Fgreen%20500g")
    let search = try APIRequest(Shop.search(text: "milk & honey", page: 2)).query("sort", "price+").makeURLRequest()
    #expect(
        search.url?.absoluteString
            == "https://shop.example.com/api/v1/products/search?q=milk%20%26%20honey&page=2&sort=price%2B"
    )
    let login = APIRequest(baseURL).formBody(["grant_type": "password", "username": "ada", "password": "p@ss w0rd+"])
    #expect(login.body == Data("grant_type=password&username=ada&password=p%40ss+w0rd%2B".utf8))
}

// DOC-BEGIN
struct Catalog: Endpoint {
    let baseURL: URL  // from the app's configuration: production, staging, a test server
    var pathSegments: [String]

    static func product(_ id: String, at baseURL: URL) -> Catalog {
        Catalog(baseURL: baseURL, pathSegments: ["products", id])
    }
}
// DOC-END

func runtimeBaseURL(stagingURL: URL) -> APIRequest {
    // DOC-BEGIN
    let staging = APIRequest(Catalog.product("42", at: stagingURL))
    // GET <stagingURL>/products/42
    // DOC-END
    return staging
}

@Test func anEndpointCarriesABaseURLChosenAtRunTime() throws {
    let stagingURL = try #require(URL(string: "https://staging.shop.example.com/api/v1"))
    let url = try runtimeBaseURL(stagingURL: stagingURL).makeURLRequest().url
    #expect(url?.absoluteString == "https://staging.shop.example.com/api/v1/products/42")
}

// DOC-BEGIN
struct Rename: Request {
    let url: URL
    let body: Data?
    var method: HTTPMethod { .patch }
    var headers: [String: String]? { ["Content-Type": "application/json"] }
    var timeout: TimeInterval? { 10 }

    init(baseURL: URL, id: Int, name: String) throws {
        url = baseURL.appending(path: "users/\(id)")
        body = try JSONEncoder().encode(["name": name])
    }
}
// DOC-END

// DOC-BEGIN
extension HTTPMethod {
    static let propfind = HTTPMethod(rawValue: "PROPFIND")
    static let mkcalendar = HTTPMethod(rawValue: "MKCALENDAR")
}
// DOC-END

func customMethodSample(session: any RequestPerforming) async throws -> (String, EmptyResponse) {
    // DOC-BEGIN
    let query = Data(#"<?xml version="1.0"?><propfind xmlns="DAV:"><allprop/></propfind>"#.utf8)
    let listing: String = try await session.perform(
        APIRequest(baseURL)
            .path("calendars", "ada")
            .method(.propfind)
            .header("Depth", "1")
            .body(query, contentType: "application/xml; charset=utf-8")
    )
    let created: EmptyResponse = try await session.perform(
        APIRequest(baseURL).path("calendars", "ada", "work").method(.mkcalendar)
    )
    // DOC-END
    return (listing, created)
}

@Test func customMethodsAndRawBodiesAreSentAsGiven() async throws {
    let mock = MockPerformer { _ in MockResponse(status: 207, headers: [:], data: Data("<multistatus/>".utf8)) }
    let spy = SpyPerformer(forwardingTo: mock)
    let (listing, _) = try await customMethodSample(session: spy)
    #expect(listing == "<multistatus/>")
    let sent = try spy.requests.map { try $0.makeURLRequest() }
    try #require(sent.count == 2)
    #expect(sent.map(\.httpMethod) == ["PROPFIND", "MKCALENDAR"])
    #expect(sent[0].url?.path == "/calendars/ada")
    #expect(sent[0].value(forHTTPHeaderField: "Content-Type") == "application/xml; charset=utf-8")
    #expect(sent[0].value(forHTTPHeaderField: "Depth") == "1")
    #expect(sent[0].httpBody.map { String(decoding: $0, as: UTF8.self) }?.hasPrefix("<?xml") == true)
}

// DOC-BEGIN
struct Maintenance: Error {
    let message: String
}

struct MaintenanceParser: ErrorParsing {
    func parseError(from response: Response) -> (any Error)? {
        guard response.status == 503, let data = response.data else {
            return nil
        }
        let retryAfter = response.headers["Retry-After"] ?? "later"
        return Maintenance(message: String(decoding: data, as: UTF8.self) + " (retry \(retryAfter))")
    }
}
// DOC-END

// DOC-BEGIN
struct CSVTable: Parsable {
    let rows: [[String]]

    static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<CSVTable, any Error> {
        response.requireSuccess(errorParser: errorParser).map { response in
            let text = String(decoding: response.data ?? Data(), as: UTF8.self)
            return CSVTable(rows: text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) })
        }
    }
}
// DOC-END

@Test func aCustomParsableFailsOnANon2xxThroughTheErrorParser() throws {
    let request = APIRequest(baseURL).path("report.csv")
    let down = MockPerformer { _ in MockResponse(status: 503, headers: [:], data: Data("back at 6".utf8)) }
    let maintenance = Captured<Result<CSVTable, any Error>>()
    down.perform(request, errorParser: MaintenanceParser(), completion: maintenance.capture)
    #expect(throws: Maintenance.self) { try maintenance.value?.get() }

    let missing = MockPerformer { _ in MockResponse(status: 404, headers: [:], data: Data("no".utf8)) }
    let unacceptable = Captured<Result<CSVTable, any Error>>()
    missing.perform(request, errorParser: MaintenanceParser(), completion: unacceptable.capture)
    guard case .failure(let error as FetchError)? = unacceptable.value, error.code == .unacceptableStatus else {
        Issue.record("expected unacceptableStatus, got \(String(describing: unacceptable.value))")
        return
    }
    #expect(error.response?.status == 404)

    let table = MockPerformer { _ in MockResponse(status: 200, headers: [:], data: Data("a,b\nc,d".utf8)) }
    let rows = Captured<Result<CSVTable, any Error>>()
    table.perform(request, completion: rows.capture)
    #expect(try rows.value?.get().rows == [["a", "b"], ["c", "d"]])
}
