import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct SpyPerformerTests {
    @Test func recordsEveryRequestInOrder() {
        let spy = SpyPerformer()
        spy.perform(TestRequest("https://api.example.com/a")) { (_: Result<Data, any Error>) in }
        spy.perform(TestRequest("https://api.example.com/b", method: .post)) { (_: Result<Data, any Error>) in }
        #expect(spy.requests.map(\.url.path) == ["/a", "/b"])
        #expect(spy.requests.map(\.method) == [.get, .post])
    }

    @Test func holdsCallsUntilTheTestCompletesThem() throws {
        let spy = SpyPerformer()
        let results = Locked([Result<User, any Error>]())
        spy.perform(TestRequest("https://api.example.com/users/1")) { result in results.withLock { $0.append(result) } }
        #expect(results.withLock { $0.isEmpty })
        #expect(spy.pendingCalls.count == 1)

        spy.complete(with: .json(#"{"id": 1, "name": "Ada", "createdAt": "2026-11-30T08:42:12Z"}"#))
        #expect(try results.withLock { $0 }.first?.get().name == "Ada")
        #expect(spy.pendingCalls.isEmpty)
        spy.complete(with: MockResponse(status: 500))
        #expect(results.withLock { $0.count } == 1)
    }

    @Test func failsPendingCallsAsTheTransportWould() throws {
        let spy = SpyPerformer()
        let result = Locked<Result<User, any Error>?>(nil)
        spy.perform(TestRequest("https://api.example.com/users/1")) { value in result.withLock { $0 = value } }
        spy.fail(with: URLError(.timedOut))
        guard case .timedOut = try fetchError(result.withLock { $0 }).fetchKind else {
            Issue.record("expected .timedOut")
            return
        }
    }

    @Test func completesWithTheErrorParserOfTheCall() {
        let spy = SpyPerformer()
        let result = Locked<Result<User, any Error>?>(nil)
        spy.perform(TestRequest("https://api.example.com/users/9"), errorParser: DecodableErrorParser<APIError>()) {
            value in
            result.withLock { $0 = value }
        }
        spy.complete(with: .json(#"{"error": true, "reason": "no user 9"}"#, status: 404))
        #expect(throws: APIError(error: true, reason: "no user 9")) { try result.withLock { $0 }?.get() }
    }

    @Test func cancellingAPendingCallRecordsItAndCompletesWithCancelledOnce() throws {
        let spy = SpyPerformer()
        let results = Locked([Result<Data, any Error>]())
        let call = spy.perform(TestRequest("https://api.example.com/slow")) { result in
            results.withLock { $0.append(result) }
        }
        call.cancel()
        call.cancel()
        spy.complete(with: MockResponse(status: 200))
        #expect(spy.calls.first?.isCancelled == true)
        #expect(results.withLock { $0.count } == 1)
        guard case .cancelled = try fetchError(results.withLock { $0.first }).fetchKind else {
            Issue.record("expected .cancelled")
            return
        }
    }

    @Test func forwardsToAWrappedPerformerAndStillRecords() throws {
        let spy = SpyPerformer(forwardingTo: MockPerformer { _ in .text("hello") })
        let result = Locked<Result<String, any Error>?>(nil)
        spy.perform(TestRequest("https://api.example.com/greeting")) { value in result.withLock { $0 = value } }
        #expect(try result.withLock { $0 }?.get() == "hello")
        #expect(spy.requests.first?.url.path == "/greeting")
        #expect(spy.pendingCalls.isEmpty)
    }

    @Test func cancellingAForwardedCallCancelsItAtTheWrappedPerformer() {
        let inner = SpyPerformer()
        let outer = SpyPerformer(forwardingTo: inner)
        let results = Locked([Result<Data, any Error>]())
        let call = outer.perform(TestRequest("https://api.example.com/x")) { result in
            results.withLock { $0.append(result) }
        }
        call.cancel()
        #expect(inner.calls.first?.isCancelled == true)
        #expect(outer.calls.first?.isCancelled == true)
        #expect(results.withLock { $0.count } == 1)
    }

    @Test func isSafeToUseFromManyThreads() async {
        let spy = SpyPerformer()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    spy.perform(TestRequest("https://api.example.com/\(index)")) { (_: Result<Data, any Error>) in }
                }
            }
        }
        #expect(spy.requests.count == 200)
        #expect(Set(spy.requests.map(\.url.path)).count == 200)
    }
}

@Suite struct SpyPerformerNextCallTests {
    @Test func awaitsACallMadeFromAnotherTask() async throws {
        let spy = SpyPerformer()
        let answer = Task {
            let user: User = try await spy.perform(TestRequest("https://api.example.com/users/7"))
            return user
        }
        let call = try await spy.nextCall()
        #expect(call.request.url.path == "/users/7")
        #expect(call.isPending)
        call.complete(with: .json(#"{"id": 7, "name": "Ada", "createdAt": "2026-11-30T08:42:12Z"}"#))
        #expect(try await answer.value.name == "Ada")
    }

    @Test func returnsEachCallOnceInTheOrderTheyWereMadeEvenWhenTheyArrivedFirst() async throws {
        let spy = SpyPerformer()
        spy.perform(TestRequest("https://api.example.com/a")) { (_: Result<Data, any Error>) in }
        spy.perform(TestRequest("https://api.example.com/b")) { (_: Result<Data, any Error>) in }
        #expect(try await spy.nextCall().request.url.path == "/a")
        #expect(try await spy.nextCall().request.url.path == "/b")
        let third = Task { try await spy.nextCall().request.url.path }
        spy.perform(TestRequest("https://api.example.com/c")) { (_: Result<Data, any Error>) in }
        #expect(try await third.value == "/c")
    }

    @Test func timesOutWhenNoCallComesAndTheNextWaitStillGetsTheCall() async throws {
        let spy = SpyPerformer()
        await #expect(throws: CaptureTimeout.self) { try await spy.nextCall(timeout: 0.05) }
        spy.perform(TestRequest("https://api.example.com/late")) { (_: Result<Data, any Error>) in }
        #expect(try await spy.nextCall().request.url.path == "/late")
    }

    @Test func seesTheCallsOfAForwardingSpy() async throws {
        let spy = SpyPerformer(forwardingTo: MockPerformer { _ in .text("hello") })
        let text = Task { () -> String in try await spy.perform(TestRequest("https://api.example.com/greeting")) }
        let call = try await spy.nextCall()
        #expect(call.request.url.path == "/greeting")
        #expect(try await text.value == "hello")
    }
}
