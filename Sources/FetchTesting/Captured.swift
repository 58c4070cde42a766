import Fetch

/// Keeps what a `@Sendable` completion handler delivers, so that a synchronous test can read it on the next line.
///
/// Swift 6 does not let a `@Sendable` closure assign to a local `var`; hand `capture` to the call instead:
///
/// ```swift
/// let user = Captured<Result<User, any Error>>()
/// MockPerformer(response: .json(#"{"id": 1, "name": "Ada"}"#)).perform(GetUser(id: 1), completion: user.capture)
/// #expect(try user.value?.get().name == "Ada")
/// ```
///
/// Thread-safe.
public final class Captured<Value: Sendable>: Sendable {
    private let captured = Locked([Value]())

    /// Creates an empty capture.
    public init() {}

    /// Keeps `value`. Pass this method as a completion handler.
    ///
    /// - Parameter value: The delivered value.
    @Sendable public func capture(_ value: Value) {
        captured.withLock { $0.append(value) }
    }

    /// The last value delivered, or `nil` when nothing was.
    public var value: Value? {
        captured.withLock { $0.last }
    }

    /// Every value delivered, in order: a completion called twice shows here twice.
    public var values: [Value] {
        captured.withLock { $0 }
    }
}
