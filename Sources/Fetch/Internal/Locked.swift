#if canImport(Darwin)
    import os
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
#if !canImport(Darwin)
    import Synchronization
#endif

/// A value behind a lock, for the small amount of mutable state shared across threads in Fetch and FetchTesting.
///
/// One allocation holds both the value and the lock (a `pthread_mutex_t` on Linux, an `os_unfair_lock` on Apple
/// platforms): a `Session` call makes a few of these, and `NSLock` costs four allocations on Linux.
///
/// `@unchecked Sendable`: every access to the value goes through `withLock`, which holds the lock. Copies share the
/// same value and lock.
package struct Locked<Value>: @unchecked Sendable {
    private let storage: LockedStorage<Value>

    package init(_ value: Value) {
        storage = LockedStorage.make(value)
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }
}

/// The value (the buffer's header) and its lock (the buffer's one element), in one allocation.
private final class LockedStorage<Value>: ManagedBuffer<Value, LockedStorage.Primitive> {
    #if canImport(Darwin)
        typealias Primitive = os_unfair_lock
    #else
        typealias Primitive = pthread_mutex_t
    #endif

    static func make(_ value: Value) -> LockedStorage<Value> {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: LockedStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
                lock.initialize(to: os_unfair_lock())
            #else
                lock.initialize(to: pthread_mutex_t())
                let status = pthread_mutex_init(lock, nil)
                precondition(status == 0, "pthread_mutex_init failed with \(status)")
            #endif
        }
        return storage
    }

    deinit {
        // The header (the value) is a stored property of ManagedBuffer, destroyed with it; only the lock is ours.
        withUnsafeMutablePointerToElements { lock in
            #if !canImport(Darwin)
                pthread_mutex_destroy(lock)
            #endif
            lock.deinitialize(count: 1)
        }
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { value, lock in
            #if canImport(Darwin)
                os_unfair_lock_lock(lock)
                defer { os_unfair_lock_unlock(lock) }
            #else
                pthread_mutex_lock(lock)
                defer { pthread_mutex_unlock(lock) }
            #endif
            return try body(&value.pointee)
        }
    }
}

#if canImport(Darwin)
    /// A value behind a lock, for a class's state; ``Locked`` on Apple platforms, where the standard library's
    /// `Mutex` needs macOS 15.
    package typealias InlineLocked<Value> = Locked<Value>
#else
    /// A value behind a lock stored in its owner (the standard library's `Mutex`), for a class's state: no
    /// allocation of its own, where a class making one per call (``CallContext``) would otherwise make two.
    package typealias InlineLocked<Value> = Mutex<Value>
#endif
