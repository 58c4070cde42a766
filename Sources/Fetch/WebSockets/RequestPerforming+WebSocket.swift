import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RequestPerforming {
    /// Opens a WebSocket: its opening handshake is a call through this performer's middlewares, so adapters,
    /// authentication (a 401 refreshed before the upgrade, too), observers and recording see it like any request.
    ///
    /// ```swift
    /// let socket = try await session.with(.authenticate(with: tokens)).webSocket(ChatRoom(id: 7))
    /// ```
    ///
    /// - Parameters:
    ///   - request: A `GET` to a `ws`, `wss`, `http` or `https` URL. Fetch adds `Upgrade: websocket`,
    ///     `Connection: Upgrade` and `Sec-WebSocket-Version: 13`, and the transport the key; add
    ///     `Sec-WebSocket-Protocol` to the request's headers to ask for a subprotocol.
    ///   - errorParser: The object that turns the body of a refused handshake into an error, or `nil`.
    ///   - maximumMessageSize: The largest message accepted, in bytes; a larger one closes the connection with 1009
    ///     and ``FetchError/webSocketClosed(code:reason:request:)``. The default is
    ///     ``WebSocket/defaultMaximumMessageSize``, 16 MiB.
    ///   - reconnectPolicy: How to reopen the connection after it drops, or `nil` (the default) not to.
    ///   - scheduler: The clock of the connection's waits: the keepalive's and the reconnection's. The default is
    ///     real time.
    /// - Returns: The open connection.
    /// - Throws: For a status other than `101`, the error parser's error or ``FetchError/unacceptableStatus(_:)``
    ///   with up to 64 KiB of the body; ``FetchError/webSocketHandshakeFailed(reason:_:)`` for a `101` that breaks
    ///   RFC 6455; a ``FetchError`` naming the request for a transport failure; ``FetchError/cancelled(request:)``
    ///   when the awaiting task is cancelled.
    public func webSocket(
        _ request: any Request,
        errorParser: (any ErrorParsing)? = nil,
        maximumMessageSize: Int = WebSocket.defaultMaximumMessageSize,
        reconnectPolicy: ReconnectPolicy? = nil,
        scheduler: any Scheduling = DispatchScheduler()
    ) async throws -> WebSocket {
        var configuration = WebSocket.Configuration()
        configuration.maximumMessageSize = maximumMessageSize
        configuration.reconnectPolicy = reconnectPolicy
        return try await webSocket(
            request, errorParser: errorParser, configuration: configuration, scheduler: scheduler)
    }

    /// Opens a WebSocket that behaves as `configuration` says: its opening handshake is a call through this
    /// performer's middlewares, as with ``webSocket(_:errorParser:maximumMessageSize:reconnectPolicy:scheduler:)``.
    ///
    /// - Parameters:
    ///   - request: A `GET` to a `ws`, `wss`, `http` or `https` URL.
    ///   - errorParser: The object that turns the body of a refused handshake into an error, or `nil`.
    ///   - configuration: The message limit, keepalive, reconnection and the rest of ``WebSocket/Configuration``.
    ///   - scheduler: The clock of the connection's waits: the keepalive's, the send timeout's and the reconnection's.
    ///     The default is real time.
    /// - Returns: The open connection.
    /// - Throws: What ``webSocket(_:errorParser:maximumMessageSize:reconnectPolicy:scheduler:)`` throws.
    public func webSocket(
        _ request: any Request,
        errorParser: (any ErrorParsing)? = nil,
        configuration: WebSocket.Configuration,
        scheduler: any Scheduling = DispatchScheduler()
    ) async throws -> WebSocket {
        let pipeline = pipeline
        let limit = max(1, configuration.maximumMessageSize)
        // Every opening reports to the observers of the first, so that an observer sees the socket's whole life.
        let observers = EventObservers()
        let connect: @Sendable () async throws -> WebSocket.Opened = {
            try await pipeline.openWebSocket(
                request, errorParser: errorParser, maximumMessageSize: limit, compression: configuration.compression,
                observers: observers)
        }
        return WebSocket(
            request: request, opened: try await connect(), configuration: configuration, scheduler: scheduler,
            observers: observers, connect: connect)
    }
}

extension Pipeline {
    /// Sends `request`'s opening handshake through the middlewares and the transport.
    func openWebSocket(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        maximumMessageSize: Int,
        compression: WebSocket.Compression = .deflate,
        observers: EventObservers = EventObservers()
    ) async throws -> WebSocket.Opened {
        let handshake = try Self.handshake(for: request)
        let context = CallContext(
            request: request, webSocketMessageLimit: maximumMessageSize, webSocketCompression: compression,
            observers: observers)
        let answer = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                stack.start(handshake, from: 0, context: context) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            context.cancel()
        }
        if case .success(let response) = answer, let dropped = context.droppedDelivery(answering: response) {
            throw dropped
        }
        if case .success(let response) = answer, response.status == 101 {
            guard let channel = response.webSocketChannel else {
                throw FetchError.webSocketHandshakeFailed(
                    reason: "the answer was 101 Switching Protocols with no connection behind it (from a middleware"
                        + " or a transport that does not open WebSockets)",
                    response.answering(request))
            }
            return WebSocket.Opened(response: response.answering(request), channel: channel)
        }
        switch Self.parse(answer, as: UpgradeRefusal.self, for: request, errorParser: errorParser) {
        case .success:
            // A 2xx, or a status an error parser did not turn into an error: the server did not switch.
            throw FetchError.unacceptableStatus(try answer.get().answering(request))
        case .failure(let failure):
            throw failure
        }
    }

    /// `request` with the header fields of an opening handshake (RFC 6455 §4.1), as the middlewares see it.
    private static func handshake(for request: any Request) throws -> any Request {
        let urlRequest = try request.makeURLRequest()
        try HeaderValidation.validate(urlRequest, for: request)  // so that no message below quotes a line break
        let method = urlRequest.httpMethod ?? "GET"
        guard method == "GET" else {
            throw FetchError.invalidRequest(
                "\(ErrorText.target(request)): a WebSocket opens with a GET, not \(method)")
        }
        guard let scheme = urlRequest.url?.scheme?.lowercased(), ["ws", "wss", "http", "https"].contains(scheme)
        else {
            throw FetchError.invalidRequest(
                "\(ErrorText.target(request)): a WebSocket needs a ws, wss, http or https URL")
        }
        var handshake = AdaptedRequest(request)
        handshake.headers["Upgrade"] = "websocket"
        handshake.headers["Connection"] = "Upgrade"
        handshake.headers["Sec-WebSocket-Version"] = "13"
        return handshake
    }

    /// What a refused handshake parses as: the error parser's error for a status outside 2xx.
    private struct UpgradeRefusal: Parsable {
        static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<UpgradeRefusal, any Error> {
            response.requireSuccess(errorParser: errorParser).map { _ in UpgradeRefusal() }
        }
    }
}
