import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The failures of Fetch itself, from building a request to decoding its response.
///
/// Errors that an ``ErrorParsing`` object reads from an error body are delivered as they are, not wrapped in
/// `FetchError`. Every error describes itself in one line a person can act on, naming the request: the pipeline
/// gives each error the caller's request when whoever made it could not know it.
///
/// ```text
/// GET http://127.0.0.1:8080/users/7 → 404 Not Found: {"error":true,"reason":"no such user"}
/// ```
///
/// `FetchError` is a struct, not an enum, so that a later release can add a ``Code`` without breaking a `switch`
/// in an app. Test the code, and read what the error carries through its properties:
///
/// ```swift
/// do {
///     let user: User = try await session.perform(GetUser(id: 7))
///     print(user.name)
/// } catch let error as FetchError where error.code == .timedOut {
///     retryLater()
/// } catch let error as FetchError where error.code == .unacceptableStatus {
///     show(error.response?.status)
/// }
/// ```
///
/// Make one (in a test double, or a middleware of your own) with the static function of its code:
/// `FetchError.timedOut(request: request)`.
public struct FetchError: Error, Sendable {
    /// What failed, with all it carries: the one place a case lives. Public readers derive from it.
    package let kind: Kind

    /// The status of the redirect that a ``Code/redirectRefused`` error refused, when the transport knew it: what
    /// the `redirectRefused` event's ``FetchEvent/redirect`` carries.
    package var redirectStatus: Int?

    /// For a ``timedOut(request:seconds:)`` that was not the wait for an answer: what did not happen in time, such
    /// as "the message was not sent" for a WebSocket send.
    package var unfinished: String?

    package init(_ kind: Kind) {
        self.kind = kind
    }

    /// The kinds of failure and what each carries.
    package enum Kind: Sendable {
        /// The request could not be built, for example because its URL is not absolute or a header value contains a
        /// line break. The string says which request and why.
        case invalidRequest(String)

        /// The request's body could not be encoded. The associated value is the encoder's error.
        case encoding(any Error, request: (any Request)? = nil)

        /// The request did not get a response because of a network-level failure: the host could not be found, the
        /// connection was refused or lost, TLS failed, and so on.
        case transport(URLError, request: (any Request)? = nil)

        /// The server did not answer within the request's timeout (`seconds`, when known), or a retry policy's deadline
        /// passed.
        case timedOut(request: (any Request)? = nil, seconds: TimeInterval? = nil)

        /// The request was cancelled before it finished, through its ``CancellableCall``, ``Session/cancelAllTasks()`` or
        /// the cancellation of the Swift `Task` that awaited it.
        case cancelled(request: (any Request)? = nil)

        /// The answer was not an HTTP response (for example, the URL's scheme was `file`).
        case notHTTPResponse(request: (any Request)? = nil)

        /// The server answered with a status outside 2xx, and no ``ErrorParsing`` object turned the body into an error.
        case unacceptableStatus(Response)

        /// The server answered with success, but the body could not be decoded into the expected type.
        case decoding(DecodingError, Response)

        /// A redirect was not followed because the session's ``RedirectPolicy`` forbids it: it would downgrade `https`
        /// to `http`, or it went past the redirect limit.
        case redirectRefused(from: URL, to: URL, reason: String, request: (any Request)? = nil)

        /// A request that was retried failed on its last attempt; `lastError` is that attempt's error: a ``FetchError``,
        /// or the error parser's error for the last response.
        case attemptsExhausted(attempts: Int, lastError: any Error, request: (any Request)? = nil)

        /// The credentials were rejected, and getting new ones failed with the associated error. The response is the
        /// rejection that asked for the refresh.
        case credentialRefreshFailed(any Error, Response)

        /// A downloaded file failed its check and was not moved into place: its length differs from the total the
        /// server announced, or its SHA-256 from the expected one. The string says which.
        case integrityCheckFailed(url: URL, reason: String, request: (any Request)? = nil)

        /// A streamed response that should be a Server-Sent Events stream is not: its `Content-Type` is not
        /// `text/event-stream`. The response's body is not read.
        case notEventStream(Response)

        /// The data of a Server-Sent Event could not be decoded into the expected type.
        case eventDecoding(DecodingError, ServerSentEvent)

        /// The response body grew past `limit` bytes (the request's ``Request/maximumResponseSize`` or the session's);
        /// Fetch stopped reading there and kept none of it.
        case responseTooLarge(limit: Int, request: (any Request)? = nil)

        /// A line of a streamed body (``ResponseStream/lines``, JSON Lines, a Server-Sent Events field), or the data of
        /// one Server-Sent Event, grew past `limit` bytes (1 MiB) before it ended; Fetch
        /// stopped reading the stream there.
        case lineTooLong(limit: Int, request: (any Request)? = nil)

        /// A server answered a WebSocket's opening handshake with `101 Switching Protocols` but broke RFC 6455 there:
        /// its `Sec-WebSocket-Accept` is missing or wrong, or it did not agree to `Upgrade: websocket`. The string says
        /// what came back; the response is the server's head.
        case webSocketHandshakeFailed(reason: String, Response)

        /// A WebSocket connection ended abnormally: the server closed it with a code other than 1000 (normal) or 1001
        /// (going away); Fetch closed it because the server broke RFC 6455 (1002), sent text that is not UTF-8 (1007) or
        /// a message over the maximum size (1009); or it ended without a close frame (1006). `reason` says which, with
        /// what the server sent.
        case webSocketClosed(code: Int, reason: String, request: (any Request)? = nil)

        /// A WebSocket message could not be decoded into the expected type: the decoder's error and the message.
        case messageDecoding(DecodingError, WebSocketMessage)
    }
}

// MARK: - Code

extension FetchError {
    /// What kind of failure an error is: compare it with `==`, or `switch` over it with a `default`, since a later
    /// release may add codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as its static member spells it.
        public let description: String

        private init(_ name: String) {
            description = name
        }

        /// The request could not be built, or Fetch refused it before sending: see ``invalidRequest(_:)``.
        public static let invalidRequest = Code("invalidRequest")
        /// The request's body could not be encoded: see ``encoding(_:request:)``.
        public static let encoding = Code("encoding")
        /// A network-level failure: see ``transport(_:request:)``.
        public static let transport = Code("transport")
        /// No answer in time: see ``timedOut(request:seconds:)``.
        public static let timedOut = Code("timedOut")
        /// The call was cancelled: see ``cancelled(request:)``.
        public static let cancelled = Code("cancelled")
        /// The answer was not HTTP: see ``notHTTPResponse(request:)``.
        public static let notHTTPResponse = Code("notHTTPResponse")
        /// A status outside 2xx that no error parser read: see ``unacceptableStatus(_:)``.
        public static let unacceptableStatus = Code("unacceptableStatus")
        /// A successful body that could not be decoded: see ``decoding(_:_:)``.
        public static let decoding = Code("decoding")
        /// A redirect the policy forbids: see ``redirectRefused(from:to:reason:request:)``.
        public static let redirectRefused = Code("redirectRefused")
        /// Every attempt of a retried call failed: see ``attemptsExhausted(attempts:lastError:request:)``.
        public static let attemptsExhausted = Code("attemptsExhausted")
        /// New credentials could not be had: see ``credentialRefreshFailed(_:_:)``.
        public static let credentialRefreshFailed = Code("credentialRefreshFailed")
        /// A download failed its check: see ``integrityCheckFailed(url:reason:request:)``.
        public static let integrityCheckFailed = Code("integrityCheckFailed")
        /// A stream that is not Server-Sent Events: see ``notEventStream(_:)``.
        public static let notEventStream = Code("notEventStream")
        /// An event's data could not be decoded: see ``eventDecoding(_:_:)``.
        public static let eventDecoding = Code("eventDecoding")
        /// A body over its size limit: see ``responseTooLarge(limit:request:)``.
        public static let responseTooLarge = Code("responseTooLarge")
        /// A streamed line over its limit: see ``lineTooLong(limit:request:)``.
        public static let lineTooLong = Code("lineTooLong")
        /// A WebSocket handshake that broke RFC 6455: see ``webSocketHandshakeFailed(reason:_:)``.
        public static let webSocketHandshakeFailed = Code("webSocketHandshakeFailed")
        /// A WebSocket that ended abnormally: see ``webSocketClosed(code:reason:request:)``.
        public static let webSocketClosed = Code("webSocketClosed")
        /// A WebSocket message that could not be decoded: see ``messageDecoding(_:_:)``.
        public static let messageDecoding = Code("messageDecoding")
    }

    /// What kind of failure this is.
    public var code: Code {
        switch kind {
        case .invalidRequest: .invalidRequest
        case .encoding: .encoding
        case .transport: .transport
        case .timedOut: .timedOut
        case .cancelled: .cancelled
        case .notHTTPResponse: .notHTTPResponse
        case .unacceptableStatus: .unacceptableStatus
        case .decoding: .decoding
        case .redirectRefused: .redirectRefused
        case .attemptsExhausted: .attemptsExhausted
        case .credentialRefreshFailed: .credentialRefreshFailed
        case .integrityCheckFailed: .integrityCheckFailed
        case .notEventStream: .notEventStream
        case .eventDecoding: .eventDecoding
        case .responseTooLarge: .responseTooLarge
        case .lineTooLong: .lineTooLong
        case .webSocketHandshakeFailed: .webSocketHandshakeFailed
        case .webSocketClosed: .webSocketClosed
        case .messageDecoding: .messageDecoding
        }
    }

    /// The error beneath this one, when there is one: the encoder's or decoder's error, the `URLError` of a
    /// transport failure, the last attempt's error when attempts ran out, or the error of a failed credential
    /// refresh.
    public var underlyingError: (any Error)? {
        switch kind {
        case .encoding(let error, _), .credentialRefreshFailed(let error, _), .attemptsExhausted(_, let error, _):
            error
        case .transport(let error, _):
            error
        case .decoding(let error, _), .eventDecoding(let error, _), .messageDecoding(let error, _):
            error
        case .invalidRequest, .timedOut, .cancelled, .notHTTPResponse, .unacceptableStatus, .redirectRefused,
            .integrityCheckFailed, .notEventStream, .responseTooLarge, .lineTooLong, .webSocketHandshakeFailed,
            .webSocketClosed:
            nil
        }
    }

    /// The response this error came with, when the server answered.
    public var response: Response? {
        switch kind {
        case .unacceptableStatus(let response), .decoding(_, let response), .credentialRefreshFailed(_, let response):
            response
        case .attemptsExhausted(_, let lastError, _):
            (lastError as? FetchError)?.response
        case .notEventStream(let response), .webSocketHandshakeFailed(_, let response):
            response
        case .invalidRequest, .encoding, .transport, .timedOut, .cancelled, .notHTTPResponse, .redirectRefused,
            .integrityCheckFailed, .eventDecoding, .responseTooLarge, .lineTooLong, .webSocketClosed,
            .messageDecoding:
            nil
        }
    }
}
// MARK: - Making errors

extension FetchError {
    /// The request could not be built, or Fetch refused it before sending: its URL is not absolute, a header value
    /// contains a line break, a destination is a directory. `reason` names the request and says why.
    public static func invalidRequest(_ reason: String) -> FetchError { FetchError(.invalidRequest(reason)) }

    /// The request's body could not be encoded; `error` is the encoder's error.
    public static func encoding(_ error: any Error, request: (any Request)? = nil) -> FetchError {
        FetchError(.encoding(error, request: request))
    }

    /// The request did not get a response because of a network-level failure: the host could not be found, the
    /// connection was refused or lost, TLS failed, and so on.
    public static func transport(_ error: URLError, request: (any Request)? = nil) -> FetchError {
        FetchError(.transport(error, request: request))
    }

    /// The server did not answer within the request's timeout (`seconds`, when known), or a retry policy's deadline
    /// passed.
    public static func timedOut(request: (any Request)? = nil, seconds: TimeInterval? = nil) -> FetchError {
        FetchError(.timedOut(request: request, seconds: seconds))
    }

    /// The request was cancelled before it finished, through its ``CancellableCall``, ``Session/cancelAllTasks()`` or
    /// the cancellation of the Swift `Task` that awaited it.
    public static func cancelled(request: (any Request)? = nil) -> FetchError {
        FetchError(.cancelled(request: request))
    }

    /// The answer was not an HTTP response (for example, the URL's scheme was `file`).
    public static func notHTTPResponse(request: (any Request)? = nil) -> FetchError {
        FetchError(.notHTTPResponse(request: request))
    }

    /// The server answered with a status outside 2xx, and no ``ErrorParsing`` object turned the body into an error.
    public static func unacceptableStatus(_ response: Response) -> FetchError {
        FetchError(.unacceptableStatus(response))
    }

    /// The server answered with success, but the body could not be decoded into the expected type.
    public static func decoding(_ error: DecodingError, _ response: Response) -> FetchError {
        FetchError(.decoding(error, response))
    }

    /// A redirect was not followed because the session's ``RedirectPolicy`` forbids it: it would downgrade `https`
    /// to `http`, or it went past the redirect limit.
    public static func redirectRefused(from: URL, to: URL, reason: String, request: (any Request)? = nil) -> FetchError
    {
        FetchError(.redirectRefused(from: from, to: to, reason: reason, request: request))
    }

    /// A request that was retried failed on its last attempt; `lastError` is that attempt's error: a ``FetchError``,
    /// or the error parser's error for the last response.
    public static func attemptsExhausted(attempts: Int, lastError: any Error, request: (any Request)? = nil)
        -> FetchError
    {
        FetchError(.attemptsExhausted(attempts: attempts, lastError: lastError, request: request))
    }

    /// The credentials were rejected, and getting new ones failed with `error`. The response is the rejection that
    /// asked for the refresh.
    public static func credentialRefreshFailed(_ error: any Error, _ response: Response) -> FetchError {
        FetchError(.credentialRefreshFailed(error, response))
    }

    /// A downloaded file failed its check and was not moved into place: its length differs from the total the
    /// server announced, or its SHA-256 from the expected one. `reason` says which.
    public static func integrityCheckFailed(url: URL, reason: String, request: (any Request)? = nil) -> FetchError {
        FetchError(.integrityCheckFailed(url: url, reason: reason, request: request))
    }

    /// A streamed response that should be a Server-Sent Events stream is not: its `Content-Type` is not
    /// `text/event-stream`. The response's body is not read.
    public static func notEventStream(_ response: Response) -> FetchError { FetchError(.notEventStream(response)) }

    /// The data of a Server-Sent Event could not be decoded into the expected type.
    public static func eventDecoding(_ error: DecodingError, _ event: ServerSentEvent) -> FetchError {
        FetchError(.eventDecoding(error, event))
    }

    /// The response body grew past `limit` bytes (the request's ``Request/maximumResponseSize`` or the session's);
    /// Fetch stopped reading there and kept none of it.
    public static func responseTooLarge(limit: Int, request: (any Request)? = nil) -> FetchError {
        FetchError(.responseTooLarge(limit: limit, request: request))
    }

    /// A line of a streamed body (``ResponseStream/lines``, JSON Lines, a Server-Sent Events field), or the data of
    /// one Server-Sent Event, grew past `limit` bytes (1 MiB) before it ended; Fetch stopped reading the stream there.
    public static func lineTooLong(limit: Int, request: (any Request)? = nil) -> FetchError {
        FetchError(.lineTooLong(limit: limit, request: request))
    }

    /// A server answered a WebSocket's opening handshake with `101 Switching Protocols` but broke RFC 6455 there:
    /// its `Sec-WebSocket-Accept` is missing or wrong, or it did not agree to `Upgrade: websocket`. `reason` says
    /// what came back; the response is the server's head.
    public static func webSocketHandshakeFailed(reason: String, _ response: Response) -> FetchError {
        FetchError(.webSocketHandshakeFailed(reason: reason, response))
    }

    /// A WebSocket connection ended abnormally: the server closed it with a code other than 1000 (normal) or 1001
    /// (going away); Fetch closed it because the server broke RFC 6455 (1002), sent text that is not UTF-8 (1007) or
    /// a message over the maximum size (1009); or it ended without a close frame (1006). `reason` says which, with
    /// what the server sent.
    public static func webSocketClosed(code: Int, reason: String, request: (any Request)? = nil) -> FetchError {
        FetchError(.webSocketClosed(code: code, reason: reason, request: request))
    }

    /// A WebSocket message could not be decoded into the expected type: the decoder's error and the message.
    public static func messageDecoding(_ error: DecodingError, _ message: WebSocketMessage) -> FetchError {
        FetchError(.messageDecoding(error, message))
    }
}

// MARK: - CustomStringConvertible

extension FetchError: CustomStringConvertible {
    /// One line that says what was attempted and what came back.
    public var description: String {
        switch kind {
        case .invalidRequest(let reason):
            return "Invalid request: \(reason)"
        case .encoding(let error, let request):
            return "\(ErrorText.target(request)): could not encode the request body: \(ErrorText.describe(error))"
        case .transport(let error, let request):
            let target = request.map(ErrorText.target) ?? error.failingURL?.absoluteString ?? "the request"
            return "\(target): \(ErrorText.failure(error.code)): \(error.localizedDescription)"
                + " (URLError \(error.code.rawValue))"
        case .timedOut(let request, let seconds):
            let limit = seconds.map { "within \(ErrorText.seconds($0))" } ?? "within its timeout"
            return "\(ErrorText.target(request)) timed out: \(unfinished ?? "no answer") \(limit)"
        case .cancelled(let request):
            return "\(ErrorText.target(request)) was cancelled before it finished"
        case .notHTTPResponse(let request):
            return "\(ErrorText.target(request)): the answer was not an HTTP response"
        case .unacceptableStatus(let response):
            return "\(ErrorText.exchange(response)): \(ErrorText.body(response.data))"
        case .decoding(let error, let response):
            return "\(ErrorText.exchange(response)), but the body could not be decoded: \(ErrorText.describe(error))."
                + " Body: \(ErrorText.body(response.data))"
        case .redirectRefused(let from, let to, let reason, let request):
            let target = request.map { "\(ErrorText.target($0)): r" } ?? "R"
            return "\(target)efused the redirect from \(ErrorText.url(from)) to \(ErrorText.url(to)): \(reason)"
        case .attemptsExhausted(let attempts, let lastError, let request):
            return "\(ErrorText.target(request)): gave up after \(attempts) attempts; the last one failed: "
                + ErrorText.describe(lastError)
        case .credentialRefreshFailed(let error, let response):
            return
                "\(ErrorText.exchange(response)), and refreshing the credentials failed: \(ErrorText.describe(error))"
        case .integrityCheckFailed(let url, let reason, let request):
            let download = request.map(ErrorText.target) ?? "The download of \(ErrorText.url(url))"
            return "\(download) failed its check, so the file was not kept: \(reason)"
        case .notEventStream(let response):
            let type = response.headers["Content-Type"].map { "Content-Type \($0)" } ?? "no Content-Type"
            return "\(ErrorText.exchange(response)) with \(type), not a text/event-stream of Server-Sent Events"
        case .responseTooLarge(let limit, let request):
            return "\(ErrorText.target(request)): the response body is larger than the limit of \(limit) bytes"
                + " (maximumResponseSize); Fetch stopped reading it there"
        case .lineTooLong(let limit, let request):
            return "\(ErrorText.target(request)): a line of the streamed body, or the data of one Server-Sent Event,"
                + " grew past the limit of \(limit) bytes without ending (ResponseStream.maximumLineLength);"
                + " Fetch stopped reading the stream there"
        case .webSocketHandshakeFailed(let reason, let response):
            return "\(ErrorText.exchange(response)), but the WebSocket handshake failed: \(reason)"
        case .webSocketClosed(let code, let reason, let request):
            return "\(ErrorText.target(request)): the WebSocket closed with code \(code): \(reason)"
        case .messageDecoding(let error, let message):
            return "Could not decode a WebSocket \(message.kind) message: \(ErrorText.describe(error))."
                + " Message: \(ErrorText.body(message.bytes))"
        case .eventDecoding(let error, let event):
            let id = event.id.map { " (id \($0.debugDescription))" } ?? ""
            return "Could not decode the data of event \(event.event.debugDescription)\(id):"
                + " \(ErrorText.describe(error)). Data: \(ErrorText.body(Data(event.data.utf8)))"
        }
    }
}

// MARK: - LocalizedError

extension FetchError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}

extension FetchError {
    /// The request this error is about: the one it names, or the one its response answers. `nil` only for an
    /// error made outside a call, before any request was known (``invalidRequest(_:)`` names its request in its
    /// text, ``eventDecoding(_:_:)`` its event).
    public var request: (any Request)? {
        switch kind {
        case .encoding(_, let request), .transport(_, let request), .timedOut(let request, _),
            .cancelled(let request), .notHTTPResponse(let request), .redirectRefused(_, _, _, let request),
            .responseTooLarge(_, let request), .lineTooLong(_, let request), .integrityCheckFailed(_, _, let request),
            .webSocketClosed(_, _, let request):
            return request
        case .attemptsExhausted(_, let lastError, let request):
            return request ?? (lastError as? FetchError)?.request
        case .unacceptableStatus(let response), .decoding(_, let response), .credentialRefreshFailed(_, let response),
            .notEventStream(let response), .webSocketHandshakeFailed(_, let response):
            return response.originalRequest
        case .invalidRequest, .eventDecoding, .messageDecoding:
            return nil
        }
    }
}

extension Error {
    /// What this error is when it is a ``FetchError``: what the package matches on.
    package var fetchKind: FetchError.Kind? { (self as? FetchError)?.kind }

    /// Whether this is a middleware giving up on a status: ``FetchError/unacceptableStatus(_:)``, alone or as the
    /// last error of ``FetchError/attemptsExhausted(attempts:lastError:request:)``.
    package var isUnacceptableStatus: Bool {
        switch fetchKind {
        case .unacceptableStatus: true
        case .attemptsExhausted(_, let lastError, _): lastError.isUnacceptableStatus
        default: false
        }
    }
}

extension FetchError {
    /// This error with `request` in the cases that name none yet, inside ``attemptsExhausted(attempts:lastError:request:)``
    /// too: what the pipeline does to every error it delivers, so that each names the caller's request.
    ///
    /// - Parameter request: The request to name.
    /// - Returns: The error, naming a request.
    package func naming(_ request: any Request) -> FetchError {
        switch kind {
        case .encoding(let error, nil):
            .encoding(error, request: request)
        case .transport(let error, nil):
            .transport(error, request: request)
        case .timedOut(nil, let seconds):
            FetchError.timedOut(request: request, seconds: seconds).leaving(unfinished)
        case .cancelled(nil):
            .cancelled(request: request)
        case .notHTTPResponse(nil):
            .notHTTPResponse(request: request)
        case .responseTooLarge(let limit, nil):
            .responseTooLarge(limit: limit, request: request)
        case .lineTooLong(let limit, nil):
            .lineTooLong(limit: limit, request: request)
        case .redirectRefused(let from, let to, let reason, nil):
            FetchError.redirectRefused(from: from, to: to, reason: reason, request: request)
                .refusing(status: redirectStatus)
        case .integrityCheckFailed(let url, let reason, nil):
            .integrityCheckFailed(url: url, reason: reason, request: request)
        case .webSocketClosed(let code, let reason, nil):
            .webSocketClosed(code: code, reason: reason, request: request)
        case .attemptsExhausted(let attempts, let lastError, let named):
            .attemptsExhausted(
                attempts: attempts, lastError: (lastError as? FetchError)?.naming(request) ?? lastError,
                request: named ?? request)
        default:
            self
        }
    }
}

extension FetchError {
    /// This error, saying that `unfinished` is what did not happen in time.
    package func leaving(_ unfinished: String?) -> FetchError {
        var error = self
        error.unfinished = unfinished
        return error
    }

    /// This error, refusing a redirect of `status`.
    package func refusing(status: Int?) -> FetchError {
        var refusal = self
        refusal.redirectStatus = status
        return refusal
    }
}

/// How errors describe requests, responses and bodies in one line.
package enum ErrorText {
    /// `GET http://host/path`, or `The request` when it is not known.
    package static func target(_ request: (any Request)?) -> String {
        guard let request else {
            return "The request"
        }
        // A method that could not be sent is quoted, so that a line break in it cannot split the message.
        let method = request.method.rawValue
        return "\(HeaderValidation.isToken(method) ? method : method.debugDescription) \(url(request.url))"
    }

    /// `url` as an error shows it: with any password it carries as `***`, since error messages end up in logs.
    package static func url(_ url: URL) -> String {
        guard url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.password = "***"
        return components.string ?? url.absoluteString
    }

    /// `0.5 s`, `30 s`.
    package static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(WireNumber.clampedInteger(value)) s" : "\(value) s"
    }

    /// What a transport failure of `code` means for the caller: `could not reach the server` unless it is known to
    /// be something else (the connection lost midway, TLS, a broken answer).
    package static func failure(_ code: URLError.Code) -> String {
        switch code {
        case .networkConnectionLost:
            "the connection to the server was lost"
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid, .secureConnectionFailed, .clientCertificateRejected,
            .clientCertificateRequired:
            "the secure connection failed"
        case .badServerResponse:
            "the server's answer was not valid HTTP"
        default:
            "could not reach the server"
        }
    }

    /// How much of a body an error message quotes.
    static let bodyPreviewLimit = 1024

    /// `GET http://host/path → 404 Not Found`, with the final URL when the request was redirected.
    package static func exchange(_ response: Response) -> String {
        let request = response.originalRequest
        var line = "\(request.method) \(request.url.absoluteString)"
        if let final = response.url, final != request.url {
            line += " (redirected to \(final.absoluteString))"
        }
        return "\(line) → \(HTTPStatus.line(response.status))"
    }

    /// Up to ``bodyPreviewLimit`` bytes of a body as text, or a note that it is empty or binary.
    package static func body(_ data: Data?) -> String {
        guard let data, !data.isEmpty else {
            return "(empty body)"
        }
        let preview = data.prefix(bodyPreviewLimit)
        let text = String(decoding: preview, as: UTF8.self)
        let isTruncated = data.count > preview.count
        let hasControls = text.unicodeScalars.contains { $0.value < 0x20 && !"\t\r\n".unicodeScalars.contains($0) }
        // One replacement character is allowed where the limit cut a multi-byte character in two.
        let invalidSequences = text.unicodeScalars.count { $0 == "\u{FFFD}" }
        guard !hasControls, invalidSequences <= (isTruncated ? 1 : 0) else {
            return "(\(data.count) bytes of binary data)"
        }
        let oneLine = text.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: " ")
        return isTruncated ? "\(oneLine)… (\(data.count) bytes in all)" : oneLine
    }

    /// A readable account of an error: for a `DecodingError`, the coding path and what was wrong there.
    package static func describe(_ error: any Error) -> String {
        switch error {
        case let error as DecodingError:
            return describe(error)
        case let error as EncodingError:
            switch error {
            case .invalidValue(let value, let context):
                return "invalid value \(value) at \(path(context.codingPath)): \(context.debugDescription)"
            @unknown default:
                return String(describing: error)
            }
        case let error as FetchError:
            return error.description
        default:
            return String(describing: error)
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context.codingPath)): \(detail(context))"
        case .valueNotFound(let type, let context):
            return "expected \(type) at \(path(context.codingPath)) but found null: \(detail(context))"
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return "invalid data at \(path(context.codingPath)): \(detail(context))"
        @unknown default:
            return String(describing: error)
        }
    }

    private static func detail(_ context: DecodingError.Context) -> String {
        guard let underlying = context.underlyingError else {
            return context.debugDescription
        }
        return "\(context.debugDescription) (\(underlying))"
    }

    /// A coding path as a reader writes it: `users[0].name`, or `the top level` when empty. Array positions are the
    /// keys that JSONDecoder names `Index N`.
    package static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else {
            return "the top level"
        }
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
