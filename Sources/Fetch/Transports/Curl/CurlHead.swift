#if os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// A response head as libcurl's header callback collected it, before any `HTTPURLResponse` is made.
    ///
    /// swift-corelibs-foundation's `HTTPURLResponse` initialiser sanitises every header field through `NSString`; on
    /// the path of a ``Session`` that costs more than the rest of Fetch's work on a small JSON response, so a session
    /// builds its ``Response`` straight from this, and makes an `HTTPURLResponse` only for a redirect.
    package struct CurlHead: Sendable {
        /// The URL that answered.
        package let url: URL
        package let statusCode: Int
        /// `HTTP/1.1` or `HTTP/2`, as the status line named it.
        package let httpVersion: String
        /// The header fields in the order received, names as sent, repeated fields apart.
        package let headers: HeaderFields
        /// What libcurl measured of the transfer, as far as it went when the head was taken.
        package var metrics: AttemptMetrics?

        /// The head as an `HTTPURLResponse`, whose dictionary joins a repeated field's values with `, `.
        package var httpResponse: HTTPURLResponse? {
            HTTPURLResponse(
                url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headers.dictionary)
        }
    }
#endif
