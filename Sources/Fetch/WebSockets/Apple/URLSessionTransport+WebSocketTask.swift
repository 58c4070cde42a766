// Apple platforms: a WebSocket over URLSessionWebSocketTask, on the transport's own URLSession (the caller's session
// keeps deciding challenges and trust). Linux has none in Foundation (its libcurl has no ws), and opens WebSockets
// over libcurl in Sources/Fetch/WebSockets/Curl. Not compiled on Linux: each API below was checked against Apple's
// documentation.
#if !canImport(FoundationNetworking) || FETCH_APPLE_BRANCHES
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension URLSessionTransport: WebSocketTransport {
        /// Opens a `URLSessionWebSocketTask` for `request` on the transport's session, and completes once its
        /// handshake is done (with the `101` head and the channel) or has failed (with the status the server
        /// answered, or the failure). `URLSessionWebSocketTask` negotiates extensions itself: `compression` is not
        /// read (see Platform differences).
        package func openWebSocket(
            _ request: any Request,
            maximumMessageSize: Int,
            compression: WebSocket.Compression,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> any CancellableCall {
            if let refusal = backgroundRefusal(of: request) {
                completion(.failure(refusal))
                return CompletedCall()
            }
            let urlRequest: URLRequest
            switch Exchange.makeURLRequest(for: request, defaultTimeout: defaultTimeout) {
            case .success(var built):
                // URLSessionWebSocketTask takes ws and wss URLs only, and writes the upgrade fields itself.
                built.url = built.url.map(Self.webSocketURL)
                for name in ["Upgrade", "Connection", "Sec-WebSocket-Version", "Sec-WebSocket-Key"] {
                    built.setValue(nil, forHTTPHeaderField: name)
                }
                urlRequest = built
            case .failure(let error):
                completion(.failure(error))
                return CompletedCall()
            }
            let task = urlSession.webSocketTask(with: urlRequest)
            task.maximumMessageSize = maximumMessageSize
            let channel = URLSessionWebSocketChannel(
                task: task, request: request, maximumMessageSize: maximumMessageSize)
            task.delegate = WebSocketTaskDelegate(channel: channel, request: request, completion: completion)
            task.resume()
            return channel
        }

        /// `url` with `http` as `ws` and `https` as `wss`.
        private static func webSocketURL(_ url: URL) -> URL {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                return url
            }
            switch components.scheme?.lowercased() {
            case "http":
                components.scheme = "ws"
            case "https":
                components.scheme = "wss"
            default:
                break
            }
            return components.url ?? url
        }
    }

    /// The per-task delegate of a WebSocket task: reports the end of its handshake exactly once, and the server's
    /// close frame to its channel.
    ///
    /// The task keeps its delegate until it completes, so the delegate holds the channel strongly only until the
    /// handshake is done: then the connection's owner does, and letting go of it cancels the task.
    ///
    /// `@unchecked Sendable`: the mutable values are behind a lock, but for the weak reference, which the runtime
    /// reads safely from any thread.
    private final class WebSocketTaskDelegate: NSObject, URLSessionWebSocketDelegate, @unchecked Sendable {
        private struct Opening {
            var channel: URLSessionWebSocketChannel?
            var completion: (@Sendable (Result<Response, any Error>) -> Void)?
        }

        private weak var channel: URLSessionWebSocketChannel?
        private let request: any Request
        private let opening: Locked<Opening>

        init(
            channel: URLSessionWebSocketChannel,
            request: any Request,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            self.channel = channel
            self.request = request
            self.opening = Locked(Opening(channel: channel, completion: completion))
        }

        func urlSession(
            _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
        ) {
            let opened = opening.withLock { opening in
                defer { opening = Opening() }
                return opening
            }
            guard let channel = opened.channel, let completion = opened.completion else {
                return
            }
            let head = webSocketTask.response as? HTTPURLResponse
            // RFC 6455 §4.1: a subprotocol the request did not offer fails the connection.
            let offered = webSocketTask.originalRequest?.value(forHTTPHeaderField: "Sec-WebSocket-Protocol")
            if let problem = WebSocketHandshake.problem(withSubprotocol: `protocol`, offered: offered) {
                webSocketTask.cancel(with: .protocolError, reason: nil)
                let refused = Response(
                    status: head?.statusCode ?? 101, headers: head.map { HeaderFields($0) } ?? [:], data: Data(),
                    originalRequest: request, url: head?.url ?? webSocketTask.originalRequest?.url ?? request.url)
                completion(.failure(FetchError.webSocketHandshakeFailed(reason: problem, refused)))
                return
            }
            let response = Response(
                status: head?.statusCode ?? 101, headers: head.map { HeaderFields($0) } ?? [:],
                originalRequest: request, url: head?.url ?? webSocketTask.originalRequest?.url,
                webSocketChannel: channel)
            completion(.success(response))
        }

        func urlSession(
            _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
            didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
        ) {
            channel?.serverClosed(code: closeCode, reason: reason)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let opened = opening.withLock { opening in
                defer { opening = Opening() }
                return opening
            }
            guard let completion = opened.completion else {
                // It had opened: a waiting receive, send or ping of the channel reports the end.
                return
            }
            // The handshake ended without opening: the server answered another status, or there was no answer.
            if let head = task.response as? HTTPURLResponse, head.statusCode != 101 {
                completion(.success(Response(httpResponse: head, data: nil, originalRequest: request)))
                return
            }
            completion(Exchange.response(for: request, data: nil, urlResponse: nil, error: error))
        }
    }

    /// A ``WebSocketChannel`` over a `URLSessionWebSocketTask`, which frames, masks, answers pings and closes.
    ///
    /// `@unchecked Sendable`: `URLSessionWebSocketTask` is thread-safe; the mutable state is behind a lock.
    private final class URLSessionWebSocketChannel: WebSocketChannel, CancellableCall, @unchecked Sendable {
        private struct State {
            var serverClose: (code: Int?, reason: String)?
            var clientClose: (code: Int, reason: String)?
        }

        private let task: URLSessionWebSocketTask
        private let request: any Request
        private let maximumMessageSize: Int
        private let state = Locked(State())

        init(task: URLSessionWebSocketTask, request: any Request, maximumMessageSize: Int) {
            self.task = task
            self.request = request
            self.maximumMessageSize = maximumMessageSize
        }

        deinit {
            task.cancel(with: .goingAway, reason: nil)
        }

        func receive(_ completion: @escaping @Sendable (Result<WebSocketChannelEvent, any Error>) -> Void) {
            task.receive { [self] result in
                switch result {
                case .success(.string(let text)):
                    completion(.success(.message(.text(text))))
                case .success(.data(let data)):
                    completion(.success(.message(.binary(data))))
                case .success:
                    completion(.failure(ended(because: nil)))
                case .failure(let error):
                    if let close = closed() {
                        completion(.success(.closed(code: close.code, reason: close.reason)))
                    } else {
                        completion(.failure(ended(because: error)))
                    }
                }
            }
        }

        func send(_ message: WebSocketMessage, _ completion: @escaping @Sendable ((any Error)?) -> Void) {
            let outgoing: URLSessionWebSocketTask.Message
            switch message {
            case .text(let text):
                outgoing = .string(text)
            case .binary(let data):
                outgoing = .data(data)
            }
            task.send(outgoing) { [self] error in
                completion(error.map { ended(because: $0) })
            }
        }

        func ping(_ completion: @escaping @Sendable ((any Error)?) -> Void) {
            task.sendPing { [self] error in
                completion(error.map { ended(because: $0) })
            }
        }

        func close(code: WebSocket.CloseCode, reason: String) {
            state.withLock { $0.clientClose = (code.value, reason) }
            // On Apple platforms an imported `NS_ENUM`'s `init(rawValue:)` takes any value, 3000 to 4999 included;
            // corelibs' enum (this file is type-checked on Linux too) does not, hence the fallback.
            let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: code.value) ?? .normalClosure
            task.cancel(with: closeCode, reason: WebSocketFrameEncoder.closeReason(reason))
        }

        func cancel() {
            task.cancel()
        }

        /// The server's close frame arrived.
        func serverClosed(code: URLSessionWebSocketTask.CloseCode, reason: Data?) {
            let reason = reason.map { String(decoding: $0, as: UTF8.self) } ?? ""
            state.withLock { $0.serverClose = (code == .invalid ? nil : code.rawValue, reason) }
        }

        /// The close that ended the connection: the server's, or the client's own.
        private func closed() -> (code: Int?, reason: String)? {
            state.withLock { state in
                state.serverClose ?? state.clientClose.map { (Optional($0.code), $0.reason) }
            }
        }

        /// The failure that ended the connection, as a ``FetchError``.
        private func ended(because error: (any Error)?) -> FetchError {
            if let error = error as? URLError, error.code == .cancelled {
                return .cancelled(request: request)
            }
            let serverClose = state.withLock { $0.serverClose }
            switch WebSocketTaskEnding.of(
                error: error, serverClose: serverClose, taskCloseCode: task.closeCode.rawValue)
            {
            case .overMessageLimit:
                return .webSocketClosed(
                    code: 1009,
                    reason: "the server sent a message over the maximum message size of \(maximumMessageSize) bytes",
                    request: request)
            case .closedByServer(let code, let reason):
                return .webSocketClosed(code: code ?? 1005, reason: reason, request: request)
            case .dropped(let code):
                let detail = error.map { ErrorText.describe($0) } ?? "an unknown message kind"
                return .webSocketClosed(
                    code: code, reason: "the connection ended without a close frame: \(detail)", request: request)
            }
        }
    }
#endif
