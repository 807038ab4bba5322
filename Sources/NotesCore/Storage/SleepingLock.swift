#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock for sections held long, such as a whole write transaction: a thread that waits for it
/// sleeps until it is free.
///
/// `Synchronization.Mutex` is, on Linux, a priority-inheriting futex, and the kernel keeps a
/// waiter spinning for as long as the owner runs on another core. That suits the short sections
/// it is made for, not a database's writer, held for milliseconds: during a 10,000-note upload
/// (two batches in flight) the waiting batch's spin was 7 % of the server's CPU, taken from the
/// client's half of a 2-core machine. A plain pthread mutex puts the waiter to sleep at once.
final class SleepingLock: @unchecked Sendable {
    // `@unchecked Sendable`: the mutex is the synchronisation; its storage never moves.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock, waiting (asleep) for it if another thread holds it.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Runs `body` holding the lock if it is free now; nil, without waiting, if it is not.
    func withLockIfAvailable<T>(_ body: () throws -> T) rethrows -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
