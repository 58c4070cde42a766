// The code samples of README.md's "Building requests" section, compiled here so that they cannot rot.

import Fetch
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

// README-BEGIN
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
// README-END

func buildingRequestsSamples(session: Session, token: String, photoURL: URL) async throws {
    // README-BEGIN
    let product: Product = try await session.perform(APIRequest(Shop.product(id: "tea/green 500g")))
    // GET https://shop.example.com/api/v1/products/tea%2Fgreen%20500g

    let results: [Product] = try await session.perform(
        APIRequest(Shop.search(text: "milk & honey", page: 2))
            .query("sort", "price+")
            .header(.accept("application/json"))
    )
    // GET https://shop.example.com/api/v1/products/search?q=milk%20%26%20honey&page=2&sort=price%2B
    // README-END
    _ = (product, results)

    // README-BEGIN
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
    // README-END
    _ = order

    // README-BEGIN
    let login: Token = try await session.perform(
        APIRequest(baseURL)
            .path("oauth", "token")
            .method(.post)
            .formBody(["grant_type": "password", "username": "ada", "password": "p@ss w0rd+"])
    )
    // body: grant_type=password&username=ada&password=p%40ss+w0rd%2B
    // README-END
    _ = login

    // README-BEGIN
    let form = MultipartBody()
        .field("caption", "Sunset, Brighton")
        .file("photo", contentsOf: photoURL, contentType: "image/jpeg")

    let photo: Photo = try await session.perform(
        APIRequest(baseURL).path("photos").method(.post).multipartBody(form)
    )
    // README-END
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

// README-BEGIN
struct Catalog: Endpoint {
    let baseURL: URL  // from the app's configuration: production, staging, a test server
    var pathSegments: [String]

    static func product(_ id: String, at baseURL: URL) -> Catalog {
        Catalog(baseURL: baseURL, pathSegments: ["products", id])
    }
}
// README-END

func runtimeBaseURL(stagingURL: URL) -> APIRequest {
    // README-BEGIN
    let staging = APIRequest(Catalog.product("42", at: stagingURL))
    // GET <stagingURL>/products/42
    // README-END
    return staging
}

@Test func anEndpointCarriesABaseURLChosenAtRunTime() throws {
    let stagingURL = try #require(URL(string: "https://staging.shop.example.com/api/v1"))
    let url = try runtimeBaseURL(stagingURL: stagingURL).makeURLRequest().url
    #expect(url?.absoluteString == "https://staging.shop.example.com/api/v1/products/42")
}
