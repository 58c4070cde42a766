import Fetch
import Foundation

/// A `RequestPerforming` object that logs each request and its outcome, then passes it on: what `--debug` adds.
///
/// It shows that performers compose: the ``API`` neither knows nor cares that its calls are logged.
struct DebugLogPerformer: RequestPerforming {
    let performer: any RequestPerforming
    let log: @Sendable (String) -> Void

    @discardableResult
    func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        let call = "\(request.method) \(request.url.absoluteString)"
        log("→ \(call)")
        return performer.perform(request, errorParser: errorParser) { (result: Result<T, any Error>) in
            switch result {
            case .success: log("← \(call): \(T.self)")
            case .failure(let error): log("← \(call) failed: \(error)")
            }
            completion(result)
        }
    }
}
