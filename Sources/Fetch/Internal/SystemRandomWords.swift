#if canImport(Glibc)
    import Glibc
#endif

/// The system's cryptographic random generator, with the first few words read at once.
///
/// On Linux each `SystemRandomNumberGenerator.next()` is a `getrandom` system call (0.7 µs on the 2-core machines
/// `fetch-bench` runs on), and an id takes several words: a new trace three, a request id two. This reads them with
/// one `getentropy`, then goes on with `SystemRandomNumberGenerator`, which it also falls back to if `getentropy`
/// fails. Elsewhere (Apple platforms read `arc4random_buf`, in process) it is `SystemRandomNumberGenerator` itself.
struct SystemRandomWords: RandomNumberGenerator {
    /// The words read ahead; `remaining` of them, from the start, are still to be handed out.
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var remaining = 0
    private var system = SystemRandomNumberGenerator()

    /// The most words read at once.
    static let maximumPrefetch = 4

    /// A generator that reads its first `count` words (at most ``maximumPrefetch``) in one call to the system.
    init(prefetching count: Int) {
        #if canImport(Glibc)
            let count = Swift.min(Swift.max(count, 0), Self.maximumPrefetch)
            guard count > 0 else {
                return
            }
            let read = withUnsafeMutableBytes(of: &words) { getentropy($0.baseAddress, count * 8) }
            remaining = read == 0 ? count : 0
        #endif
    }

    mutating func next() -> UInt64 {
        guard remaining > 0 else {
            return system.next()
        }
        remaining -= 1
        return withUnsafeBytes(of: words) { $0.load(fromByteOffset: remaining * 8, as: UInt64.self) }
    }
}
