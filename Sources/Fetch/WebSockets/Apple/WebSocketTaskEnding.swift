import Foundation

/// How a `URLSessionWebSocketTask` (Apple platforms) ended when a receive, send or ping failed: decided from what
/// the task reports, on every platform, so that the rule is tested on Linux too.
///
/// `task.closeCode` does not say who closed: it is 1009 both when the task refused a message over its
/// `maximumMessageSize` and when the server closed with 1009 (about a message of the client's). Only a close frame
/// that reached the delegate (`urlSession(_:webSocketTask:didCloseWith:reason:)`) is the server's.
enum WebSocketTaskEnding: Equatable {
    /// The task refused a message over the maximum message size, and closed with 1009 itself.
    case overMessageLimit
    /// The server's close frame arrived: its code (`nil` for none) and reason.
    case closedByServer(code: Int?, reason: String)
    /// The connection ended without a close frame from the server: the task's close code, or 1006.
    case dropped(code: Int)

    /// The ending of a task whose operation failed with `error`.
    ///
    /// - Parameters:
    ///   - error: The failure the task reported, if any.
    ///   - serverClose: The server's close frame, if the delegate saw one.
    ///   - taskCloseCode: The task's `closeCode`, as its raw value (0, `.invalid`, while it is not closed).
    /// - Returns: The ending.
    static func of(error: (any Error)?, serverClose: (code: Int?, reason: String)?, taskCloseCode: Int) -> Self {
        if let error, isOverMessageLimit(error) {
            return .overMessageLimit
        }
        if let serverClose {
            return .closedByServer(code: serverClose.code, reason: serverClose.reason)
        }
        // No close frame came from the server, so a 1009 is the one the task sent.
        if taskCloseCode == 1009 {
            return .overMessageLimit
        }
        return .dropped(code: taskCloseCode == 0 ? 1006 : taskCloseCode)
    }

    /// Whether `error` is the task's refusal of a message over its `maximumMessageSize`: POSIX `EMSGSIZE`
    /// ("Message too long").
    static func isOverMessageLimit(_ error: any Error) -> Bool {
        let error = error as NSError
        return error.domain == NSPOSIXErrorDomain && error.code == Int(POSIXErrorCode.EMSGSIZE.rawValue)
    }
}
