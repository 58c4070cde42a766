#if os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// The ``Transport`` of a ``Session`` on libcurl (`Session(transport: .curl)`): each request is sent through a
    /// ``CurlTransport`` with exact timeouts and the session's ``RedirectPolicy``, and answered as a ``Response``.
    ///
    /// Copies share the ``CurlTransport``: its thread stops once the session and every pipeline built on it are gone.
    struct CurlSessionTransport: RestrictedThreadTransport {
        /// The timeout of a request that sets none: the whole exchange, every redirect included, in seconds.
        ///
        /// URLSession's default is 60 s too, but there it is how long the server may stay silent; libcurl's timeout
        /// bounds the whole exchange, as a request's own ``Request/timeout`` does on both transports.
        static let defaultTimeout: TimeInterval = 60

        let curl: CurlTransport

        /// Answers arrive on libcurl's event-loop thread, which every other request of the transport waits for.
        var sendsCompleteOnRestrictedThread: Bool { true }

        /// Stream heads arrive there too.
        var streamsCompleteOnRestrictedThread: Bool { true }
        let redirectPolicy: RedirectPolicy
        /// The most bytes of a body read into memory, unless the request sets its own.
        let maximumResponseSize: Int

        func send(
            _ request: any Request,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> any Cancellable {
            let urlRequest: URLRequest
            switch Exchange.makeURLRequest(for: request, defaultTimeout: Self.defaultTimeout) {
            case .success(let built):
                urlRequest = built
            case .failure(let error):
                completion(.failure(error))
                return CompletedCall()
            }
            let timeout = urlRequest.timeoutInterval
            let limit = request.maximumResponseSize ?? maximumResponseSize
            return curl.sendForHead(
                urlRequest, timeout: timeout, redirectPolicy: redirectPolicy, maximumBodyBytes: limit
            ) { result in
                switch result {
                case .success(let (head, data)):
                    let response = Response(
                        status: head.statusCode, headers: head.headers, data: data, originalRequest: request,
                        url: head.url)
                    completion(.success(response))
                case .failure(let error):
                    completion(.failure(Self.naming(error, request, timeout: timeout)))
                }
            }
        }

        func stream(
            _ request: any Request,
            bufferLimit: Int,
            completion: @escaping @Sendable (Result<ResponseStream, any Error>) -> Void
        ) -> any Cancellable {
            let urlRequest: URLRequest
            switch Exchange.makeURLRequest(for: request, defaultTimeout: Self.defaultTimeout) {
            case .success(let built):
                urlRequest = built
            case .failure(let error):
                completion(.failure(error))
                return CompletedCall()
            }
            let call = CurlStreamCall(
                curl: curl, policy: redirectPolicy, request: request, originalURL: urlRequest.url ?? request.url,
                bufferLimit: bufferLimit, completion: completion)
            call.send(urlRequest)
            return call
        }

        /// Cancels every call and stream in flight; each completes with ``FetchError/cancelled(request:)``.
        func cancelAll() {
            curl.cancelAll()
        }

        /// `error`, naming `request`, and `timeout` when it timed out.
        static func naming(_ error: any Error, _ request: any Request, timeout: TimeInterval) -> any Error {
            switch error {
            case FetchError.timedOut(_, .none):
                FetchError.timedOut(request: request, seconds: timeout)
            case let error as FetchError:
                error.naming(request)
            default:
                error
            }
        }
    }
#endif
