/// The values parsed from one response, one per type, kept by a cache so that fresh hits skip parsing. Values are
/// immutable and `Sendable`, so callers share them safely.
package final class ParsedValues: Sendable {
    private let values = Locked([ObjectIdentifier: any Sendable]())

    package init() {}

    /// The value of type `T` kept so far, if any.
    package func value<T>(of type: T.Type) -> T? {
        values.withLock { $0[ObjectIdentifier(type)] } as? T
    }

    /// Keeps `value` as the one of its type.
    package func keep<T: Sendable>(_ value: T) {
        values.withLock { $0[ObjectIdentifier(T.self)] = value }
    }
}
