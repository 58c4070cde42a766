import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether this test process runs under Thread Sanitizer (`swift test --sanitize=thread`, as `.ci/run` does).
///
/// TSan keeps shadow memory for every byte the process touches and delays freeing memory, so a test that bounds the
/// process's resident memory measures TSan, not Fetch: such tests opt out with `.disabled(if: ThreadSanitizer.isActive)`.
enum ThreadSanitizer {
    /// `true` when the TSan runtime is linked into the process (it exports `__tsan_init`).
    static let isActive: Bool = {
        #if canImport(Glibc) || canImport(Darwin)
            return dlsym(UnsafeMutableRawPointer(bitPattern: defaultHandle), "__tsan_init") != nil
        #else
            return false
        #endif
    }()

    /// `RTLD_DEFAULT`: search every loaded image.
    private static var defaultHandle: Int {
        #if canImport(Darwin)
            -2
        #else
            0
        #endif
    }
}
