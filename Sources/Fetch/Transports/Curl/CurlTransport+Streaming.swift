#if os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension CurlTransport {
        /// What a streamed exchange delivers, in order: one ``response(_:)``, any number of ``data(_:)``, then
        /// ``finished`` or ``failed(_:)``; or only ``failed(_:)`` when no head arrived.
        package enum StreamEvent: Sendable {
            /// The response head (a 1xx is never delivered), its fields in wire order, repeated ones apart.
            case response(CurlHead)
            /// The next piece of the body, decoded when the request asked for a compressed encoding.
            case data(Data)
            /// The body is complete: what libcurl measured of the whole exchange, when it measured it.
            case finished(AttemptMetrics?)
            /// The exchange ended with this error; as for ``CurlTransport/send(_:timeout:completion:)``.
            case failed(any Error)
        }

        /// Sends `request` once, without following redirects, and delivers the body piece by piece as it arrives,
        /// without collecting it.
        ///
        /// `receive` runs on the transport's thread, one event at a time, and holds up every other request of the
        /// transport while it runs: copy or hand off the data and return.
        ///
        /// - Parameters:
        ///   - request: The request.
        ///   - timeout: The longest the whole exchange may take, in seconds; `0` or `.infinity` for none, as an
        ///     endless stream needs.
        ///   - receive: Called with each event; the last is ``StreamEvent/finished`` or ``StreamEvent/failed(_:)``.
        /// - Returns: The call, to cancel it; a cancelled stream ends with ``FetchError/cancelled(request:)``.
        @discardableResult
        package func stream(
            _ request: URLRequest,
            timeout: TimeInterval,
            receive: @escaping @Sendable (StreamEvent) -> Void
        ) -> any CancellableCall {
            stream(request, timeout: timeout, idleTimeout: 0, receive: receive)
        }

        /// Streams `request` as ``stream(_:timeout:receive:)`` does, and ends it with
        /// ``FetchError/timedOut(request:seconds:)`` when the server sends nothing for `idleTimeout` seconds (rounded
        /// up to whole seconds; `0` for no limit).
        func stream(
            _ request: URLRequest,
            declaring fields: HeaderFields = [:],
            timeout: TimeInterval,
            idleTimeout: TimeInterval,
            receive: @escaping @Sendable (StreamEvent) -> Void
        ) -> any CancellableCall {
            let call = CurlCall(loop: loop)
            guard let cookies = options.cookieStorage.map(CurlCookies.init(storage:)) else {
                var job = CurlJob(
                    request: request, timeout: timeout, idleTimeout: idleTimeout, delivery: .stream(receive))
                job.declaredFields = fields
                loop.start(call, job)
                return call
            }
            let request = cookies.adding(to: request)
            var job = CurlJob(
                request: request, timeout: timeout, idleTimeout: idleTimeout,
                delivery: .stream { event in
                    if case .response(let head) = event {
                        cookies.keep(head, of: request)
                    }
                    receive(event)
                })
            job.declaredFields = fields
            loop.start(call, job)
            return call
        }

        /// Cancels every request and stream started so far: each ends with ``FetchError/cancelled(request:)``.
        package func cancelAll() {
            loop.cancelAll()
        }
    }
#endif
