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
    struct CurlHead: Sendable {
        /// The URL that answered.
        let url: URL
        let statusCode: Int
        /// `HTTP/1.1` or `HTTP/2`, as the status line named it.
        let httpVersion: String
        /// The header fields as received; a repeated name has its values joined with `, `.
        let headerFields: [String: String]

        /// The value of the header field `name`, whatever its case.
        func value(forHeader name: String) -> String? {
            if let exact = headerFields[name] {
                return exact
            }
            return headerFields.first { HeaderName.equal($0.key, name) }?.value
        }

        /// The head as an `HTTPURLResponse`.
        var httpResponse: HTTPURLResponse? {
            HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headerFields)
        }
    }
#endif
