// The code samples of the DocC article "Writing a middleware" (Sources/Fetch/Fetch.docc/WritingAMiddleware.md),
// compiled and run here so that they cannot rot; DocSampleTests checks that each DOC-BEGIN…DOC-END region matches a
// block of the article.

import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct WritingAMiddlewareArticle {
    // DOC-BEGIN
    struct APIKey: Middleware {
        let key: String

        func intercept(
            _ request: any Request,
            context: CallContext,
            next: Next,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            var keyed = AdaptedRequest(request)
            keyed.headers["X-API-Key"] = key
            next(keyed, completion: completion)
        }
    }
    // DOC-END

    static func closures(session: Session, key: String) {
        // DOC-BEGIN
        let api = session.with(
            .adapt { request in
                request.headers["X-API-Key"] = key
            },
            .intercept { request, context, next, completion in
                next(request) { answer in
                    completion(answer)
                }
            })
        // DOC-END
        _ = api
    }

    // DOC-BEGIN
    struct Offline: Middleware {
        let isOffline: @Sendable () -> Bool

        func intercept(
            _ request: any Request,
            context: CallContext,
            next: Next,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            guard !isOffline() else {
                completion(.failure(URLError(.notConnectedToInternet)))
                return
            }
            next(request, completion: completion)
        }
    }
    // DOC-END

    // DOC-BEGIN
    struct RetryOnceOn503: Middleware {
        let delay: TimeInterval
        let scheduler: any Scheduling

        func intercept(
            _ request: any Request,
            context: CallContext,
            next: Next,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            next(request) { result in
                guard case .success(let response) = result, response.status == 503 else {
                    completion(result)
                    return
                }
                context.report(.retrying(request, attempt: 2, delay: delay, reason: "503 Service Unavailable"))
                let wait = scheduler.schedule(after: delay) {
                    next(request, completion: completion)
                }
                context.onCancel { wait.cancel() }
            }
        }
    }
    // DOC-END

    static func stack(session: Session, key: String) {
        // DOC-BEGIN
        let api =
            session
            .with(RetryOnceOn503(delay: 1, scheduler: DispatchScheduler()))
            .with(APIKey(key: key))
            .with(.observe { event in print(event) })
        // DOC-END
        _ = api
    }

    // DOC-BEGIN
    @Test func retriesOnceAfterA503() throws {
        let spy = SpyPerformer()
        let scheduler = TestScheduler()
        let answer = Captured<Result<Response, any Error>>()
        let api = spy.with(RetryOnceOn503(delay: 2, scheduler: scheduler))
        api.perform(APIRequest(baseURL), completion: answer.capture)

        spy.complete(with: MockResponse(status: 503))
        #expect(spy.requests.count == 2)
        #expect(scheduler.delays == [2])
        spy.complete(with: MockResponse(status: 200))
        #expect(try answer.value?.get().status == 200)
    }

    @Test func sendsNothingMoreWhenCancelledDuringTheWait() throws {
        let spy = SpyPerformer()
        let scheduler = TestScheduler(runsImmediately: false)
        let answer = Captured<Result<Response, any Error>>()
        let api = spy.with(RetryOnceOn503(delay: 2, scheduler: scheduler))
        let call = api.perform(APIRequest(baseURL), completion: answer.capture)

        spy.complete(with: MockResponse(status: 503))
        call.cancel()
        scheduler.advance(by: 2)
        #expect(spy.requests.count == 1)
        #expect(throws: FetchError.self) { try answer.value?.get() }
    }
    // DOC-END
}
