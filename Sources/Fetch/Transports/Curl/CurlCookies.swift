#if os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// The cookies of a ``CurlTransport`` whose options name a store: each hop's request gets the store's cookies for
    /// its URL, and each head's `Set-Cookie` fields go into the store, as `URLSession` does with its configuration's
    /// `httpCookieStorage`.
    ///
    /// A request that sets its own `Cookie` header (or turns `httpShouldHandleCookies` off) keeps the store out both
    /// ways, as on ``URLSessionTransport``. Without a store, libcurl's transport sends and keeps no cookies.
    struct CurlCookies: Sendable {
        let storage: HTTPCookieStorage

        /// `request` with the store's cookies for its URL in a `Cookie` header, unless it handles its own.
        func adding(to request: URLRequest) -> URLRequest {
            guard Self.usesStore(request), let url = request.url, let cookies = storage.cookies(for: url),
                !cookies.isEmpty
            else {
                return request
            }
            var request = request
            for (name, value) in HTTPCookie.requestHeaderFields(with: cookies) {
                request.setValue(value, forHTTPHeaderField: name)
            }
            return request
        }

        /// Keeps the cookies that `head`'s `Set-Cookie` fields set, each field apart, for the request `request`.
        func keep(_ head: CurlHead, of request: URLRequest) {
            guard Self.usesStore(request) else {
                return
            }
            let cookies = head.headers.values(for: "Set-Cookie").flatMap { field in
                HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field], for: head.url)
            }
            if !cookies.isEmpty {
                storage.setCookies(cookies, for: head.url, mainDocumentURL: request.mainDocumentURL ?? head.url)
            }
        }

        /// Whether `request` lets the store add and keep cookies: not when it sets its own `Cookie` header.
        private static func usesStore(_ request: URLRequest) -> Bool {
            request.httpShouldHandleCookies && request.value(forHTTPHeaderField: "Cookie") == nil
        }
    }
#endif
