// The libcurl samples of the "Choosing a transport" article and of a doc comment, compiled here so that they cannot
// rot (the first region holds its own `#if os(Linux)`, as the article shows it).

import Fetch
import Foundation

func curlSessionSample() async throws {
    // DOC-BEGIN
    #if os(Linux)
        let session = try Session(transport: .curl, callbackQueue: OperationQueue())
        let user: User = try await session.perform(GetUser(baseURL: baseURL, id: 1))

        // Connection limits, HTTP version, a CA file for a self-signed server, public-key pins:
        let options = CurlTransport.Options(
            maximumConnectionsPerHost: 8,
            pinnedPublicKeys: ["sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="]
        )
        let pinned = try Session(transport: .curl(options))
    #endif
    // DOC-END
    #if os(Linux)
        _ = (user, pinned)
    #endif
}

#if os(Linux)
    /// The sample of `Session.Backend`'s doc comment.
    func sessionBackendDocSample(queue: OperationQueue) throws -> Session {
        // DOC-BEGIN
        let session = try Session(transport: .curl, callbackQueue: queue)
        // DOC-END
        return session
    }
#endif
