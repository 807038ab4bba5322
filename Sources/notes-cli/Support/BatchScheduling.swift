#if canImport(Glibc)
import Glibc
#endif

/// How the kernel schedules the client: as a batch job (Linux's `SCHED_BATCH`).
///
/// The client's threads hand work to each other all the time (the transfer thread, the tasks
/// that read, hash and write). Under the default policy each of those wake-ups preempts the
/// thread that made it, which then has to be scheduled back. `SCHED_BATCH` turns off
/// preemption on wake-up and nothing else (the process keeps its nice level and its fair share
/// of the CPU). Nothing the client does waits on a wake-up beating the thread that made it.
/// A no-op where there is no such policy.
enum BatchScheduling {
    /// First thing in `main`, before any thread starts: every thread inherits it.
    static func configureProcess() {
        #if os(Linux)
        setPolicy(batchPolicy)
        #endif
    }

    /// Runs `start` (which starts another program from this thread) under the default policy,
    /// so that the program, the user's browser, does not inherit the batch policy.
    static func startingInteractiveProgram<Value>(_ start: () throws -> Value) rethrows -> Value {
        #if os(Linux)
        let policy = sched_getscheduler(0)
        guard policy == batchPolicy else { return try start() }
        setPolicy(SCHED_OTHER)
        defer { setPolicy(policy) }
        #endif
        return try start()
    }

    #if os(Linux)
    /// `SCHED_BATCH` (Linux's ABI, <linux/sched.h>): Glibc declares it only under `_GNU_SOURCE`,
    /// which Swift's Glibc module is not built with.
    private static let batchPolicy: Int32 = 3

    /// Sets the calling thread's policy; a failure (a sandbox refusing the call) leaves it as it was.
    private static func setPolicy(_ policy: Int32) {
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, policy, &parameters)
    }
    #endif
}
