// The libcurl samples of the "Choosing a transport" article and of a doc comment, compiled here so that they cannot
// rot (the first region holds its own `#if os(Linux)`, as the article shows it).

import Fetch
import Foundation

func curlSessionSample() async throws {
    // DOC-BEGIN
    #if os(Linux)
        let session = try Session(transport: CurlTransport(), callbackQueue: OperationQueue())
        let user: User = try await session.perform(GetUser(baseURL: baseURL, id: 1))

        // Connection limits, HTTP version, a CA file for a self-signed server, public-key pins:
        let options = CurlTransport.Options(
            maximumConnectionsPerHost: 8,
            pinnedPublicKeys: ["sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="]
        )
        let pinned = try Session(transport: CurlTransport(options: options))
    #endif
    // DOC-END
    #if os(Linux)
        _ = (user, pinned)
    #endif
}

#if os(Linux)
    /// The sample of `CurlTransport`'s doc comment.
    func curlTransportDocSample(queue: OperationQueue) throws -> Session {
        // DOC-BEGIN
        let session = try Session(transport: CurlTransport(), callbackQueue: queue)
        // DOC-END
        return session
    }
#endif

/// The sample of `Session.init(transport:callbackQueue:)`'s and `URLSessionTransport`'s doc comments.
func sessionOnATransportDocSample(queue: OperationQueue) -> Session {
    // DOC-BEGIN
    let session = Session(transport: URLSessionTransport(configuration: .ephemeral), callbackQueue: queue)
    // DOC-END
    return session
}
