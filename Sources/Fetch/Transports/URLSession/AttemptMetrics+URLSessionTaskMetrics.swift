#if !canImport(FoundationNetworking) || FETCH_APPLE_BRANCHES
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension AttemptMetrics {
        /// What `URLSession` collected of a task on Apple platforms: the phases, bytes, protocol and connection of
        /// its last transaction that went to the network, timed from the task's start. The redirects are the ones
        /// Fetch's delegate followed, which the call adds.
        init(collected metrics: URLSessionTaskMetrics) {
            let start = metrics.taskInterval.start
            self.init(start: start)
            let transactions = metrics.transactionMetrics
            guard let last = transactions.last(where: { $0.resourceFetchType == .networkLoad }) ?? transactions.last
            else {
                duration = Self.interval(from: start, to: metrics.taskInterval.end)
                return
            }
            timeToFirstByte = Self.interval(from: start, to: last.responseStartDate)
            duration = Self.interval(from: start, to: last.responseEndDate ?? metrics.taskInterval.end)
            requestHeaderBytes = Self.count(last.countOfRequestHeaderBytesSent)
            requestBodyBytes = Self.count(last.countOfRequestBodyBytesSent)
            responseHeaderBytes = Self.count(last.countOfResponseHeaderBytesReceived)
            responseBodyBytes = Self.count(last.countOfResponseBodyBytesReceived)
            responseBodyDecodedBytes = Self.count(last.countOfResponseBodyBytesAfterDecoding)
            httpVersion = last.networkProtocolName.flatMap(Self.httpVersion(named:))
            guard last.resourceFetchType == .networkLoad else {
                return
            }
            isReusedConnection = last.isReusedConnection
            remoteAddress = last.remoteAddress
            remotePort = Self.port(last.remotePort)
            guard !last.isReusedConnection else {
                return
            }
            domainLookup = Self.interval(from: last.domainLookupStartDate, to: last.domainLookupEndDate)
            // The connect phase ends where TLS starts: AttemptMetrics' connect is TCP alone.
            connect = Self.interval(
                from: last.connectStartDate, to: last.secureConnectionStartDate ?? last.connectEndDate)
            secureConnection = Self.interval(from: last.secureConnectionStartDate, to: last.secureConnectionEndDate)
        }

        /// The seconds from `start` to `end`; `nil` when either is unknown or `end` comes first.
        private static func interval(from start: Date?, to end: Date?) -> TimeInterval? {
            guard let start, let end, end >= start else {
                return nil
            }
            return end.timeIntervalSince(start)
        }

        /// A byte count `URLSession` reported; `nil` when it is negative.
        private static func count(_ value: Int64) -> Int? {
            value >= 0 ? Int(exactly: value) : nil
        }

        /// A port as Apple platforms give it.
        private static func port(_ value: Int?) -> Int? {
            value.flatMap { (1...65_535).contains($0) ? $0 : nil }
        }

        /// A port as swift-corelibs-foundation declares it (where FETCH_APPLE_BRANCHES type-checks this file).
        private static func port(_ value: String?) -> Int? {
            port(value.flatMap { Int($0) })
        }
    }
#endif
