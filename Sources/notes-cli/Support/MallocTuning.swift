import Synchronization

#if canImport(Glibc)
import CMalloc
import Glibc
#endif

/// glibc's malloc settings for the client: how it starts, and what holds while attachment
/// contents are uploaded. A no-op where there is no glibc.
enum MallocTuning {
    /// The mmap and trim thresholds outside `largeBodies`.
    static let mmapThreshold: Int32 = 1 << 20
    static let trimThreshold: Int32 = 1 << 20

    /// Set once, first thing in `main`.
    static func configureProcess() {
        #if canImport(Glibc)
        // One malloc arena. The commands run on Swift's concurrent executor, off the main thread,
        // where glibc gives each thread its own arena that grows a page at a time through
        // mprotect: rendering 20 MB took 25,000 mprotect calls and a third more system time than
        // cmark's CLI. The client does little work on several threads at once, so one arena
        // costs no contention worth seeing. (glibc fixes the number of arenas at the first
        // thread's allocation: this cannot be changed later, for one command.)
        mallopt(M_ARENA_MAX, 1)
        // A fixed mmap threshold, as the server sets (see its main.swift): a large block is a
        // mapping of its own, given back when freed, instead of landing in the arena once glibc
        // has raised its threshold after the first large free, where it would stay (the peak of
        // a 10-changed sync of 100,000 notes rose from 179 to 203 MiB with a 32 MiB threshold).
        mallopt(M_MMAP_THRESHOLD, mmapThreshold)
        // Fixing that threshold also fixes the trim threshold, at 128 KiB: the arena then gave
        // back the buffer each attachment was hashed through (up to 1 MiB, freed per file) and
        // the next file faulted it in again, zeroed, page by page. Up to 1 MiB of free arena top
        // is kept instead.
        mallopt(M_TRIM_THRESHOLD, trimThreshold)
        #endif
    }

    /// Scopes open now: the first sets the thresholds, the last puts them back. A command syncs
    /// one folder at a time, but the tests run many syncs at once in one process.
    private static let openScopes = Mutex(0)
    /// glibc's largest mmap threshold on 64-bit systems (`DEFAULT_MMAP_THRESHOLD_MAX`).
    static let largestMmapThreshold = 32 << 20

    /// Runs `body` (the upload of attachment contents in requests of up to `bodyBytes` each)
    /// with blocks of that size allocated in the arena and kept there when freed.
    ///
    /// Each request body is a buffer of its own, which glibc's fixed 1 MiB threshold makes a
    /// fresh mapping per request: the kernel zeroes it page by page and unmaps it again after the
    /// request, on a 1 GiB upload 128 times 8 MiB. Inside the scope the buffers reuse the
    /// arena's memory: at most `keptBytes` of free arena top stays between requests.
    /// Afterwards the thresholds are as before and what the arena keeps is given back. Bodies
    /// too large for glibc's largest threshold leave the settings alone.
    static func largeBodies<Value>(bodyBytes: Int, keptBytes: Int,
                                   _ body: () async throws -> Value) async rethrows -> Value {
        #if canImport(Glibc)
        let mmap = bodyBytes + (1 << 20)
        guard mmap <= largestMmapThreshold else { return try await body() }
        openScopes.withLock { open in
            open += 1
            guard open == 1 else { return }
            mallopt(M_MMAP_THRESHOLD, max(Int32(mmap), mmapThreshold))
            mallopt(M_TRIM_THRESHOLD, max(Int32(clamping: max(keptBytes, bodyBytes)), trimThreshold))
        }
        defer {
            openScopes.withLock { open in
                open -= 1
                guard open == 0 else { return }
                mallopt(M_MMAP_THRESHOLD, mmapThreshold)
                mallopt(M_TRIM_THRESHOLD, trimThreshold)
                malloc_trim(0)
            }
        }
        #endif
        return try await body()
    }
}
