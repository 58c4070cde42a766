import Foundation
import Testing

/// One thing the hostile server (`Tests/FetchTests/Support/Server/hostile_server.py`) does at `/hostile/<name>`, how the suite calls
/// it, and what Fetch must make of it.
///
/// Whatever the expectation, every behaviour must leave the process alive, end within ``HostileBounds/timeBound``
/// and grow the process's memory by less than ``HostileBounds/memoryBound``; an error must be a `FetchError` whose
/// message names the request (its method and URL).
struct HostileBehaviour: Sendable, CustomTestStringConvertible {
    /// How the suite calls the behaviour's path.
    enum Call: Sendable {
        /// `perform` a GET, reading the body as `Data`.
        case get
        /// `perform` a POST of a 1 MiB body.
        case post
        /// `perform` a GET with `Authorization: Basic` of a wrong password.
        case getWithBasicHeader
        /// `perform` a GET whose URL carries a user and a wrong password.
        case getWithURLCredentials
        /// `perform` a GET through `.with(.retry())`, whose policy reads `Retry-After`.
        case getRetrying
        /// Two GETs through `.cache(ResponseCache(offlinePolicy: .serveStoredOnFailure))`: the server answers the first with a
        /// cacheable response and drops the second, so that the stored response is served stale.
        case getCachedTwice
        /// `stream` a GET and read its first line from `lines`.
        case firstLine
        /// Read the first event of `events` (never reconnecting).
        case firstEvent
        /// Read `events` (reconnecting as the server asks) for ``HostileBounds/eventsWindow``, then cancel, and
        /// count the connections the server saw.
        case eventsWindow
        /// `download` to a file with a `DownloadResumption` of 5 attempts whose waits take no time, then check that
        /// the file holds one version of the resource (the server sends each version as one repeated byte).
        case downloadResuming
    }

    /// What the call must end with.
    enum Expectation: Sendable, CustomStringConvertible {
        /// The call succeeds: the server's answer is odd but usable.
        case success
        /// The call fails with a `FetchError` naming the request.
        case failure
        /// Either is right (an RFC leaves it open, or the transports differ and both are safe); an error still names
        /// the request.
        case eitherOutcome

        var description: String {
            switch self {
            case .success: "success"
            case .failure: "a FetchError naming the request"
            case .eitherOutcome: "success or a FetchError naming the request"
            }
        }
    }

    /// The path's last component, the same in `hostile_server.py`.
    let name: String
    let call: Call
    let expectation: Expectation
    /// Whether every face must fail with the same error (the same case, the same `URLError` code): a body cut
    /// midway must not mean one thing on URLSession and another on libcurl.
    let failsAlikeOnEveryFace: Bool

    /// A defect of swift-corelibs-foundation that kills the process on a URLSession face, which no code above
    /// URLSession can avoid: the behaviour is then a known issue there, until a toolchain with the fix (see
    /// ``HostileServerTests``).
    let urlSessionDefect: String?

    /// Whether, on a URLSession face, the behaviour keeps swift-corelibs-foundation's one queue for every
    /// `URLSession` of the process busy past the call's end: a head of endless or many thousands of fields, which
    /// corelibs copies line by line, or a gzip bomb it inflates, so that the task's cancel waits. The call itself ends at its timeout; the
    /// behaviour runs in a child of its own there, so that the wait does not fall on the next behaviour.
    let holdsURLSessionQueue: Bool

    init(
        _ name: String, _ call: Call, _ expectation: Expectation, failsAlikeOnEveryFace: Bool = false,
        urlSessionDefect: String? = nil, holdsURLSessionQueue: Bool = false
    ) {
        self.holdsURLSessionQueue = holdsURLSessionQueue
        self.name = name
        self.call = call
        self.expectation = expectation
        self.failsAlikeOnEveryFace = failsAlikeOnEveryFace
        self.urlSessionDefect = urlSessionDefect
    }

    /// A behaviour called with a plain GET.
    init(_ name: String, _ expectation: Expectation, failsAlikeOnEveryFace: Bool = false) {
        self.init(name, .get, expectation, failsAlikeOnEveryFace: failsAlikeOnEveryFace)
    }

    var testDescription: String { name }

    /// Every behaviour, in the order a child runs them.
    static let all: [HostileBehaviour] = [
        // Status lines.
        HostileBehaviour("status-overflow", .failure),  // 99999999999999999999999: libcurl traps
        HostileBehaviour("status-later-http-line", .failure),  // a 500 whose later `HTTP/1.1 200 OK` line wins
        HostileBehaviour("status-garbage", .failure),
        HostileBehaviour("status-missing", .failure),
        HostileBehaviour("http09", .failure),
        HostileBehaviour("status-empty-reason", .success),  // `HTTP/1.1 200 `: RFC 9112 allows an empty reason
        HostileBehaviour("status-no-reason", .eitherOutcome),  // `HTTP/1.1 200`: the space before it is missing
        HostileBehaviour("status-000", .failure),
        HostileBehaviour("status-1000", .failure),
        HostileBehaviour("status-negative", .failure),
        HostileBehaviour(
            "status-line-then-close", .get, .failure,
            urlSessionDefect: "swift-corelibs-foundation #5285: a transfer that ends after the status line traps in "
                + "_NativeProtocol.transferCompleted (fixed for Swift 6.4)"),
        HostileBehaviour("version-unknown", .eitherOutcome),
        // Header lines and heads.
        // corelibs reads the head itself, and a line with no colon leaves it without a response: the same trap, at
        // times (CI saw it once on the configuration face; the curl face and most runs pass).
        HostileBehaviour(
            "header-no-colon", .get, .eitherOutcome,
            urlSessionDefect: "swift-corelibs-foundation #5285: a head corelibs cannot read traps in "
                + "_NativeProtocol.transferCompleted (\"Transfer completed, but there's no response\")"),
        HostileBehaviour("header-nul", .eitherOutcome),
        HostileBehaviour("header-non-utf8", .eitherOutcome),
        HostileBehaviour("header-10mb", .failure),
        HostileBehaviour("headers-100k", .get, .eitherOutcome, holdsURLSessionQueue: true),
        HostileBehaviour("head-endless", .get, .failure, holdsURLSessionQueue: true),
        HostileBehaviour("head-trickle", .failure),
        // Content-Length.
        HostileBehaviour("cl-negative", .failure),
        HostileBehaviour("cl-overflow", .failure),
        HostileBehaviour("cl-garbage", .failure),
        HostileBehaviour("cl-conflict", .failure),
        HostileBehaviour("cl-smaller", .success),
        HostileBehaviour("cl-larger-then-close", .failure, failsAlikeOnEveryFace: true),
        HostileBehaviour("cl-huge-declared", .failure),
        HostileBehaviour("body-no-cl-400mb", .failure),  // Session() read it whole before checking the limit
        HostileBehaviour("body-stall-cl", .failure),
        HostileBehaviour("body-stall-no-cl", .failure),
        HostileBehaviour("body-trickle", .failure),  // an idle timeout that each byte restarts never fires
        HostileBehaviour("http10-no-cl-close", .success),
        // Chunked bodies.
        HostileBehaviour("chunk-size-overflow", .failure),
        HostileBehaviour("chunk-size-negative", .failure),
        HostileBehaviour("chunk-size-nonhex", .failure),
        HostileBehaviour("chunked-with-cl", .eitherOutcome),
        HostileBehaviour("chunk-missing-final", .failure, failsAlikeOnEveryFace: true),
        HostileBehaviour("chunk-ext-1mb", .eitherOutcome),
        HostileBehaviour("chunk-trailers-endless", .get, .failure, holdsURLSessionQueue: true),
        HostileBehaviour("chunk-size-huge", .failure),
        // Content-Encoding: a gzip body of 1 GiB of zeros is caught at the limit, or passed on undecoded.
        HostileBehaviour("gzip-bomb", .get, .eitherOutcome, holdsURLSessionQueue: true),
        HostileBehaviour("gzip-garbage", .eitherOutcome),
        // Connections.
        HostileBehaviour("close-before-any-byte", .failure),
        HostileBehaviour("reset-before-any-byte", .failure),
        HostileBehaviour("reset-mid-body", .failure, failsAlikeOnEveryFace: true),
        HostileBehaviour("early-response", .post, .failure),
        // Redirects.
        HostileBehaviour("redirect-loop", .failure),
        HostileBehaviour("redirect-file", .failure),
        HostileBehaviour("redirect-ftp", .failure),
        HostileBehaviour("redirect-gopher", .failure),
        HostileBehaviour("redirect-javascript", .failure),
        HostileBehaviour("redirect-location-garbage", .failure),
        HostileBehaviour("redirect-port-overflow", .failure),
        HostileBehaviour("redirect-no-location", .failure),
        // Informational and bodiless statuses.
        HostileBehaviour("continue-forever", .failure),
        HostileBehaviour("switching-protocols", .failure),
        HostileBehaviour("no-content-with-body", .success),
        HostileBehaviour("not-modified-with-body", .failure),
        // Numbers the middlewares read.
        HostileBehaviour("retry-after-huge", .getRetrying, .failure),
        HostileBehaviour("retry-after-overflow", .getRetrying, .failure),
        HostileBehaviour("cache-age-huge", .getCachedTwice, .success),  // Age: 1e300 trapped when served stale
        HostileBehaviour("cache-age-inf", .getCachedTwice, .success),
        HostileBehaviour("cache-age-nan", .getCachedTwice, .success),
        // Authentication: corelibs never completed a 401 Basic challenge to a wrong password.
        HostileBehaviour("auth-basic-wrong-header", .getWithBasicHeader, .failure),
        HostileBehaviour("auth-basic-url-credentials", .getWithURLCredentials, .failure),
        // Streams: a line or an event that never ends is bounded; `retry:` cannot make a hot loop or a trap.
        HostileBehaviour("lines-no-newline", .firstLine, .failure),
        HostileBehaviour("sse-no-newline", .firstEvent, .failure),
        HostileBehaviour("sse-retry-huge", .eventsWindow, .success),
        HostileBehaviour("sse-retry-overflow", .eventsWindow, .success),
        HostileBehaviour("sse-retry-zero", .eventsWindow, .success),
        // Resumable downloads: a weak validator never splices two versions; every download ends.
        HostileBehaviour("download-weak-validator-splice", .downloadResuming, .success),
        HostileBehaviour("download-drop-then-overlong-206", .downloadResuming, .failure),  // 197 requests in 40 s
        HostileBehaviour("download-drop-then-shifted-206", .downloadResuming, .failure),
    ]

    /// The behaviours this run tests: all of them, or those that `FETCH_HOSTILE_ONLY` names (a comma-separated
    /// list of names or prefixes, `FETCH_HOSTILE_ONLY=cache-age,sse-`), to try a fix without the rest.
    static let selected: [HostileBehaviour] = {
        guard let only = ProcessInfo.processInfo.environment["FETCH_HOSTILE_ONLY"], !only.isEmpty else {
            return all
        }
        let prefixes = only.split(separator: ",").map(String.init)
        return all.filter { behaviour in prefixes.contains { behaviour.name.hasPrefix($0) } }
    }()

    /// The behaviour named `name`.
    static func named(_ name: String) -> HostileBehaviour? {
        all.first { $0.name == name }
    }
}
