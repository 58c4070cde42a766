import Foundation

extension RequestPerforming {
    /// This performer, with each request adapted by `adapters` in order before it is sent.
    ///
    /// - Parameter adapters: The adapters, in the order they run.
    /// - Returns: An ``AdaptingPerformer`` around this performer.
    public func adapting(_ adapters: [any RequestAdapting]) -> AdaptingPerformer {
        AdaptingPerformer(wrapping: self, adapters: adapters)
    }

    /// This performer, with `authenticator`'s credentials on every request, refreshed once when rejected.
    ///
    /// - Parameter authenticator: The source of credentials.
    /// - Returns: An ``AuthenticatingPerformer`` around this performer.
    public func authenticating(with authenticator: any Authenticator) -> AuthenticatingPerformer {
        AuthenticatingPerformer(wrapping: self, authenticator: authenticator)
    }

    /// This performer, retrying failed requests as `policy` says.
    ///
    /// - Parameters:
    ///   - policy: When and how often to retry. The default is ``RetryPolicy/default``.
    ///   - scheduler: The clock for waits and the deadline. The default is real time.
    ///   - onEvent: Called with ``FetchEvent/retrying(_:attempt:delay:reason:)`` before each wait.
    /// - Returns: A ``RetryingPerformer`` around this performer.
    public func retrying(
        _ policy: RetryPolicy = .default,
        scheduler: any Scheduling = DispatchScheduler(),
        onEvent: (@Sendable (FetchEvent) -> Void)? = nil
    ) -> RetryingPerformer {
        RetryingPerformer(wrapping: self, policy: policy, scheduler: scheduler, onEvent: onEvent)
    }

    /// This performer, reporting every call as ``FetchEvent``s.
    ///
    /// - Parameter onEvent: Called with each event.
    /// - Returns: An ``ObservingPerformer`` around this performer.
    public func observing(_ onEvent: @escaping @Sendable (FetchEvent) -> Void) -> ObservingPerformer {
        ObservingPerformer(wrapping: self, onEvent: onEvent)
    }
}

extension RequestPerforming {
    /// This performer behind a memory-bounded HTTP cache that answers from stored responses while they are fresh.
    ///
    /// - Parameters:
    ///   - maximumBytes: The most bytes of bodies and headers to keep. The default is 16 MiB.
    ///   - storesPrivateResponses: Whether to store responses marked `Cache-Control: private`. The default is
    ///     `true`.
    ///   - offlinePolicy: Whether stored responses answer when the network fails. The default is
    ///     ``CachingPerformer/OfflinePolicy/never``.
    /// - Returns: A ``CachingPerformer`` around this performer.
    public func caching(
        maximumBytes: Int = 16 << 20,
        storesPrivateResponses: Bool = true,
        offlinePolicy: CachingPerformer.OfflinePolicy = .never
    ) -> CachingPerformer {
        CachingPerformer(
            self, maximumBytes: maximumBytes, storesPrivateResponses: storesPrivateResponses,
            offlinePolicy: offlinePolicy)
    }

    /// This performer behind an HTTP cache that keeps responses in files in `directory` (and the most recently
    /// used in memory), so that they outlive the process.
    ///
    /// - Parameters:
    ///   - directory: The directory for the cache's files, created if needed; the cache's own.
    ///   - maximumDiskBytes: The most bytes of files to keep. The default is 64 MiB.
    ///   - maximumBytes: The most bytes of bodies and headers to keep in memory as well. The default is 16 MiB.
    ///   - storesPrivateResponses: Whether to store responses marked `Cache-Control: private`. The default is
    ///     `true`.
    ///   - offlinePolicy: Whether stored responses answer when the network fails. The default is
    ///     ``CachingPerformer/OfflinePolicy/never``.
    /// - Returns: A ``CachingPerformer`` around this performer.
    /// - Throws: The file system's error when `directory` cannot be created or listed.
    public func caching(
        directory: URL,
        maximumDiskBytes: Int = 64 << 20,
        maximumBytes: Int = 16 << 20,
        storesPrivateResponses: Bool = true,
        offlinePolicy: CachingPerformer.OfflinePolicy = .never
    ) throws -> CachingPerformer {
        try CachingPerformer(
            self, directory: directory, maximumDiskBytes: maximumDiskBytes, maximumBytes: maximumBytes,
            storesPrivateResponses: storesPrivateResponses, offlinePolicy: offlinePolicy)
    }

    /// This performer, with identical safe requests in flight sharing one network request.
    ///
    /// - Returns: A ``DeduplicatingPerformer`` around this performer.
    public func deduplicating() -> DeduplicatingPerformer {
        DeduplicatingPerformer(self)
    }
}
