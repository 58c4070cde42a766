// The code samples of the DocC article "Choosing a transport" (Sources/Fetch/Fetch.docc/ChoosingATransport.md),
// compiled here so that they cannot rot; DocSampleTests checks that each DOC-BEGIN…DOC-END region matches a block of
// the article.

import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum ChoosingATransportArticle {
    static func session() -> Session {
        // DOC-BEGIN
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["User-Agent": "MyApp/1.0"]
        let session = Session(transport: URLSessionTransport(configuration: configuration), callbackQueue: .main)
        // DOC-END
        return session
    }

    static func ownTransport() -> Pipeline {
        // DOC-BEGIN
        struct FixtureTransport: Transport {
            let fixtures: [String: Data]

            struct Answered: CancellableCall {
                func cancel() {}
            }

            func send(
                _ request: any Request,
                completion: @escaping @Sendable (Result<Response, any Error>) -> Void
            ) -> any CancellableCall {
                let body = fixtures[request.url.path]
                completion(.success(Response(status: body == nil ? 404 : 200, data: body, originalRequest: request)))
                return Answered()
            }
        }

        let previews = Pipeline(FixtureTransport(fixtures: ["/users/1": Data(#"{"id": 1, "name": "Ada"}"#.utf8)]))
            .with(.retry())
        // DOC-END
        return previews
    }
}
