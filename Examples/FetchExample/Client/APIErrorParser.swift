import Fetch
import Foundation

/// Reads the demo API's error bodies, `{"error": true, "reason": "…"}`, into ``APIError``s that keep the status.
///
/// Fetch's `DecodableErrorParser` decodes a body alone; this parser also keeps the status, so that messages can
/// say `401` as well as the server's reason. A body of another shape (a proxy's HTML page) is not recognised, and
/// the caller gets `FetchError.unacceptableStatus`, which quotes it.
struct APIErrorParser: ErrorParsing {
    private struct Body: Decodable {
        let reason: String
    }

    func parseError(from response: Response) -> (any Error)? {
        guard let data = response.data, let body = try? JSONDecoder().decode(Body.self, from: data) else {
            // Not this API's error body: nil makes the caller get `FetchError.unacceptableStatus`, which carries
            // the whole response, so nothing is lost.
            return nil
        }
        return APIError(status: response.status, reason: body.reason)
    }
}
