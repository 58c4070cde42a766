import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a transport follows redirects: which ones it refuses, and which headers never travel to another origin.
///
/// Whatever the platform's `URLSession` would do, a `Session` removes credentials (the sensitive headers) from a
/// redirected request as soon as it leaves the origin (scheme, host and port) of the original request, and never puts
/// them back on later hops. On Linux, a plain `URLSession` forwards `Authorization: Bearer …` from
/// `http://127.0.0.1:8080` to `http://localhost:8080`; a `Session` does not.
public struct RedirectPolicy: Sendable {
    /// The most redirects one request follows; the next one fails with
    /// ``FetchError/redirectRefused(from:to:reason:request:)``. `0` follows none: the caller receives the 3xx response
    /// itself. The default is 10.
    public var maximumRedirects: Int

    /// Whether a redirect from `https` to `http` is followed. The default is `false`: it fails with
    /// ``FetchError/redirectRefused(from:to:reason:request:)``, so that nothing sent over TLS is repeated in clear
    /// text.
    public var allowsInsecureRedirects: Bool

    /// Header fields removed from a request redirected to another origin, matched case-insensitively, besides the
    /// secrets ``Redaction`` always knows (`X-API-Key`, `Api-Key`, names containing `token` or `secret`, …), which
    /// are removed too. The default is `Authorization`, `Proxy-Authorization` and `Cookie`; add your own.
    public var sensitiveHeaders: Set<String>

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maximumRedirects: The most redirects one request follows; the next one fails with
    ///     ``FetchError/redirectRefused(from:to:reason:request:)``. `0` follows none: the caller receives the 3xx
    ///     response itself. The default is 10.
    ///   - allowsInsecureRedirects: Whether a redirect from `https` to `http` is followed. The default is `false`: it
    ///     fails with ``FetchError/redirectRefused(from:to:reason:request:)``, so that nothing sent over TLS is
    ///     repeated in clear text.
    ///   - sensitiveHeaders: The header fields removed from a request redirected to another origin, matched
    ///     case-insensitively. The default is `Authorization`, `Proxy-Authorization` and `Cookie`; add your own. The
    ///     header fields ``Redaction`` always treats as secrets (`X-API-Key`, `Api-Key`, `X-Session-Id`, and every
    ///     name containing `token`, `secret`, `password` or `signature`) are removed as well, whatever this says.
    public init(
        maximumRedirects: Int = 10,
        allowsInsecureRedirects: Bool = false,
        sensitiveHeaders: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie"]
    ) {
        self.maximumRedirects = maximumRedirects
        self.allowsInsecureRedirects = allowsInsecureRedirects
        self.sensitiveHeaders = sensitiveHeaders
    }

    /// The default policy: up to 10 redirects, no `https` → `http`, credentials kept to their origin.
    package static let `default` = RedirectPolicy()

    /// What to do with one redirect.
    package enum Decision: Sendable, Equatable {
        /// Follow the redirect with this request (sensitive headers already removed where needed).
        case follow(URLRequest)
        /// Do not follow it; the caller receives the 3xx response.
        case stop
        /// Do not follow it; the call fails with ``FetchError/redirectRefused(from:to:reason:request:)``.
        case refuse(reason: String)
    }

    /// Decides what to do with a redirect.
    ///
    /// - Parameters:
    ///   - redirect: The request the platform proposes for the next hop.
    ///   - originalURL: The URL of the request as it was first sent.
    ///   - currentURL: The URL that answered with the redirect.
    ///   - redirectsSoFar: How many redirects this request has already followed.
    ///   - hasLeftOrigin: Whether an earlier hop already left the original origin.
    /// - Returns: The decision.
    package func decide(
        redirect: URLRequest,
        originalURL: URL,
        currentURL: URL,
        redirectsSoFar: Int,
        hasLeftOrigin: Bool
    ) -> Decision {
        guard maximumRedirects > 0 else {
            return .stop
        }
        guard redirectsSoFar < maximumRedirects else {
            return .refuse(reason: "more than \(maximumRedirects) redirects")
        }
        guard let target = redirect.url else {
            return .refuse(reason: "the redirect has no URL")
        }
        if !allowsInsecureRedirects, currentURL.scheme?.lowercased() == "https", target.scheme?.lowercased() != "https"
        {
            return .refuse(reason: "it would send an https request over \(target.scheme ?? "an unknown scheme")")
        }
        var next = redirect
        if hasLeftOrigin || Origin(originalURL) != Origin(target) {
            for name in next.allHTTPHeaderFields?.keys.filter(isSensitive) ?? [] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return .follow(next)
    }

    /// Whether `name` stays behind on another origin: one of ``sensitiveHeaders``, or a secret of Fetch's one list,
    /// ``Redaction/default``.
    private func isSensitive(_ name: String) -> Bool {
        sensitiveHeaders.contains { HeaderName.equal($0, name) } || Redaction.default.redactsHeader(name)
    }
}

/// A transport that follows redirects as a ``RedirectPolicy`` decides: the pipeline reads the policy to say why a
/// redirect answered a call.
package protocol RedirectFollowing {
    /// How the transport follows redirects.
    var redirectPolicy: RedirectPolicy { get }
}

/// The origin of a URL: scheme, host and port (RFC 6454), with default ports made explicit.
package struct Origin: Equatable {
    let scheme: String?
    let host: String?
    let port: Int?

    package init(_ url: URL) {
        scheme = url.scheme?.lowercased()
        host = url.host?.lowercased()
        port = url.port ?? Self.defaultPort(of: scheme)
    }

    private static func defaultPort(of scheme: String?) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }
}

/// One request's way through its redirects: how many it has followed, whether it has left its origin, and why one
/// was refused. `Session` keeps one per task, behind the task's lock, and ask it at each hop.
package struct RedirectTracker {
    private let originalURL: URL
    private var redirects = 0
    private var hasLeftOrigin = false

    /// Why the last redirect was refused, if it was: the call fails with this error rather than the 3xx response.
    package private(set) var refusal: FetchError?

    package init(originalURL: URL) {
        self.originalURL = originalURL
    }

    /// The request to follow `redirect` with, or `nil` to stop (recording a refusal when the policy refuses).
    package mutating func next(
        after response: HTTPURLResponse,
        redirect: URLRequest,
        policy: RedirectPolicy
    ) -> URLRequest? {
        let currentURL = response.url ?? originalURL
        let decision = policy.decide(
            redirect: redirect,
            originalURL: originalURL,
            currentURL: currentURL,
            redirectsSoFar: redirects,
            hasLeftOrigin: hasLeftOrigin
        )
        switch decision {
        case .follow(let next):
            redirects += 1
            if let target = next.url, Origin(originalURL) != Origin(target) {
                hasLeftOrigin = true
            }
            return next
        case .stop:
            return nil
        case .refuse(let reason):
            refusal = FetchError.redirectRefused(from: currentURL, to: redirect.url ?? currentURL, reason: reason)
                .refusing(status: response.statusCode)
            return nil
        }
    }
}
